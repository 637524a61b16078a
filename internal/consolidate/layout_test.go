package consolidate

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/templates"
)

func TestPrepareLayoutCreatesRoot(t *testing.T) {
	root := filepath.Join(t.TempDir(), "home", "memories")
	if err := PrepareLayout(root, "", testNow); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(root)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("root: %v %v", fi, err)
	}
	if fi, err := os.Stat(filepath.Join(root, memdir.RolloutSummariesDir)); err != nil || !fi.IsDir() {
		t.Error("rollout_summaries missing")
	}
	want, _ := templates.Get(adHocInstructionsTemplate, "")
	if got := readFile(t, filepath.Join(root, "extensions", "ad_hoc", "instructions.md")); got != want || want == "" {
		t.Errorf("instructions not seeded from the template")
	}
}

func TestPrepareLayoutRefusesSymlinkedRoot(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.Mkdir(target, 0o700); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "memories")
	if err := os.Symlink(target, root); err != nil {
		t.Fatal(err)
	}
	err := PrepareLayout(root, "", testNow)
	if !errors.Is(err, memdir.ErrSymlinkedRoot) {
		t.Fatalf("PrepareLayout = %v, want memdir.ErrSymlinkedRoot", err)
	}
	if entries, _ := os.ReadDir(target); len(entries) != 0 {
		t.Errorf("wrote %d entries behind the link", len(entries))
	}
}

func TestPrepareLayoutReplacesSymlinkedExtensions(t *testing.T) {
	root := t.TempDir()
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(root, "extensions")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "MEMORY.md"), "m")
	if err := os.Symlink(filepath.Join(root, "MEMORY.md"), filepath.Join(root, "alias.md")); err != nil {
		t.Fatal(err)
	}
	if err := PrepareLayout(root, "", testNow); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(filepath.Join(root, "extensions"))
	if err != nil || !fi.IsDir() || fi.Mode()&os.ModeSymlink != 0 {
		t.Fatalf("extensions is not a real directory: %v %v", fi, err)
	}
	if exists(filepath.Join(root, "alias.md")) {
		t.Error("symlink inside root kept")
	}
	if !exists(filepath.Join(root, "MEMORY.md")) {
		t.Error("link target removed")
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Error("wrote through the extensions link")
	}
}

func TestPrepareLayoutNeverOverwritesInstructions(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "extensions", "ad_hoc", "instructions.md")
	writeFile(t, p, "my own rules")
	override := t.TempDir()
	writeFile(t, filepath.Join(override, adHocInstructionsTemplate), "override")
	if err := PrepareLayout(root, override, testNow); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, p); got != "my own rules" {
		t.Errorf("instructions overwritten: %q", got)
	}
	fresh := t.TempDir()
	if err := PrepareLayout(fresh, override, testNow); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(fresh, "extensions", "ad_hoc", "instructions.md")); got != "override" {
		t.Errorf("template override not used: %q", got)
	}
}

// The index is what turns summary to the scoped view, so it is written
// after every file it names; before, map order could publish it first and
// a summary read in between missed the personal layer.
func TestProjectLayerIndexIsWrittenLast(t *testing.T) {
	layer := projectLayer{
		memdir.ProjectIndexFile:            []byte("{}"),
		memdir.PersonalFile:                []byte("## Personal layer\n"),
		"projects/api-1a2b3c4d/summary.md": []byte("## Project: api\n"),
		"projects/web-5e6f7a8b/summary.md": []byte("## Project: web\n"),
		"projects/cli-9c0d1e2f/summary.md": []byte("## Project: cli\n"),
	}
	want := []string{"projects/api-1a2b3c4d/summary.md", "projects/cli-9c0d1e2f/summary.md", "projects/web-5e6f7a8b/summary.md",
		memdir.PersonalFile, memdir.ProjectIndexFile}
	for i := 0; i < 20; i++ { // map order varies from run to run
		var got []string
		for rel := range layer {
			got = append(got, rel)
		}
		if sortForWrite(got); !slices.Equal(got, want) {
			t.Fatalf("write order %v, want %v", got, want)
		}
	}
}
