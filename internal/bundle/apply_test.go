package bundle

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/memctl/memctl/internal/store"
)

// TestApplyTakesInOnlyWhatTheLogChanged runs Apply on a real store: a
// memory deleted here (pruned) while the log stood still is not brought
// back, a later edit in the log is; a memory edited here and not sent yet
// is not overwritten.
func TestApplyTakesInOnlyWhatTheLogChanged(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(ctx, filepath.Join(dir, "memories_1.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	root := filepath.Join(dir, "memories")
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
