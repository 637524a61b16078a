package memfs

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestValidateNoteFilename(t *testing.T) {
	valid := []string{
		"2026-04-06T11-59-59-deploy-notes.md",
		"2026-04-06T11-59-59-a.md",
		"2026-04-06T11-59-59-0.md",
		"2026-04-06T11-59-59-" + strings.Repeat("a", 80) + ".md",
		"9999-99-99T99-99-99-x-.md", // only the shape of the time is checked
	}
	for _, name := range valid {
		if err := ValidateNoteFilename(name); err != nil {
			t.Errorf("ValidateNoteFilename(%q) = %v, want nil", name, err)
		}
	}
	invalid := map[string]string{
		"too long slug":       "2026-04-06T11-59-59-" + strings.Repeat("a", 81) + ".md",
		"over 128 bytes":      "2026-04-06T11-59-59-" + strings.Repeat("a", 120) + ".md",
		"no .md":              "2026-04-06T11-59-59-notes.txt",
		"no slug":             "2026-04-06T11-59-59-.md",
		"no dash before slug": "2026-04-06T11-59-59xnotes.md",
		"space for T":         "2026-04-06 11-59-59-notes.md",
		"colons":              "2026-04-06T11:59:59-notes.md",
		"short year":          "226-04-06T11-59-59-notes.md",
		"letter in digits":    "2026-0a-06T11-59-59-notes.md",
		"uppercase slug":      "2026-04-06T11-59-59-Notes.md",
		"underscore":          "2026-04-06T11-59-59-my_note.md",
		"leading dash":        "2026-04-06T11-59-59--note.md",
		"path separator":      "2026-04-06T11-59-59-a/b.md",
		"dots":                "2026-04-06T11-59-59-a.b.md",
		"traversal":           "../2026-04-06T11-59-59-a.md",
		"empty":               "",
		"just .md":            ".md",
		"lowercase t":         "2026-04-06t11-59-59-notes.md",
		"non-ascii slug":      "2026-04-06T11-59-59-café.md",
	}
	for name, filename := range invalid {
		if err := ValidateNoteFilename(filename); err == nil {
			t.Errorf("%s: ValidateNoteFilename(%q) = nil, want an error", name, filename)
		} else {
			wantErr(t, err, ErrInvalidFilename)
		}
	}
}

func TestNoteFilename(t *testing.T) {
	now := time.Date(2026, 4, 6, 13, 59, 59, 999, time.FixedZone("CEST", 2*3600))
	got, err := NoteFilename(now, "deploy-key")
	if err != nil || got != "2026-04-06T11-59-59-deploy-key.md" {
		t.Fatalf("NoteFilename = %q, %v", got, err)
	}
	for _, slug := range []string{"", "Deploy", "a b", "-x", strings.Repeat("a", 81), "../x"} {
		if _, err := NoteFilename(now, slug); err == nil {
			t.Errorf("NoteFilename(%q) accepted a bad slug", slug)
		} else {
			wantErr(t, err, ErrInvalidFilename)
		}
	}
}

const noteName = "2026-04-06T11-59-59-prefer-tabs.md"

func TestAddNoteCreatesFoldersAndWritesVerbatim(t *testing.T) {
	root := filepath.Join(t.TempDir(), "memories")
	note := "  The user prefers tabs.\r\nKeep it.\n\n"
	rel, err := AddNote(root, noteName, note)
	if err != nil {
		t.Fatal(err)
	}
	if rel != "extensions/ad_hoc/notes/"+noteName {
		t.Fatalf("rel = %q", rel)
	}
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil || string(b) != note {
		t.Fatalf("content %q, %v", b, err)
	}
	// The temporary file is gone and the note is visible to the tools.
	entries, err := os.ReadDir(filepath.Join(root, "extensions/ad_hoc/notes"))
	if err != nil || len(entries) != 1 {
		t.Fatalf("notes dir holds %v, %v", entries, err)
	}
	res, err := Search(root, SearchRequest{Queries: []string{"prefers tabs"}})
	if err != nil || len(res.Matches) != 1 {
		t.Fatalf("search after add: %+v, %v", res, err)
	}
}

func TestAddNoteRefusesExisting(t *testing.T) {
	root := filepath.Join(t.TempDir(), "memories")
	if _, err := AddNote(root, noteName, "first"); err != nil {
		t.Fatal(err)
	}
	_, err := AddNote(root, noteName, "second")
	wantErr(t, err, ErrAlreadyExists)
	if !strings.Contains(err.Error(), "already exists") {
		t.Errorf("message %q", err)
	}
	b, _ := os.ReadFile(filepath.Join(root, "extensions/ad_hoc/notes", noteName))
	if string(b) != "first" {
		t.Fatalf("existing note overwritten: %q", b)
	}
	// A dangling symlink in the way also counts as existing.
	other := "2026-04-06T11-59-59-other.md"
	symlink(t, filepath.Join(t.TempDir(), "target.md"), filepath.Join(root, "extensions/ad_hoc/notes", other))
	_, err = AddNote(root, other, "x")
	wantErr(t, err, ErrAlreadyExists)
}

func TestAddNoteConcurrentSameName(t *testing.T) {
	root := filepath.Join(t.TempDir(), "memories")
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = AddNote(root, noteName, "note")
		}()
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
		} else {
			wantErr(t, err, ErrAlreadyExists)
		}
	}
	if ok != 1 {
		t.Fatalf("%d writers succeeded, want exactly 1", ok)
	}
}

func TestAddNoteRejectsBadInput(t *testing.T) {
	root := filepath.Join(t.TempDir(), "memories")
	_, err := AddNote(root, "notes.md", "x")
	wantErr(t, err, ErrInvalidFilename)
	_, err = AddNote(root, noteName, " \n\t")
	wantErr(t, err, ErrEmptyNote)
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Fatalf("rejected input created folders: %v", err)
	}
}

func TestAddNoteRejectsSymlinkedOrFileFolders(t *testing.T) {
	for _, tt := range []struct {
		name  string
		setup func(t *testing.T, root, outside string)
	}{
		{"symlinked root", func(t *testing.T, root, outside string) { symlink(t, outside, root) }},
		{"symlinked extensions", func(t *testing.T, root, outside string) {
			mkdir(t, root)
			symlink(t, outside, filepath.Join(root, "extensions"))
		}},
		{"symlinked notes", func(t *testing.T, root, outside string) {
			mkdir(t, filepath.Join(root, "extensions/ad_hoc"))
			symlink(t, outside, filepath.Join(root, "extensions/ad_hoc/notes"))
		}},
		{"file in place of ad_hoc", func(t *testing.T, root, outside string) {
			mkdir(t, filepath.Join(root, "extensions"))
			if err := os.WriteFile(filepath.Join(root, "extensions/ad_hoc"), []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			root, outside := filepath.Join(dir, "memories"), filepath.Join(dir, "outside")
			mkdir(t, outside)
			tt.setup(t, root, outside)
			_, err := AddNote(root, noteName, "x")
			wantErr(t, err, ErrInvalidPath)
			if entries, _ := os.ReadDir(outside); len(entries) != 0 {
				t.Fatalf("wrote through the link: %v", entries)
			}
		})
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
}
