package memfs

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestListReturnsShallowMemoryPaths(t *testing.T) {
	root := tree(t, map[string]string{"MEMORY.md": "summary", "skills/example/SKILL.md": "skill"})
	res, err := List(root, "", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := ListResult{Entries: []ListEntry{{Path: "MEMORY.md", EntryType: EntryFile}, {Path: "skills", EntryType: EntryDirectory}}}
	if !reflect.DeepEqual(res, want) {
		t.Fatalf("got %+v, want %+v", res, want)
	}
}

func TestListSupportsPagination(t *testing.T) {
	root := tree(t, map[string]string{"skills/": "", "rollout_summaries/": "", "MEMORY.md": "s", "memory_summary.md": "s"})
	p1, err := List(root, "", "", 2)
	if err != nil {
		t.Fatal(err)
	}
	want1 := ListResult{Entries: []ListEntry{{Path: "MEMORY.md", EntryType: EntryFile}, {Path: "memory_summary.md", EntryType: EntryFile}}, NextCursor: "2", Truncated: true}
	if !reflect.DeepEqual(p1, want1) {
		t.Fatalf("page 1 = %+v", p1)
	}
	p2, err := List(root, "", p1.NextCursor, 2)
	if err != nil {
		t.Fatal(err)
	}
	want2 := ListResult{Entries: []ListEntry{{Path: "rollout_summaries", EntryType: EntryDirectory}, {Path: "skills", EntryType: EntryDirectory}}}
	if !reflect.DeepEqual(p2, want2) {
		t.Fatalf("page 2 = %+v", p2)
	}
	// A cursor equal to the count is a valid, empty last page.
	p3, err := List(root, "", "4", 2)
	if err != nil || len(p3.Entries) != 0 || p3.Truncated {
		t.Fatalf("cursor at end: %+v, %v", p3, err)
	}
}

func TestListPreservesLexicographicOrderForSiblings(t *testing.T) {
	root := tree(t, map[string]string{"a/": "", "a.txt": "a", "b.txt": "b", "B.md": "upper"})
	res, err := List(root, "", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range res.Entries {
		got = append(got, e.Path)
	}
	if want := []string{"B.md", "a", "a.txt", "b.txt"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestListScopedDirectoryIsShallow(t *testing.T) {
	root := tree(t, map[string]string{"skills/README.md": "r", "skills/example/SKILL.md": "s"})
	res, err := List(root, "skills", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := ListResult{Path: "skills", Entries: []ListEntry{{Path: "skills/README.md", EntryType: EntryFile}, {Path: "skills/example", EntryType: EntryDirectory}}}
	if !reflect.DeepEqual(res, want) {
		t.Fatalf("got %+v", res)
	}
	// A trailing slash and "./" are the same directory.
	res, err = List(root, "./skills/", "", 0)
	if err != nil || len(res.Entries) != 2 || res.Entries[0].Path != "skills/README.md" {
		t.Fatalf("./skills/: %+v, %v", res, err)
	}
}

func TestListFileReturnsItself(t *testing.T) {
	root := tree(t, map[string]string{"skills/a/SKILL.md": "s"})
	res, err := List(root, "skills/a/SKILL.md", "", 0)
	if err != nil || !reflect.DeepEqual(res.Entries, []ListEntry{{Path: "skills/a/SKILL.md", EntryType: EntryFile}}) {
		t.Fatalf("got %+v, %v", res, err)
	}
}

func TestListHidesHiddenSymlinksAndSpecialFiles(t *testing.T) {
	root := tree(t, map[string]string{".git/HEAD": "ref", ".hidden.md": "h", "MEMORY.md": "m", "skills/": ""})
	outside := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(outside, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	symlink(t, outside, filepath.Join(root, "linked.md"))
	symlink(t, filepath.Dir(outside), filepath.Join(root, "linkdir"))
	res, err := List(root, "", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []ListEntry{{Path: "MEMORY.md", EntryType: EntryFile}, {Path: "skills", EntryType: EntryDirectory}}
	if !reflect.DeepEqual(res.Entries, want) {
		t.Fatalf("got %+v", res.Entries)
	}
}

func TestListErrors(t *testing.T) {
	root := tree(t, map[string]string{"MEMORY.md": "summary", ".git/HEAD": "x", "file.md": "f"})
	outside := t.TempDir()
	symlink(t, outside, filepath.Join(root, "linkdir"))
	tests := []struct {
		name, path, cursor string
		kind               error
	}{
		{"invalid cursor", "", "bogus", ErrInvalidCursor},
		{"negative cursor", "", "-1", ErrInvalidCursor},
		{"cursor past end", "", "4", ErrInvalidCursor},
		{"parent segment", "../secret", "", ErrInvalidPath},
		{"parent in the middle", "skills/../../x", "", ErrInvalidPath},
		{"absolute", "/etc", "", ErrInvalidPath},
		{"drive prefix", "C:/Windows", "", ErrInvalidPath},
		{"hidden directory", ".git", "", ErrNotFound},
		{"hidden below", "skills/.cache/x", "", ErrNotFound},
		{"missing", "nope", "", ErrNotFound},
		{"symlinked directory", "linkdir", "", ErrInvalidPath},
		{"through a symlink", "linkdir/x.md", "", ErrInvalidPath},
		{"through a file", "file.md/x", "", ErrInvalidPath},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := List(root, tt.path, tt.cursor, 0)
			wantErr(t, err, tt.kind)
		})
	}
}

func TestListErrorMessages(t *testing.T) {
	root := tree(t, map[string]string{"file.md": "f"})
	symlink(t, t.TempDir(), filepath.Join(root, "link"))
	for path, want := range map[string]string{
		"../secret":    "path '../secret' must stay within the memories root",
		"link":         "path 'link' must not be a symlink",
		"file.md/x":    "path 'file.md/x' traverses through a non-directory path component",
		"missing/file": "path 'missing/file' was not found",
	} {
		if _, err := List(root, path, "", 0); err == nil || err.Error() != want {
			t.Errorf("List(%q) error = %v, want %q", path, err, want)
		}
	}
	if _, err := List(root, "", "9", 0); err == nil || err.Error() != "cursor '9' exceeds result count" {
		t.Errorf("cursor message: %v", err)
	}
}

func TestListMissingOrSymlinkedRoot(t *testing.T) {
	dir := t.TempDir()
	_, err := List(filepath.Join(dir, "memories"), "", "", 0)
	wantErr(t, err, ErrNotFound)

	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	symlink(t, real, filepath.Join(dir, "linked"))
	_, err = List(filepath.Join(dir, "linked"), "", "", 0)
	wantErr(t, err, ErrInvalidPath)
}
