package consolidate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/memdir"

	"github.com/memctl/memctl/internal/model"
	"github.com/memctl/memctl/internal/store"
)

// folderState is every file under root, by path (symlinks as their target).
func folderState(t *testing.T, root string) map[string]string {
	t.Helper()
	files, err := Snapshot(root)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range files {
		out[f.Path] = string(f.Content)
	}
	return out
}

func sameState(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func (e *env) landOpts() LandOptions {
	return LandOptions{Root: e.root, WorkerID: "lander", Now: e.clock.Now}
}

func TestSuccessRecordsAGeneration(t *testing.T) {
	e := newEnv(t)
	e.jobs.selection[0].Pinned = true
	res, err := e.run(t, heuristicThen(nil))
	if err != nil || res.Status != StatusSucceeded || res.Generation != 1 {
		t.Fatalf("run = %+v, %v", res, err)
	}
	g := e.jobs.gens[0]
	if g.State != store.GenerationApproved || g.Selected != 3 || g.Mode != "test" || len(g.inputs) != 3 || !g.inputs[0].Pinned {
		t.Errorf("generation = %+v", g)
	}
	snap, _ := Snapshot(e.root)
	if len(diffSnapshots(g.files, snap)) != 0 {
		t.Error("generation files differ from the folder")
	}
	// A run that finds nothing changed adds no generation.
	e.clock.Advance(7 * time.Hour)
	if res, err := e.run(t, heuristicThen(nil)); err != nil || res.Status != StatusSucceededNoChanges || res.Generation != 0 {
		t.Fatalf("no-change run = %+v, %v", res, err)
	}
	if len(e.jobs.gens) != 1 {
		t.Errorf("%d generations after a no-change run", len(e.jobs.gens))
	}
}

func TestReviewStopsAtAPendingGenerationAndApproveLandsIt(t *testing.T) {
	e := newEnv(t)
	e.jobs.selection = sampleSelection(t)[:2]
	if res, err := e.run(t, heuristicThen(nil)); err != nil || res.Status != StatusSucceeded {
		t.Fatal(res, err)
	}
	before := folderState(t, e.root)
	baseBefore := e.jobs.baseline
	selectedBefore := len(e.jobs.selected)

	e.clock.Advance(7 * time.Hour)
	e.jobs.selection = sampleSelection(t)[:3]
	o := e.opts(heuristicThen(nil))
	o.Review = true
	res, err := Run(context.Background(), e.jobs, o)
	if err != nil || res.Status != StatusPendingReview || res.Generation != 2 {
		t.Fatalf("review run = %+v, %v", res, err)
	}
	if !sameState(before, folderState(t, e.root)) {
		t.Fatal("a review run changed the memory folder")
	}
	if len(diffSnapshots(baseBefore, e.jobs.baseline)) != 0 || len(e.jobs.selected) != selectedBefore {
		t.Fatal("a review run changed the baseline or the selection")
	}
	if entries, _ := os.ReadDir(filepath.Dir(e.root)); len(entries) != 1 {
		t.Errorf("staging left behind: %v", entries)
	}
	if e.jobs.status != "pending" {
		t.Errorf("the lock was not released: %s", e.jobs.status)
	}
	// While it waits, runs skip.
	if res, err := Run(context.Background(), e.jobs, o); err != nil || res.Status != StatusSkippedPendingReview || res.Generation != 2 {
		t.Fatalf("second review run = %+v, %v", res, err)
	}
	pending := e.jobs.gens[1].files

	lr, err := Approve(context.Background(), e.jobs, e.landOpts(), 0)
	if err != nil || lr.Generation != 2 {
		t.Fatalf("approve = %+v, %v", lr, err)
	}
	after := folderState(t, e.root)
	want := map[string]string{}
	for _, f := range pending {
		want[f.Path] = string(f.Content)
	}
	if !sameState(after, want) {
		t.Errorf("approved folder differs from the pending generation")
	}
	if len(e.jobs.selected) != 3 || e.jobs.gens[1].State != store.GenerationApproved || e.jobs.landing != nil {
		t.Errorf("approve did not land: %d selected, state %s", len(e.jobs.selected), e.jobs.gens[1].State)
	}
	if !strings.Contains(strings.Join(lr.Changes, "\n"), "M "+memdir.MemoryFile) {
		t.Errorf("changes = %v", lr.Changes)
	}
	if _, err := Approve(context.Background(), e.jobs, e.landOpts(), 0); !errors.Is(err, ErrNoPending) {
		t.Errorf("approve with nothing pending: %v", err)
	}
}

func TestRollbackRestoresTheFolderByteForByte(t *testing.T) {
	e := newEnv(t)
	e.jobs.selection = sampleSelection(t)[:1]
	if _, err := e.run(t, heuristicThen(nil)); err != nil {
		t.Fatal(err)
	}
	gen1 := folderState(t, e.root)
	e.clock.Advance(7 * time.Hour)
	e.jobs.selection = sampleSelection(t)[:3]
	c := heuristicThen(func(ctx context.Context, ws *Workspace) error {
		writeFile(t, filepath.Join(ws.Root, "skills", "deploy", "SKILL.md"), "---\nname: deploy\n---\n")
		return nil
	})
	if res, err := e.run(t, c); err != nil || res.Generation != 2 {
		t.Fatal(res, err)
	}
	// A note added since stays: extensions/ is the user's.
	note := filepath.Join(e.root, "extensions", "ad_hoc", "notes", "2026-01-01T00-00-00-x.md")
	writeFile(t, note, "remember this")

	lr, err := Rollback(context.Background(), e.jobs, e.landOpts(), 1)
	if err != nil || lr.Generation != 3 || lr.RestoredFrom != 1 {
		t.Fatalf("rollback = %+v, %v", lr, err)
	}
	now := folderState(t, e.root)
	delete(now, "extensions/ad_hoc/notes/2026-01-01T00-00-00-x.md")
	if !sameState(gen1, now) {
		t.Errorf("rollback did not restore the folder byte for byte:\n%v\n%v", gen1, now)
	}
	if exists(filepath.Join(e.root, "skills")) {
		t.Error("the removed skill left its folder")
	}
	if readFile(t, note) != "remember this" {
		t.Error("rollback touched a note")
	}
	if len(e.jobs.selected) != 1 || e.jobs.gens[2].Kind != store.GenerationRollback {
		t.Errorf("selection %d, gens %+v", len(e.jobs.selected), e.jobs.gens[2].Generation)
	}
}

// A rollback to the generation the folder already holds changes
// nothing, so it records nothing: a new generation would copy the current
// one, push an older, different one out of the history and start the
// cooldown. After a hand edit it is a real rollback, and recorded.
func TestRollbackToTheCurrentGenerationRecordsNothing(t *testing.T) {
	e := newEnv(t)
	e.jobs.selection = sampleSelection(t)[:1]
	if _, err := e.run(t, heuristicThen(nil)); err != nil {
		t.Fatal(err)
	}
	finished := e.jobs.finishedAt
	e.clock.Advance(7 * time.Hour)
	lr, err := Rollback(context.Background(), e.jobs, e.landOpts(), 1)
	if err != nil || lr.Generation != 1 || lr.RestoredFrom != 1 || len(lr.Changes) != 0 {
		t.Fatalf("rollback = %+v, %v", lr, err)
	}
	if len(e.jobs.gens) != 1 || e.jobs.lands != 0 || e.jobs.landing != nil || e.jobs.status == "running" || !e.jobs.finishedAt.Equal(finished) {
		t.Errorf("a rollback that changed nothing was recorded: %d generations, %d lands, status %s", len(e.jobs.gens), e.jobs.lands, e.jobs.status)
	}

	gen1 := folderState(t, e.root)
	writeFile(t, filepath.Join(e.root, memdir.MemoryFile), "my hand edit\n")
	lr, err = Rollback(context.Background(), e.jobs, e.landOpts(), 1)
	if err != nil || lr.Generation != 2 || len(lr.Changes) != 1 {
		t.Fatalf("rollback over a hand edit = %+v, %v", lr, err)
	}
	if !sameState(gen1, folderState(t, e.root)) {
		t.Error("the hand edit is still there")
	}
}

func TestRollbackRefusesForgottenMemoriesUnlessForced(t *testing.T) {
	e := newEnv(t)
	if _, err := e.run(t, heuristicThen(nil)); err != nil {
		t.Fatal(err)
	}
	gone := e.jobs.selection[1].ThreadID
	e.jobs.forgotten = map[string]time.Time{gone: e.clock.Now()}
	before := folderState(t, e.root)
	_, err := Rollback(context.Background(), e.jobs, e.landOpts(), 1)
	var fe *ForgottenError
	if !errors.As(err, &fe) || fe.ThreadIDs[0] != gone {
		t.Fatalf("want a ForgottenError, got %v", err)
	}
	// Refused before it took the lock: taking and giving it back would
	// have cleared the cooldown.
	if !sameState(before, folderState(t, e.root)) || e.jobs.status != "done" || e.jobs.releases != 0 || e.jobs.lands != 0 {
		t.Error("a refused rollback changed something or took the lock")
	}
	o := e.landOpts()
	o.Force = true
	if _, err := Rollback(context.Background(), e.jobs, o, 1); err != nil {
		t.Fatal(err)
	}
	if !e.jobs.regenerate || len(e.jobs.requests) != 1 {
		t.Errorf("a forced rollback must ask the next run to take the memory out again: %v", e.jobs.requests)
	}
}

func TestRollbackRefusedWhileReviewIsPending(t *testing.T) {
	e := newEnv(t)
	o := e.opts(heuristicThen(nil))
	o.Review = true
	if res, err := Run(context.Background(), e.jobs, o); err != nil || res.Status != StatusPendingReview {
		t.Fatal(res, err)
	}
	if _, err := Rollback(context.Background(), e.jobs, e.landOpts(), 1); !errors.Is(err, ErrPendingReview) {
		t.Errorf("rollback while pending: %v", err)
	}
	if exists(e.root) {
		t.Error("the memory folder exists before the first generation was approved")
	}
}

func TestRegenerateRebuildsFromTheInputs(t *testing.T) {
	e := newEnv(t)
	if _, err := e.run(t, heuristicThen(nil)); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(e.root, memdir.MemoryFile), "# Memory\n\nstale text about a forgotten memory\n")
	e.jobs.baseline = nil // pretend the hand edit is in the baseline: no workspace change
	snap, _ := Snapshot(e.root)
	e.jobs.baseline = snap
	// Within the cooldown, with a regenerate request and no input change.
	e.jobs.requests = []string{"forget x"}
	e.jobs.regenerate = true
	sawMemory, rootKept := true, false
	c := &funcConsolidator{fn: func(ctx context.Context, ws *Workspace) (model.Usage, error) {
		sawMemory = exists(filepath.Join(ws.Root, memdir.MemoryFile))
		// Readers of the memory folder still find the old files meanwhile.
		rootKept = ws.Root != e.root && exists(filepath.Join(e.root, memdir.SummaryFile)) && exists(filepath.Join(e.root, memdir.MemoryFile))
		return NewHeuristic().Consolidate(ctx, ws)
	}}
	res, err := e.run(t, c)
	if err != nil || res.Status != StatusSucceeded || len(res.Requests) != 1 {
		t.Fatalf("run = %+v, %v", res, err)
	}
	if sawMemory {
		t.Error("the consolidator saw the old MEMORY.md; a regeneration starts from the inputs")
	}
	if !rootKept {
		t.Error("the memory folder lost its files while the rebuild ran")
	}
	if entries, _ := os.ReadDir(filepath.Dir(e.root)); len(entries) != 1 {
		t.Errorf("the rebuild left files beside the folder: %v", entries)
	}
	if strings.Contains(readFile(t, filepath.Join(e.root, memdir.MemoryFile)), "stale text") {
		t.Error("the stale text survived the regeneration")
	}
	if e.jobs.answered != 1 {
		t.Error("the request was not answered")
	}
}

func TestDryRunPlansEveryArtifact(t *testing.T) {
	e := newEnv(t)
	e.jobs.selection = sampleSelection(t)[:1]
	if _, err := e.run(t, heuristicThen(nil)); err != nil {
		t.Fatal(err)
	}
	before := folderState(t, e.root)
	e.jobs.selection = sampleSelection(t)[:3]
	o := e.opts(heuristicThen(func(ctx context.Context, ws *Workspace) error {
		writeFile(t, filepath.Join(ws.Root, "skills", "x", "SKILL.md"), "---\nname: x\n---\n")
		return nil
	}))
	o.DryRun = true
	res, err := Run(context.Background(), e.jobs, o)
	if err != nil || res.Status != statusDryRun {
		t.Fatal(res, err)
	}
	var paths []string
	for _, p := range res.Plan {
		paths = append(paths, p.Status+" "+p.Path)
		if !p.Artifact || !strings.HasPrefix(p.Diff, "diff --git a/"+p.Path) {
			t.Errorf("plan entry %+v", p)
		}
	}
	if got := strings.Join(paths, ","); got != "M MEMORY.md,M memory_summary.md,A skills/x/SKILL.md" {
		t.Errorf("plan = %s", got)
	}
	if !sameState(before, folderState(t, e.root)) {
		t.Error("the dry run changed the folder")
	}
	if entries, _ := os.ReadDir(filepath.Dir(e.root)); len(entries) != 1 {
		t.Errorf("the dry run left files beside the folder: %v", entries)
	}
	if len(e.jobs.gens) != 1 {
		t.Error("the dry run recorded a generation")
	}
	// Nothing to do: an empty plan, and no consolidator call.
	e.jobs.selection = sampleSelection(t)[:1]
	c := heuristicThen(nil)
	o.Consolidator = c
	if res, err := Run(context.Background(), e.jobs, o); err != nil || len(res.Plan) != 0 || c.calls.Load() != 0 {
		t.Errorf("no-op dry run = %+v, %v, %d calls", res, err, c.calls.Load())
	}
}

func TestAnInterruptedLandingIsFinished(t *testing.T) {
	e := newEnv(t)
	e.jobs.selection = sampleSelection(t)[:1]
	e.run(t, heuristicThen(nil))
	gen1 := folderState(t, e.root)
	e.clock.Advance(7 * time.Hour)
	e.jobs.selection = sampleSelection(t)[:3]
	e.run(t, heuristicThen(nil))
	// A rollback to 1 crashed after journaling and writing one file.
	e.jobs.landing = &store.Landing{Action: store.LandRollback, GenerationID: 1}
	writeFile(t, filepath.Join(e.root, memdir.MemoryFile), gen1[memdir.MemoryFile])
	e.clock.Advance(7 * time.Hour)
	res, err := e.run(t, heuristicThen(nil))
	if err != nil || res.Status != StatusSucceeded {
		t.Fatalf("run = %+v, %v", res, err)
	}
	if !sameState(gen1, folderState(t, e.root)) || e.jobs.landing != nil || e.jobs.lands != 1 {
		t.Error("the interrupted rollback was not finished")
	}
}

func TestApplyFilesRefusesUnsafePaths(t *testing.T) {
	root := filepath.Join(t.TempDir(), "memories")
	writeFile(t, filepath.Join(root, memdir.MemoryFile), "keep")
	for _, p := range []string{"../x", "/etc/x", "a/../../x", "a//b", "", "./a"} {
		err := applyFiles(root, []BaselineFile{{Path: p, Mode: modeRegular, Content: []byte("x")}}, testNow)
		if err == nil {
			t.Errorf("ApplyFiles accepted %q", p)
		}
	}
	if readFile(t, filepath.Join(root, memdir.MemoryFile)) != "keep" {
		t.Error("a refused apply wrote something")
	}
	// A symlink in the folder is removed, never followed or restored.
	outside := filepath.Join(t.TempDir(), "outside")
	writeFile(t, outside, "secret")
	os.Symlink(outside, filepath.Join(root, "skills"))
	err := applyFiles(root, []BaselineFile{{Path: "skills/a/SKILL.md", Mode: modeRegular, Content: []byte("s")},
		{Path: "link", Mode: modeSymlink, Content: []byte(outside)}}, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if readFile(t, outside) != "secret" || exists(filepath.Join(root, "link")) || exists(filepath.Join(root, memdir.MemoryFile)) {
		t.Error("apply followed or wrote a symlink, or kept a file the generation does not have")
	}
	if readFile(t, filepath.Join(root, "skills", "a", "SKILL.md")) != "s" {
		t.Error("skill not written")
	}
}

func TestReviewDoesNotProposeARejectedGenerationAgain(t *testing.T) {
	e := newEnv(t)
	o := e.opts(heuristicThen(nil))
	o.Review = true
	if res, err := Run(context.Background(), e.jobs, o); err != nil || res.Status != StatusPendingReview {
		t.Fatal(res, err)
	}
	e.jobs.gens[0].State = store.GenerationRejected
	c := heuristicThen(nil)
	o.Consolidator = c
	res, err := Run(context.Background(), e.jobs, o)
	if err != nil || res.Status != StatusSkippedRejected || res.Generation != 1 || c.calls.Load() != 0 {
		t.Fatalf("same inputs again = %+v, %v, %d consolidator calls", res, err, c.calls.Load())
	}
	if e.jobs.status != "pending" {
		t.Errorf("the lock was kept: %s", e.jobs.status)
	}
	// New inputs, or --force, propose again.
	o.Force = true
	if res, err := Run(context.Background(), e.jobs, o); err != nil || res.Status != StatusPendingReview || res.Generation != 2 {
		t.Fatalf("forced = %+v, %v", res, err)
	}
	e.jobs.gens[1].State = store.GenerationRejected
	o.Force = false
	e.jobs.selection = e.jobs.selection[:2]
	if res, err := Run(context.Background(), e.jobs, o); err != nil || res.Status != StatusPendingReview {
		t.Fatalf("new inputs = %+v, %v", res, err)
	}
}
