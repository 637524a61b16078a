package store

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const purgeMarker = "zqxvplugh4711wombat"

func fileBytes(t *testing.T, path string) string {
	t.Helper()
	var b strings.Builder
	for _, suffix := range []string{"", "-wal"} {
		raw, err := os.ReadFile(path + suffix)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		b.Write(raw)
	}
	return b.String()
}

// TestScrubClearsWhatOlderDeletionsLeft: text deleted before deletions were
// overwritten (by an older memctl, or the sqlite3 shell) stays in the file's
// free pages; Scrub leaves none of it, in the file or its WAL.
func TestScrubClearsWhatOlderDeletionsLeft(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memories_1.sqlite")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=secure_delete(0)")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		if _, err := raw.Exec(`INSERT INTO baseline_files (path, mode, content) VALUES (?, 420, ?)`,
			filepath.Join("rollout_summaries", strings.Repeat("x", i+1)), strings.Repeat("the key is "+purgeMarker+". ", 40)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := raw.Exec(`DELETE FROM baseline_files`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	if !strings.Contains(fileBytes(t, path), purgeMarker) {
		t.Fatal("the deleted text is not in the file: the test proves nothing")
	}
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	complete, err := s.Scrub(ctx)
	if err != nil || !complete {
		t.Fatalf("scrub: %v %v", complete, err)
	}
	if strings.Contains(fileBytes(t, path), purgeMarker) {
		t.Error("the deleted text is still in the file after Scrub")
	}
}

// TestForgetPurgesTheGenerationsBuiltFromIt: the generations that selected
// a memory, and those built on them, lose their files and inputs and are
// marked purged; one from before it was consolidated keeps everything.
func TestForgetPurgesTheGenerationsBuiltFromIt(t *testing.T) {
	s, _ := newStore(t)
	addThread(t, s, "keep-0000", s.now())
	addThread(t, s, "gone-0000", s.now())
	_, tok := claim(t, s, "keep-0000", 100, 8)
	s.MarkStage1Succeeded(ctx, "keep-0000", tok, 100, "keep raw", "keep summary", nil)
	_, tok = claim(t, s, "gone-0000", 100, 8)
	s.MarkStage1Succeeded(ctx, "gone-0000", tok, 100, "the key is "+purgeMarker, "summary "+purgeMarker, nil)
	gen := func(text string, inputs ...string) int64 {
		t.Helper()
		g := NewGeneration{Files: []BaselineFile{{Path: "MEMORY.md", Mode: 0o600, Content: []byte(text)}}}
		for _, in := range inputs {
			g.Inputs = append(g.Inputs, GenerationInput{ThreadID: in, SourceUpdatedAt: 100, RawMemory: "raw of " + in})
		}
		var id int64
		err := s.tx(ctx, func(tx *sql.Tx) error {
			var err error
			id, err = insertGenerationTx(ctx, tx, &g, GenerationApproved, time.Now().Unix())
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	before := gen("keep only", "keep-0000")
	with := gen("keep and "+purgeMarker, "keep-0000", "gone-0000")
	after := gen("carried forward: "+purgeMarker, "keep-0000")
	if err := s.ForgetMemory(ctx, "gone-0000"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id     int64
		purged bool
	}{{before, false}, {with, true}, {after, true}} {
		g, err := s.Generation(ctx, c.id)
		if err != nil {
			t.Fatal(err)
		}
		files, _ := s.GenerationFiles(ctx, c.id)
		inputs, _ := s.GenerationInputs(ctx, c.id)
		if (g.PurgedAt != nil) != c.purged || (len(files) == 0) != c.purged || (len(inputs) == 0) != c.purged {
			t.Errorf("generation %d: purged %v, %d files, %d inputs; want purged %v", c.id, g.PurgedAt, len(files), len(inputs), c.purged)
		}
	}
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM generation_blobs WHERE instr(content, ?) > 0`, purgeMarker).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d blobs still hold the text (%v)", n, err)
	}
}
