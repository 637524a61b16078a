package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/bundle"
)

// A note that arrives from elsewhere, by a bundle or by another machine's
// sync log, was written by hand or by a memctl with fewer rules: it must be
// stored redacted, in the memory folder and in the database, like a note
// added here.

const incomingNoteName = "2026-06-01T10-00-00-deploy.md"

// incomingNote is a note record whose text holds a GitHub token and a
// Notion token (a family of the newest rules).
func incomingNote(t *testing.T) (rec string, secrets []string) {
	t.Helper()
	gh := "gh" + "p_" + strings.Repeat("A1b2C3d4E5", 4)[:36]
	ntn := "nt" + "n_" + "12345678901" + strings.Repeat("aB3dE5fG7h", 4)[:35]
	content := "Deploy with the token " + gh + ".\nNOTION_KEY=" + ntn + "\nThe pipeline signs builds.\n"
	line := bundle.Line(bundle.Record{Type: bundle.TypeNote, Path: incomingNoteName, Rev: bundle.NoteRev(content),
		Content: content, At: "2026-06-01T10:00:00Z", Machine: "elsewhere"})
	return line, []string{gh, ntn}
}

// checkNoteStoredRedacted looks for the secrets in the note file and, after
// a consolidation folded the note in, in the database's file and tables.
func checkNoteStoredRedacted(t *testing.T, m *machine, secrets []string) {
	t.Helper()
	note, err := os.ReadFile(filepath.Join(m.home, "memories", "extensions", "ad_hoc", "notes", incomingNoteName))
	if err != nil {
		t.Fatalf("the note was not written: %v", err)
	}
	if !strings.Contains(string(note), "The pipeline signs builds.") || !strings.Contains(string(note), "[REDACTED_SECRET]") {
		t.Errorf("the note was not kept, redacted:\n%s", note)
	}
	m.memctl("run")
	db := dumpDatabase(t, filepath.Join(m.home, "memories_1.sqlite"))
	if !strings.Contains(db, "The pipeline signs builds.") {
		t.Fatal("the note never reached the database: the check proves nothing")
	}
	for _, s := range secrets {
		if strings.Contains(string(note), s) {
			t.Errorf("the note file holds %s", s[:6])
		}
		if strings.Contains(db, s) {
			t.Errorf("the database holds %s", s[:6])
		}
	}
}

func TestImportedNoteIsStoredRedacted(t *testing.T) {
	w := newSyncWorld(t)
	rec, secrets := incomingNote(t)
	file := filepath.Join(w.dir, "notes.jsonl")
	writeFile(t, file, `{"type":"header","format":"memctl-bundle","schema":1}`+"\n"+rec+"\n")
	w.a.memctl("import", file)
	checkNoteStoredRedacted(t, w.a, secrets)
}

func TestSyncedNoteIsStoredRedacted(t *testing.T) {
	w := newSyncWorld(t)
	// Another machine's log, as an older or a hostile memctl wrote it.
	rec, secrets := incomingNote(t)
	other := filepath.Join(w.dir, "elsewhere")
	writeFile(t, filepath.Join(other, "events", "elsewhere.jsonl"), rec+"\n")
	gitRun(t, other, "init", "-q", "-b", "main")
	gitRun(t, other, "add", ".")
	gitRun(t, other, "commit", "-q", "-m", "elsewhere")
	gitRun(t, other, "push", "-q", w.remote, "main")

	if r := w.b.sync(); r.Applied["v1"].Notes != 1 {
		t.Fatalf("B did not take the note: %+v", r)
	}
	checkNoteStoredRedacted(t, w.b, secrets)
}
