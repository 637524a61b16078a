package memdir

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/owner"
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.md")
	for _, content := range []string{"one", "two"} {
		if err := WriteAtomic(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, p); got != content {
			t.Errorf("got %q", got)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("temp files left behind: %d entries", len(entries))
	}
	outside := t.TempDir()
	link := filepath.Join(dir, "link")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(filepath.Join(link, "x.md"), []byte("x"), 0o600); err == nil {
		t.Error("wrote through a symlinked parent")
	}
	if exists(filepath.Join(outside, "x.md")) {
		t.Error("file created outside")
	}
}

func TestCreateNew(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "note.md")
	if err := CreateNew(p, []byte("first"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CreateNew(p, []byte("second"), 0o600); !errors.Is(err, fs.ErrExist) {
		t.Errorf("second CreateNew = %v, want fs.ErrExist", err)
	}
	if got := readFile(t, p); got != "first" {
		t.Errorf("existing file replaced: %q", got)
	}
	dangling := filepath.Join(dir, "dangling.md")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), dangling); err != nil {
		t.Fatal(err)
	}
	if err := CreateNew(dangling, []byte("x"), 0o600); !errors.Is(err, fs.ErrExist) {
		t.Errorf("CreateNew over a dangling link = %v, want fs.ErrExist", err)
	}
	if exists(filepath.Join(dir, "nowhere")) {
		t.Error("wrote through a dangling link")
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, %v", fi, err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if IsTemp(e.Name()) {
			t.Errorf("temp file left behind: %s", e.Name())
		}
	}
}

func TestRepair(t *testing.T) {
	root := filepath.Join(t.TempDir(), "home", FolderV1)
	if err := Repair(root, []byte("seed"), time.Now()); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(root)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("root: %v %v", fi, err)
	}
	for _, dir := range []string{"rollout_summaries", "extensions/ad_hoc"} {
		if fi, err := os.Lstat(filepath.Join(root, dir)); err != nil || !fi.IsDir() {
			t.Errorf("%s missing", dir)
		}
	}
	if got := readFile(t, filepath.Join(root, "extensions", "ad_hoc", "instructions.md")); got != "seed" {
		t.Errorf("instructions = %q", got)
	}
	// A second repair keeps the user's copy.
	os.WriteFile(filepath.Join(root, "extensions", "ad_hoc", "instructions.md"), []byte("mine"), 0o600)
	if err := Repair(root, []byte("seed"), time.Now()); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(root, "extensions", "ad_hoc", "instructions.md")); got != "mine" {
		t.Errorf("instructions overwritten: %q", got)
	}
}

func TestRepairRemovesAbandonedTemps(t *testing.T) {
	root := t.TempDir()
	now := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	old := filepath.Join(root, tempPrefix+"old")
	fresh := filepath.Join(root, tempPrefix+"fresh")
	for _, p := range []string{old, fresh} {
		if err := os.WriteFile(p, []byte("half"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	os.Chtimes(old, now.Add(-2*time.Hour), now.Add(-2*time.Hour))
	os.Chtimes(fresh, now.Add(-time.Minute), now.Add(-time.Minute))
	if err := Repair(root, nil, now); err != nil {
		t.Fatal(err)
	}
	if exists(old) {
		t.Error("abandoned temp file kept")
	}
	if !exists(fresh) {
		t.Error("a live writer's temp file was removed")
	}
}

func TestRepairRefusesSymlinkedRoot(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.Mkdir(target, 0o700); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "memories")
	if err := os.Symlink(target, root); err != nil {
		t.Fatal(err)
	}
	err := Repair(root, []byte("x"), time.Now())
	if !errors.Is(err, ErrSymlinkedRoot) {
		t.Fatalf("Repair = %v, want ErrSymlinkedRoot", err)
	}
	if entries, _ := os.ReadDir(target); len(entries) != 0 {
		t.Errorf("wrote %d entries behind the link", len(entries))
	}
}

func TestEnsureDirRefusesLinksAndFiles(t *testing.T) {
	root := t.TempDir()
	if err := os.Symlink(t.TempDir(), filepath.Join(root, "extensions")); err != nil {
		t.Fatal(err)
	}
	var de *DirError
	if err := EnsureDir(root, NotesDir); !errors.As(err, &de) || !de.Symlink || de.Rel != "extensions" {
		t.Errorf("EnsureDir through a link = %v, want a DirError for extensions", err)
	}
	if err := os.WriteFile(filepath.Join(root, "skills"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := EnsureDir(root, SkillsDir+"/x"); !errors.As(err, &de) || de.Symlink || de.Rel != "skills" {
		t.Errorf("EnsureDir through a file = %v, want a DirError for skills", err)
	}
}

func TestRoot(t *testing.T) {
	if got := Root("/h", "v2"); got != filepath.Join("/h", "memories_v2") {
		t.Errorf("v2 root = %s", got)
	}
	if got := Root("/h", "v1"); got != filepath.Join("/h", "memories") {
		t.Errorf("v1 root = %s", got)
	}
}

// A killed writer's .memctl-tmp-* files stayed until they were
// an hour old. The name says who wrote it; a dead writer's file goes at
// once, a live writer's stays, an untagged one goes once it is old.
func TestRemoveAbandonedTemps(t *testing.T) {
	root := t.TempDir()
	c := exec.Command("/bin/sh", "-c", "exit 0")
	if err := c.Run(); err != nil {
		t.Skipf("no shell to make a dead process: %v", err)
	}
	hash, _, _ := strings.Cut(owner.TempTag(), "-")
	now := time.Now()
	files := map[string]struct {
		age  time.Duration
		kept bool
	}{
		tempPrefix + hash + "-" + strconv.Itoa(c.Process.Pid) + "-123": {0, false},             // its writer has exited
		tempPrefix + owner.TempTag() + "-456":                          {0, true},              // this process, writing
		tempPrefix + hash + "-" + strconv.Itoa(os.Getppid()) + "-789":  {0, true},              // a live process
		tempPrefix + "1234567":                                         {0, true},              // untagged, fresh
		tempPrefix + "7654321":                                         {2 * time.Hour, false}, // untagged, old
		"notes.md":                                                     {2 * time.Hour, true},
	}
	for name, f := range files {
		p := filepath.Join(root, "rollout_summaries", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("half a fi"), 0o600); err != nil {
			t.Fatal(err)
		}
		at := now.Add(-f.age)
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	if n := RemoveAbandonedTemps(root, now); n != 2 {
		t.Errorf("RemoveAbandonedTemps removed %d files, want 2", n)
	}
	for name, f := range files {
		_, err := os.Lstat(filepath.Join(root, "rollout_summaries", name))
		if kept := err == nil; kept != f.kept {
			t.Errorf("%s kept = %v, want %v", name, kept, f.kept)
		}
	}
	// Names written now carry this process's tag.
	if err := WriteAtomic(filepath.Join(root, "x.md"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	tmp, err := writeTemp(root, []byte("y"), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(tmp)
	if !strings.HasPrefix(filepath.Base(tmp), tempPrefix+owner.TempTag()+"-") {
		t.Errorf("temporary file %s does not carry the writer's tag %s", filepath.Base(tmp), owner.TempTag())
	}
}
