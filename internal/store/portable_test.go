package store

import (
	"testing"
	"time"

	"github.com/memctl/memctl/internal/origin"
)

// TestImportedMemoriesJoinPhase2 checks what an imported memory is: it
// enters the Phase 2 selection like one extracted here, naming its
// origin; extraction never claims its thread and a scan never re-keys its
// project; importing it twice changes nothing and asks for no second
// consolidation; a memory forgotten here is not brought back.
func TestImportedMemoriesJoinPhase2(t *testing.T) {
	s, c := newStore(t)
	at := c.now().Add(-time.Hour)
	m := PortableMemory{ThreadID: "remote-1", SourceUpdatedAt: at.Unix(), GeneratedAt: at.Unix(), RawMemory: "use make itest",
		RolloutSummary: "# itest", SourceKind: "codex", RolloutPath: "/laptop/rollout.jsonl", Cwd: "/laptop/app", Preview: "run the tests",
		CreatedAt: at, UpdatedAt: at, ProjectKey: "git:github.com/acme/app", ProjectName: "acme/app", ProjectRoot: "/laptop/app",
		From: origin.Origin{Kind: origin.Sync, Detail: "laptop-1"}}
	if out, err := s.ImportMemory(ctx, m, "laptop-1"); err != nil || out != ImportAdded {
		t.Fatalf("first import: %v %v", out, err)
	}
	reqs, _ := s.ConsolidationRequests(ctx)
	if out, err := s.ImportMemory(ctx, m, "laptop-1"); err != nil || out != ImportUnchanged {
		t.Fatalf("second import: %v %v", out, err)
	}
	if again, _ := s.ConsolidationRequests(ctx); len(again) != len(reqs) || len(reqs) != 1 {
		t.Errorf("requests after one and two imports: %d, %d", len(reqs), len(again))
	}
	sel, err := s.Selection(ctx, 10, 30)
	if err != nil || len(sel) != 1 || sel[0].From != m.From || sel[0].ProjectKey != "git:github.com/acme/app" || sel[0].RawMemory != "use make itest" {
		t.Fatalf("selection: %+v %v", sel, err)
	}
	cands, err := s.Candidates(ctx, CandidateFilter{AllWindows: true})
	if err != nil || len(cands) != 0 {
		t.Errorf("an imported thread is an extraction candidate: %+v %v", cands, err)
	}
	todo, err := s.ThreadProjects(ctx, "other-rules")
	if err != nil || len(todo) != 0 {
		t.Errorf("an imported thread would be re-keyed: %+v %v", todo, err)
	}
	// Uses only grow; the text follows the import.
	m.UsageCount, m.RawMemory = 3, "use make itest, twice"
	if out, _ := s.ImportMemory(ctx, m, "laptop-1"); out != ImportUpdated {
		t.Errorf("update: %v", out)
	}
	m.UsageCount = 1
	s.ImportMemory(ctx, m, "laptop-1")
	if o, _ := s.Output(ctx, "remote-1"); o.UsageCount != 3 {
		t.Errorf("uses went down to %d", o.UsageCount)
	}
	if err := s.ForgetMemory(ctx, "remote-1"); err != nil {
		t.Fatal(err)
	}
	if out, _ := s.ImportMemory(ctx, m, "laptop-1"); out != ImportForgotten {
		t.Errorf("a forgotten memory was imported again: %v", out)
	}
	if _, err := s.Output(ctx, "remote-1"); err != ErrNotFound {
		t.Errorf("output after a refused import: %v", err)
	}
}
