package bundle

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/store"
)

// TestApplyTakesInOnlyWhatTheLogChanged runs Apply on a real store: a
// memory deleted here (pruned) while the log stood still is not brought
// back, a later edit in the log is; a memory edited here and not sent yet
// is not overwritten.
func TestApplyTakesInOnlyWhatTheLogChanged(t *testing.T) {
	ctx := context.Background()
	st, root := openHome(t)
	const t1, t2 = "2026-06-01T00:00:00Z", "2026-06-02T00:00:00Z"
	r1 := Record{Type: TypeMemory, ID: "x", Rev: "r1", At: t1, Machine: "a", Memory: &Memory{RawMemory: "one", SourceUpdatedAt: 10, ProjectKey: "git:h/o/n"}}
	apply := func(recs ...Record) ApplyResult {
		t.Helper()
		res, err := Apply(ctx, st, root, Fold(recs), Intake{})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if r := apply(r1); r.Added != 1 {
		t.Fatalf("first apply: %+v", r)
	}
	if r := apply(r1); r.Changed() {
		t.Fatalf("the same log again: %+v", r)
	}
	if _, err := st.DropImported(ctx, "x"); err != nil { // gone here, as a prune would
		t.Fatal(err)
	}
	if r := apply(r1); r.Added != 0 {
		t.Errorf("a memory deleted here came back from a log that did not change: %+v", r)
	}
	r2 := Record{Type: TypeMemory, ID: "x", Rev: "r2", Bases: []string{"r1"}, At: t2, Machine: "b", Memory: &Memory{RawMemory: "two", SourceUpdatedAt: 10}}
	if r := apply(r1, r2); r.Added != 1 {
		t.Errorf("an edit in the log did not bring the memory: %+v", r)
	}
	// Edited here, not sent: the log (still at r2) does not overwrite it.
	if err := st.EditMemory(ctx, "x", store.MemoryEdit{RawMemory: ptr("three, mine")}); err != nil {
		t.Fatal(err)
	}
	if r := apply(r1, r2); r.Changed() {
		t.Errorf("a change not sent yet was overwritten: %+v", r)
	}
	if o, _ := st.Output(ctx, "x"); o.RawMemory != "three, mine" {
		t.Errorf("raw memory %q", o.RawMemory)
	}
}

func ptr(s string) *string { return &s }

// TestApplyCleansEveryTextTakenIn: a memory's texts, slug included, and a
// note from the log pass clean before they are stored.
func TestApplyCleansEveryTextTakenIn(t *testing.T) {
	ctx := context.Background()
	st, root := openHome(t)
	slug := "deploy-with-SECRET"
	recs := []Record{
		{Type: TypeMemory, ID: "x", Rev: "r1", At: "2026-06-01T00:00:00Z", Machine: "a",
			Memory: &Memory{RawMemory: "raw SECRET", RolloutSummary: "summary SECRET", RolloutSlug: &slug, Preview: "preview SECRET", SourceUpdatedAt: 10}},
		{Type: TypeNote, Path: "2026-06-01T10-00-00-deploy.md", Rev: NoteRev("note SECRET"), Content: "note SECRET", At: "2026-06-01T00:00:00Z", Machine: "a"},
	}
	clean := func(s string) string { return strings.ReplaceAll(s, "SECRET", "[REDACTED_SECRET]") }
	if _, err := Apply(ctx, st, root, Fold(recs), Intake{Clean: clean}); err != nil {
		t.Fatal(err)
	}
	mems, err := st.PortableMemories(ctx, "")
	if err != nil || len(mems) != 1 {
		t.Fatal(mems, err)
	}
	m := mems[0]
	for what, text := range map[string]string{"raw memory": m.RawMemory, "summary": m.RolloutSummary, "slug": *m.RolloutSlug, "preview": m.Preview} {
		if strings.Contains(strings.ReplaceAll(text, "[REDACTED_SECRET]", ""), "SECRET") {
			t.Errorf("the %s was stored as it came: %q", what, text)
		}
	}
	notes, err := Notes(root)
	if err != nil || len(notes) != 1 || !strings.HasSuffix(notes[0].Content, "\nnote [REDACTED_SECRET]") {
		t.Errorf("notes: %+v %v", notes, err)
	}
}

// openHome is a real store and the path of its memory folder, in a
// temporary home.
func openHome(t *testing.T) (*store.Store, string) {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(context.Background(), filepath.Join(dir, "memories_1.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, filepath.Join(dir, "memories")
}
