package store

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/origin"
)

// memWith stores a raw memory for a new thread id at watermark wm.
func memWith(t *testing.T, s *Store, id string, wm int64) {
	t.Helper()
	addThread(t, s, id, time.Unix(wm, 0))
	_, tok := claim(t, s, id, wm, 100)
	succeed(t, s, id, tok, wm)
}

func selectedIDs(sel []Selected) string {
	var out []string
	for _, x := range sel {
		out = append(out, x.ThreadID)
	}
	return strings.Join(out, ",")
}

func TestPinnedRanksFirstAndIgnoresAge(t *testing.T) {
	s, c := newStore(t)
	now := s.now().Unix()
	memWith(t, s, "old", now-100*86400)
	memWith(t, s, "fresh1", now)
	memWith(t, s, "fresh2", now)
	generatedWhenFresh(t, s)
	s.RecordUsage(ctx, []string{"fresh1", "fresh1", "fresh2"})
	if sel, _ := s.Selection(ctx, 1, 30); selectedIDs(sel) != "fresh1" {
		t.Fatalf("before the pin: %q", selectedIDs(sel))
	}
	changed, err := s.SetPinned(ctx, "old", true)
	if err != nil || !changed {
		t.Fatalf("pin: %v %v", changed, err)
	}
	if changed, _ := s.SetPinned(ctx, "old", true); changed {
		t.Error("pinning twice reported a change")
	}
	sel, err := s.Selection(ctx, 1, 30)
	if err != nil || selectedIDs(sel) != "old" || !sel[0].Pinned {
		t.Fatalf("a pinned memory past max_unused_days must rank first: %q %+v", selectedIDs(sel), sel)
	}
	// Never pruned, however old and unselected.
	c.add(400 * 24 * time.Hour)
	pruned, err := s.Prune(ctx, 30, PruneLimit, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range pruned {
		if id == "old" {
			t.Fatal("a pinned memory was pruned")
		}
	}
	if _, err := s.Output(ctx, "old"); err != nil {
		t.Fatalf("pinned memory gone: %v", err)
	}
	// Unpinned, the same memory is pruned like any other.
	s.SetPinned(ctx, "old", false)
	if pruned, _ := s.Prune(ctx, 30, PruneLimit, false); strings.Join(pruned, ",") != "old" {
		t.Errorf("after unpin pruned %v", pruned)
	}
	if _, err := s.SetPinned(ctx, "nope", true); !errors.Is(err, ErrNotFound) {
		t.Errorf("pin unknown: %v", err)
	}
}

func TestPinSkipsTheCooldown(t *testing.T) {
	s, _ := newStore(t)
	memWith(t, s, "a", 100)
	g, _ := s.ClaimGlobal(ctx, "w", false)
	s.SucceedGlobal(ctx, g.Token, 100, nil)
	if g, _ := s.ClaimGlobal(ctx, "w", false); g.Status != GlobalSkippedCooldown {
		t.Fatalf("want the cooldown, got %s", g.Status)
	}
	s.SetPinned(ctx, "a", true)
	g, err := s.ClaimGlobal(ctx, "w", false)
	if err != nil || g.Status != GlobalClaimed || g.Regenerate() || len(g.Requests) != 1 || g.Requests[0].Reason != "pin a" {
		t.Fatalf("a pin must let the next run through the cooldown: %+v %v", g, err)
	}
	// A request made while the run works survives its success.
	s.RequestConsolidation(ctx, "later", false)
	if ok, _, err := s.CommitGlobal(ctx, GlobalCommit{Token: g.Token, Watermark: 100, RequestsUpTo: g.RequestsUpTo()}); !ok || err != nil {
		t.Fatal(ok, err)
	}
	reqs, _ := s.ConsolidationRequests(ctx)
	if len(reqs) != 1 || reqs[0].Reason != "later" {
		t.Errorf("requests after the run: %+v", reqs)
	}
}

func TestEditMemoryIsKeptAgainstReextraction(t *testing.T) {
	s, _ := newStore(t)
	memWith(t, s, "a", 100)
	if m, _ := s.Memory(ctx, "a"); m.From.Kind != origin.Session {
		t.Errorf("an extracted memory's origin: %+v", m.From)
	}
	text := "the deploy key lives in vault, not in .env"
	if err := s.EditMemory(ctx, "a", MemoryEdit{RawMemory: &text}); err != nil {
		t.Fatal(err)
	}
	m, err := s.Memory(ctx, "a")
	if err != nil || m.RawMemory != text || m.RolloutSummary != "summary a" || !m.UserAsserted() || m.From.Kind != origin.User {
		t.Fatalf("edited memory: %+v %v", m, err)
	}
	if hits := mustSearch(t, s, "vault"); len(hits) != 1 || hits[0].Origin == nil || hits[0].Origin.Kind != origin.User {
		t.Errorf("the hit's origin: %+v", hits)
	}
	if hits := mustSearch(t, s, "vault"); len(hits) != 1 || hits[0].ThreadID != "a" {
		t.Errorf("search does not follow the edit: %+v", hits)
	}
	for _, h := range mustSearch(t, s, "raw") {
		if h.ThreadID == "a" && h.Kind == "raw_memory" {
			t.Error("the replaced text is still indexed")
		}
	}
	// The thread changes and is extracted again: the user's text stays.
	o, tok := claim(t, s, "a", 200, 100)
	if o != Claimed {
		t.Fatal(o)
	}
	if ok, err := s.MarkStage1Succeeded(ctx, "a", tok, 200, "model says otherwise", "new summary", nil); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if m, _ := s.Memory(ctx, "a"); m.RawMemory != text {
		t.Errorf("re-extraction replaced the user's text: %q", m.RawMemory)
	}
	if o, _ := claim(t, s, "a", 200, 100); o != SkippedUpToDate {
		t.Errorf("the job must be done for this version: %s", o)
	}
	// An empty answer does not delete it either.
	o, tok = claim(t, s, "a", 300, 100)
	if o != Claimed {
		t.Fatal(o)
	}
	s.MarkStage1NoOutput(ctx, "a", tok)
	if _, err := s.Memory(ctx, "a"); err != nil {
		t.Errorf("an empty extraction deleted an edited memory: %v", err)
	}
	if err := s.EditMemory(ctx, "nope", MemoryEdit{RawMemory: &text}); !errors.Is(err, ErrNotFound) {
		t.Errorf("edit unknown: %v", err)
	}
}

func TestForgetMemory(t *testing.T) {
	s, _ := newStore(t)
	memWith(t, s, "a", 100)
	memWith(t, s, "b", 100)
	// The folder's copy of a's rollout summary is indexed as a file.
	s.ReplaceIndexedFiles(ctx, []IndexedFile{
		{Path: "rollout_summaries/2026-a.md", Body: "thread_id: a\nupdated_at: x\n\nsummary a zebra"},
		{Path: "rollout_summaries/2026-b.md", Body: "thread_id: b\nupdated_at: x\n\nsummary b zebra"},
	})
	g, _ := s.ClaimGlobal(ctx, "w", false)
	s.SucceedGlobal(ctx, g.Token, 100, []Snapshot{{"a", 100}, {"b", 100}})
	if err := s.ForgetMemory(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Memory(ctx, "a"); !errors.Is(err, ErrNotFound) {
		t.Error("memory kept")
	}
	for _, h := range mustSearch(t, s, "zebra") {
		if strings.Contains(h.Path, "2026-a") || h.ThreadID == "a" {
			t.Errorf("forgotten memory still searchable: %+v", h)
		}
	}
	if hits := mustSearch(t, s, "zebra"); len(hits) != 1 {
		t.Errorf("the other memory's file must stay indexed: %+v", hits)
	}
	f, _ := s.Forgotten(ctx, nil)
	if _, ok := f["a"]; !ok || len(f) != 1 {
		t.Errorf("tombstone: %v", f)
	}
	if th, _ := s.Thread(ctx, "a"); th.MemoryMode != "disabled" {
		t.Errorf("thread mode %s", th.MemoryMode)
	}
	g, _ = s.ClaimGlobal(ctx, "w", false)
	if g.Status != GlobalClaimed || !g.Regenerate() {
		t.Fatalf("forget must make the next run go through the cooldown and regenerate: %+v", g)
	}
	if err := s.ForgetMemory(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("forget unknown: %v", err)
	}
}

func TestResolveMemory(t *testing.T) {
	s, _ := newStore(t)
	memWith(t, s, "019e1625-aaaa", 100)
	memWith(t, s, "019e1625-bbbb", 100)
	memWith(t, s, "02ff", 100)
	for _, tt := range []struct {
		in, want string
		err      error
	}{
		{"02ff", "02ff", nil},
		{"019e1625-a", "019e1625-aaaa", nil},
		{"019e", "", ErrAmbiguous},
		{"019", "", ErrNotFound},
		{"zzzz", "", ErrNotFound},
		{"019e%", "", ErrNotFound},
	} {
		got, err := s.ResolveMemory(ctx, tt.in)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("ResolveMemory(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
	_, err := s.ResolveMemory(ctx, "019e")
	var amb *AmbiguousError
	if !errors.As(err, &amb) || strings.Join(amb.Candidates, ",") != "019e1625-aaaa,019e1625-bbbb" {
		t.Errorf("ambiguous error: %v", err)
	}
}

func genFiles(kv ...string) []BaselineFile {
	var out []BaselineFile
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, BaselineFile{Path: kv[i], Mode: 0o100644, Content: []byte(kv[i+1])})
	}
	return out
}

// commitGen claims the lock and lands files as a new approved generation.
func commitGen(t *testing.T, s *Store, sel []Snapshot, keep int, files ...string) int64 {
	t.Helper()
	g, err := s.ClaimGlobal(ctx, "w", true)
	if err != nil || g.Status != GlobalClaimed {
		t.Fatal(g, err)
	}
	var inputs []GenerationInput
	for _, x := range sel {
		inputs = append(inputs, GenerationInput{ThreadID: x.ThreadID, SourceUpdatedAt: x.SourceUpdatedAt, RawMemory: "raw " + x.ThreadID})
	}
	fs := genFiles(files...)
	ok, id, err := s.CommitGlobal(ctx, GlobalCommit{Token: g.Token, Watermark: 100, Selected: sel, Baseline: fs, Keep: keep,
		Generation: &NewGeneration{Generation: Generation{Mode: "heuristic", Selected: len(sel), TotalTokens: 7},
			Files: fs, Inputs: inputs, WorkspaceDiff: "# Memory Workspace Diff\n"}})
	if err != nil || !ok || id == 0 {
		t.Fatal(ok, id, err)
	}
	return id
}

func TestGenerationsCommitAndCount(t *testing.T) {
	s, _ := newStore(t)
	memWith(t, s, "a", 100)
	g1 := commitGen(t, s, []Snapshot{{"a", 100}}, 0, "MEMORY.md", "one", "memory_summary.md", "v1\nsum")
	g2 := commitGen(t, s, nil, 0, "MEMORY.md", "two", "skills/x/SKILL.md", "s")
	gens, err := s.Generations(ctx, 0)
	if err != nil || len(gens) != 2 {
		t.Fatal(gens, err)
	}
	if gens[0].ID != g2 || !gens[0].Current || gens[1].Current || gens[0].ParentID != g1 || gens[1].ParentID != 0 {
		t.Errorf("order, current, parent: %+v", gens)
	}
	if g := gens[1]; g.Added != 2 || g.Modified != 0 || g.Deleted != 0 || g.Selected != 1 || g.TotalTokens != 7 || g.State != GenerationApproved {
		t.Errorf("first generation: %+v", g)
	}
	if g := gens[0]; g.Added != 1 || g.Modified != 1 || g.Deleted != 1 {
		t.Errorf("second generation counts: %+v", g)
	}
	files, _ := s.GenerationFiles(ctx, g1)
	if len(files) != 2 || files[0].Path != "MEMORY.md" || string(files[0].Content) != "one" {
		t.Errorf("files: %+v", files)
	}
	in, _ := s.GenerationInputs(ctx, g1)
	if len(in) != 1 || in[0].RawMemory != "raw a" {
		t.Errorf("inputs: %+v", in)
	}
	if d, _ := s.GenerationWorkspaceDiff(ctx, g1); d != "# Memory Workspace Diff\n" {
		t.Errorf("diff %q", d)
	}
	if _, err := s.Generation(ctx, 99); !errors.Is(err, ErrNotFound) {
		t.Error(err)
	}
}

func TestGenerationsTrimAndSharedBlobs(t *testing.T) {
	s, _ := newStore(t)
	for i := 0; i < 5; i++ {
		commitGen(t, s, nil, 3, "MEMORY.md", fmt.Sprintf("gen %d", i), "rollout_summaries/x.md", "shared")
	}
	gens, _ := s.Generations(ctx, 0)
	if len(gens) != 3 || gens[2].ID != 3 {
		t.Fatalf("kept %+v", gens)
	}
	var blobs int
	s.db.QueryRow(`SELECT COUNT(*) FROM generation_blobs`).Scan(&blobs)
	// 3 MEMORY.md texts, the shared summary, the shared diff, "raw" none.
	if blobs != 5 {
		t.Errorf("blobs after trim = %d, want 5 (shared contents stored once, trimmed ones dropped)", blobs)
	}
}

func TestPendRejectApprove(t *testing.T) {
	s, _ := newStore(t)
	memWith(t, s, "a", 100)
	memWith(t, s, "b", 100)
	cur := commitGen(t, s, []Snapshot{{"a", 100}}, 0, "MEMORY.md", "one")
	baseBefore, _, _ := s.Baseline(ctx)

	pend := func() int64 {
		t.Helper()
		s.RequestConsolidation(ctx, "pin b", false)
		g, _ := s.ClaimGlobal(ctx, "w", true)
		ok, id, err := s.PendGlobal(ctx, GlobalPend{Token: g.Token, RequestsUpTo: g.RequestsUpTo(), Generation: NewGeneration{
			Generation: Generation{Mode: "heuristic", Selected: 2, Watermark: 150},
			Files:      genFiles("MEMORY.md", "two"),
			Inputs:     []GenerationInput{{ThreadID: "a", SourceUpdatedAt: 100}, {ThreadID: "b", SourceUpdatedAt: 100}}}})
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		return id
	}
	p := pend()
	if g, ok, _ := s.PendingGeneration(ctx); !ok || g.ID != p || g.SettledAt != nil {
		t.Fatalf("pending: %+v %v", g, ok)
	}
	if c, _, _ := s.CurrentGeneration(ctx); c.ID != cur {
		t.Errorf("a pending generation must not become current: %d", c.ID)
	}
	// Nothing but the generation changed: lock released, marks and baseline as before.
	j, _ := s.Job(ctx, KindConsolidate, GlobalKey)
	if j.Status != "pending" || j.LeaseUntil != nil {
		t.Errorf("lock not released: %+v", j)
	}
	if b, _ := s.Output(ctx, "b"); b.SelectedForPhase2 {
		t.Error("pending generation marked the selection")
	}
	// A second pending generation is refused.
	g, _ := s.ClaimGlobal(ctx, "w", true)
	if _, _, err := s.PendGlobal(ctx, GlobalPend{Token: g.Token}); !errors.Is(err, ErrPending) {
		t.Errorf("second pending: %v", err)
	}
	s.ReleaseGlobal(ctx, g.Token)

	if err := s.RejectGeneration(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := s.RejectGeneration(ctx, p); !errors.Is(err, ErrNotPending) {
		t.Errorf("reject twice: %v", err)
	}
	baseAfter, _, _ := s.Baseline(ctx)
	if len(baseAfter) != len(baseBefore) || !bytes.Equal(baseAfter[0].Content, baseBefore[0].Content) {
		t.Error("reject changed the baseline")
	}
	if b, _ := s.Output(ctx, "b"); b.SelectedForPhase2 {
		t.Error("reject changed the selection")
	}
	if a, _ := s.Output(ctx, "a"); !a.SelectedForPhase2 {
		t.Error("reject changed the selection")
	}

	p2 := pend()
	s.RequestConsolidation(ctx, "made after the run", false)
	g, _ = s.ClaimGlobal(ctx, "approver", true)
	if ok, err := s.BeginLanding(ctx, g.Token, LandApprove, p2); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if l, ok, _ := s.UnfinishedLanding(ctx); !ok || l.GenerationID != p2 || l.Action != LandApprove {
		t.Errorf("journal: %+v %v", l, ok)
	}
	ok, id, err := s.LandGeneration(ctx, Land{Token: g.Token, Action: LandApprove, GenerationID: p2})
	if err != nil || !ok || id != p2 {
		t.Fatal(ok, id, err)
	}
	if c, _, _ := s.CurrentGeneration(ctx); c.ID != p2 || c.State != GenerationApproved || c.SettledAt == nil {
		t.Errorf("approved: %+v", c)
	}
	if b, _ := s.Output(ctx, "b"); !b.SelectedForPhase2 {
		t.Error("approve did not mark the selection")
	}
	base, _, _ := s.Baseline(ctx)
	if len(base) != 1 || string(base[0].Content) != "two" {
		t.Errorf("baseline after approve: %+v", base)
	}
	if _, ok, _ := s.UnfinishedLanding(ctx); ok {
		t.Error("journal kept")
	}
	reqs, _ := s.ConsolidationRequests(ctx)
	if len(reqs) != 1 || reqs[0].Reason != "made after the run" {
		t.Errorf("requests after approve: %+v", reqs)
	}
	j, _ = s.Job(ctx, KindConsolidate, GlobalKey)
	if j.Status != "done" || j.LastSuccessWatermark == nil || *j.LastSuccessWatermark != 150 {
		t.Errorf("job after approve: %+v", j)
	}
}

func TestRollbackRecordsAGeneration(t *testing.T) {
	s, _ := newStore(t)
	memWith(t, s, "a", 100)
	memWith(t, s, "b", 100)
	g1 := commitGen(t, s, []Snapshot{{"a", 100}}, 0, "MEMORY.md", "one")
	commitGen(t, s, []Snapshot{{"b", 100}}, 0, "MEMORY.md", "two")
	g, _ := s.ClaimGlobal(ctx, "w", true)
	s.BeginLanding(ctx, g.Token, LandRollback, g1)
	ok, id, err := s.LandGeneration(ctx, Land{Token: g.Token, Action: LandRollback, GenerationID: g1})
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	r, _ := s.Generation(ctx, id)
	if r.Kind != GenerationRollback || r.RestoredFrom != g1 || !r.Current || r.Modified != 1 || r.Selected != 1 {
		t.Errorf("rollback generation: %+v", r)
	}
	if a, _ := s.Output(ctx, "a"); !a.SelectedForPhase2 {
		t.Error("selection marks not restored")
	}
	if b, _ := s.Output(ctx, "b"); b.SelectedForPhase2 {
		t.Error("selection marks not restored")
	}
	base, _, _ := s.Baseline(ctx)
	if len(base) != 1 || string(base[0].Content) != "one" {
		t.Errorf("baseline: %+v", base)
	}
	// A stale token changes nothing.
	if ok, _, err := s.LandGeneration(ctx, Land{Token: g.Token, Action: LandRollback, GenerationID: g1}); ok || err != nil {
		t.Errorf("stale token landed: %v %v", ok, err)
	}
}

func TestClearEmptiesTheControlTables(t *testing.T) {
	s, _ := newStore(t)
	memWith(t, s, "a", 100)
	memWith(t, s, "b", 100)
	s.SetPinned(ctx, "a", true)
	commitGen(t, s, []Snapshot{{"a", 100}}, 0, "MEMORY.md", "one")
	s.ForgetMemory(ctx, "b")
	if err := s.Clear(ctx); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"generations", "generation_files", "generation_inputs", "generation_blobs",
		"generation_landing", "forgotten_memories", "consolidation_requests"} {
		var n int
		s.db.QueryRow(`SELECT COUNT(*) FROM ` + table).Scan(&n)
		if n != 0 {
			t.Errorf("%s has %d rows after clear", table, n)
		}
	}
	// Ids start again.
	memWith(t, s, "c", 200)
	if id := commitGen(t, s, nil, 0, "MEMORY.md", "x"); id != 1 {
		t.Errorf("first generation after clear = %d", id)
	}
}

func TestRejectedProposal(t *testing.T) {
	s, _ := newStore(t)
	memWith(t, s, "a", 100)
	commitGen(t, s, nil, 0, "MEMORY.md", "one")
	g, _ := s.ClaimGlobal(ctx, "w", true)
	_, id, err := s.PendGlobal(ctx, GlobalPend{Token: g.Token, Generation: NewGeneration{Files: genFiles("MEMORY.md", "two"), WorkspaceDiff: "diff X"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.RejectedProposal(ctx, "diff X"); ok {
		t.Error("a pending generation counts as rejected")
	}
	s.RejectGeneration(ctx, id)
	if got, ok, err := s.RejectedProposal(ctx, "diff X"); !ok || got != id || err != nil {
		t.Errorf("RejectedProposal = %d %v %v", got, ok, err)
	}
	if _, ok, _ := s.RejectedProposal(ctx, "diff Y"); ok {
		t.Error("another diff matched")
	}
	// Once the folder moved on, the same diff is a new proposal.
	commitGen(t, s, nil, 0, "MEMORY.md", "three")
	if _, ok, _ := s.RejectedProposal(ctx, "diff X"); ok {
		t.Error("a rejection on an older folder still matched")
	}
}

// TestEmptySuccessStartsNoCooldown: a consolidation that left the memory
// empty is a success (done, finished) but does not hold the next run for
// six hours; the next success that consolidated something does.
func TestEmptySuccessStartsNoCooldown(t *testing.T) {
	s, c := newStore(t)
	g, _ := s.ClaimGlobal(ctx, "w", false)
	if ok, _, err := s.CommitGlobal(ctx, GlobalCommit{Token: g.Token, LeftMemoryEmpty: true}); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if j, _ := s.Job(ctx, KindConsolidate, GlobalKey); j.Status != "done" || j.FinishedAt == nil {
		t.Errorf("the empty consolidation is not recorded as a success: %+v", j)
	}
	c.add(time.Minute)
	memWith(t, s, "a", 100)
	g, err := s.ClaimGlobal(ctx, "w", false)
	if err != nil || g.Status != GlobalClaimed || len(g.Requests) != 0 {
		t.Fatalf("after an empty consolidation the next claim is %+v, %v; want it claimed, no request needed", g, err)
	}
	if ok, _, err := s.CommitGlobal(ctx, GlobalCommit{Token: g.Token, Watermark: 100, Selected: []Snapshot{{ThreadID: "a", SourceUpdatedAt: 100}}}); !ok || err != nil {
		t.Fatal(ok, err)
	}
	c.add(time.Minute)
	if g, _ := s.ClaimGlobal(ctx, "w", false); g.Status != GlobalSkippedCooldown {
		t.Errorf("after a consolidation that made memory the claim is %s, want the cooldown", g.Status)
	}
}
