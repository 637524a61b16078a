package reset

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/reviewdir"
)

type fakeDB struct{ cleared *int }

func (f fakeDB) Clear(context.Context) error { *f.cleared++; return nil }

func targets(home string, n *int) []Target {
	open := func(context.Context) (Database, func() error, error) {
		return fakeDB{n}, func() error { return nil }, nil
	}
	return []Target{
		{Path: filepath.Join(home, "memories_1.sqlite"), Always: true, Open: open},
		{Path: filepath.Join(home, "memories_v2_1.sqlite"), Open: open},
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(p), 0o700)
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestClearEmptiesFoldersKeepsRoots(t *testing.T) {
	home := t.TempDir()
	outside := t.TempDir()
	write(t, filepath.Join(outside, "precious.txt"), "keep me")
	write(t, filepath.Join(home, "memories", "MEMORY.md"), "x")
	write(t, filepath.Join(home, "memories", "rollout_summaries", "a.md"), "x")
	os.Symlink(outside, filepath.Join(home, "memories", "link-to-outside"))
	write(t, filepath.Join(home, "memories_v2", "memory_summary.md"), "v1")
	n := 0
	res, err := Clear(context.Background(), home, targets(home, &n), false)
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 || len(res.ClearedDatabases) != 1 {
		t.Errorf("v2 database cleared although absent: %d %v", n, res.ClearedDatabases)
	}
	for _, r := range memdir.Folders {
		entries, err := os.ReadDir(filepath.Join(home, r))
		if err != nil || len(entries) != 0 {
			t.Errorf("%s: %v %v", r, entries, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(outside, "precious.txt")); err != nil || string(b) != "keep me" {
		t.Error("followed a symlink inside the root")
	}
}

func TestClearRefusesSymlinkedRoot(t *testing.T) {
	home := t.TempDir()
	target := t.TempDir()
	write(t, filepath.Join(target, "MEMORY.md"), "precious")
	write(t, filepath.Join(home, "memories_v2", "memory_summary.md"), "v1")
	if err := os.Symlink(target, filepath.Join(home, "memories")); err != nil {
		t.Fatal(err)
	}
	n := 0
	_, err := Clear(context.Background(), home, targets(home, &n), false)
	if !errors.Is(err, ErrSymlinkRoot) {
		t.Fatalf("want ErrSymlinkRoot, got %v", err)
	}
	if n != 0 {
		t.Error("database cleared despite the refusal")
	}
	if b, _ := os.ReadFile(filepath.Join(target, "MEMORY.md")); string(b) != "precious" {
		t.Error("target touched")
	}
	if _, err := os.Stat(filepath.Join(home, "memories_v2", "memory_summary.md")); err != nil {
		t.Error("another root was cleared before the refusal")
	}
	if fi, _ := os.Lstat(filepath.Join(home, "memories")); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("link removed")
	}
}

func TestClearDryRunDeletesNothing(t *testing.T) {
	home := t.TempDir()
	write(t, filepath.Join(home, "memories", "MEMORY.md"), "x")
	write(t, filepath.Join(home, "memories_v2_1.sqlite"), "")
	n := 0
	res, err := Clear(context.Background(), home, targets(home, &n), true)
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 || len(res.ClearedDatabases) != 2 || len(res.Entries) != 1 {
		t.Errorf("dry run: n=%d %+v", n, res)
	}
	if _, err := os.Stat(filepath.Join(home, "memories", "MEMORY.md")); err != nil {
		t.Error("dry run deleted a file")
	}
}

func TestClearRemovesTheStagingFolder(t *testing.T) {
	home := t.TempDir()
	outside := t.TempDir()
	write(t, filepath.Join(outside, "precious.txt"), "keep me")
	write(t, filepath.Join(home, memdir.StagingFolder, "memories-review-1", "MEMORY.md"), "left by a killed run")
	os.Symlink(outside, filepath.Join(home, memdir.StagingFolder, "link"))
	n := 0
	res, err := Clear(context.Background(), home, targets(home, &n), true)
	if err != nil || !slices.Contains(res.Entries, filepath.Join(home, memdir.StagingFolder)) {
		t.Fatalf("dry run does not list the staging folder: %v %v", res.Entries, err)
	}
	if _, err := os.Stat(filepath.Join(home, memdir.StagingFolder)); err != nil {
		t.Fatal("dry run removed it")
	}
	if _, err := Clear(context.Background(), home, targets(home, &n), false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(home, memdir.StagingFolder)); !os.IsNotExist(err) {
		t.Errorf("staging folder kept: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(outside, "precious.txt")); err != nil || string(b) != "keep me" {
		t.Error("followed a symlink in the staging folder")
	}
}

func TestClearRemovesHeldMemory(t *testing.T) {
	home := t.TempDir()
	write(t, filepath.Join(home, reviewdir.Folder, "memories", "note-0123456789ab.json"), "{}")
	write(t, filepath.Join(home, reviewdir.Folder, "team-approved"), "abc\n")
	n := 0
	if _, err := Clear(context.Background(), home, targets(home, &n), false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(home, reviewdir.Folder)); !os.IsNotExist(err) {
		t.Errorf("the review folder was kept: %v", err)
	}
}
