package consolidate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/model"
)

// funcConsolidator wraps a function and counts calls; it records the last
// workspace it saw.
type funcConsolidator struct {
	fn    func(ctx context.Context, ws *Workspace) (model.Usage, error)
	calls atomic.Int32
	last  *Workspace
}

func (f *funcConsolidator) Name() string { return "test" }

func (f *funcConsolidator) Consolidate(ctx context.Context, ws *Workspace) (model.Usage, error) {
	f.calls.Add(1)
	f.last = ws
	return f.fn(ctx, ws)
}

func heuristicThen(fn func(ctx context.Context, ws *Workspace) error) *funcConsolidator {
	return &funcConsolidator{fn: func(ctx context.Context, ws *Workspace) (model.Usage, error) {
		if _, err := NewHeuristic().Consolidate(ctx, ws); err != nil {
			return model.Usage{}, err
		}
		if fn != nil {
			return model.Usage{}, fn(ctx, ws)
		}
		return model.Usage{}, nil
	}}
}

type env struct {
	root  string
	jobs  *fakeJobs
	clock *clock
}

func newEnv(t *testing.T) *env {
	c := &clock{t: time.Unix(1785840059, 0).Add(time.Hour)}
	e := &env{root: filepath.Join(t.TempDir(), "memories"), clock: c, jobs: newFakeJobs(c.Now)}
	e.jobs.selection = sampleSelection(t)[:3]
	return e
}

func (e *env) opts(c Consolidator) Options {
	return Options{Root: e.root, Version: "v1", MaxRaw: 256, MaxUnusedDays: 30, Consolidator: c,
		WorkerID: "w", Now: e.clock.Now, Heartbeat: 10 * time.Millisecond}
}

func (e *env) run(t *testing.T, c Consolidator) (Result, error) {
	t.Helper()
	return Run(context.Background(), e.jobs, e.opts(c))
}

func TestRunEndToEnd(t *testing.T) {
	e := newEnv(t)
	c := heuristicThen(nil)
	res, err := e.run(t, c)
	if err != nil || res.Status != StatusSucceeded {
		t.Fatalf("first run = %+v, %v", res, err)
	}
	if res.Selected != 3 || res.Watermark != 1785840059 || res.Consolidator != "test" {
		t.Errorf("result = %+v", res)
	}
	if !strings.Contains(c.last.Prompt, e.root) || !strings.Contains(c.last.Prompt, memdir.DiffFile) || !strings.Contains(c.last.Prompt, filepath.Join(e.root, "extensions")) {
		t.Error("prompt does not name the root, the diff file and the extensions folder")
	}
	if !strings.Contains(c.last.DiffFile, "- A raw_memories.md\n") {
		t.Errorf("first diff does not list everything as added:\n%s", c.last.DiffFile)
	}
	for _, s := range e.jobs.selection {
		p := filepath.Join(e.root, memdir.RolloutSummariesDir, memdir.RolloutSummaryStem(s.ThreadID, s.SourceUpdatedAt, s.RolloutSlug)+".md")
		if !exists(p) {
			t.Errorf("missing %s", p)
		}
	}
	for _, f := range []string{memdir.MemoryFile, memdir.SummaryFile, memdir.RawMemoriesFile, "extensions/ad_hoc/instructions.md"} {
		if !exists(filepath.Join(e.root, f)) {
			t.Errorf("missing %s", f)
		}
	}
	if exists(filepath.Join(e.root, memdir.DiffFile)) {
		t.Error("diff file left after success")
	}
	snap, _ := Snapshot(e.root)
	if d := diffSnapshots(e.jobs.baseline, snap); len(d) != 0 {
		t.Errorf("baseline differs from the folder: %v", d)
	}
	if len(e.jobs.selected) != 3 || e.jobs.lastSuccess != 1785840059 {
		t.Errorf("success not recorded: %d selected, watermark %d", len(e.jobs.selected), e.jobs.lastSuccess)
	}

	// Within the 6 h cooldown nothing runs.
	if res, err := e.run(t, c); err != nil || res.Status != ClaimCooldown {
		t.Fatalf("second run = %+v, %v", res, err)
	}

	// After the cooldown, with nothing changed: no consolidator call.
	e.clock.Advance(7 * time.Hour)
	res, err = e.run(t, c)
	if err != nil || res.Status != StatusSucceededNoChanges {
		t.Fatalf("unchanged run = %+v, %v", res, err)
	}
	if c.calls.Load() != 1 {
		t.Errorf("consolidator called %d times", c.calls.Load())
	}

	// Forget a thread: its summary goes, the diff shows D, the memory drops it.
	gone := e.jobs.selection[2]
	e.jobs.selection = e.jobs.selection[:2]
	e.clock.Advance(7 * time.Hour)
	res, err = e.run(t, c)
	if err != nil || res.Status != StatusSucceeded {
		t.Fatalf("forget run = %+v, %v", res, err)
	}
	goneFile := memdir.RolloutSummariesDir + "/" + memdir.RolloutSummaryStem(gone.ThreadID, gone.SourceUpdatedAt, gone.RolloutSlug) + ".md"
	if exists(filepath.Join(e.root, goneFile)) {
		t.Error("forgotten summary kept")
	}
	if !strings.Contains(strings.Join(res.ChangeLines, "\n"), "D "+goneFile) || !strings.Contains(c.last.DiffFile, "- D "+goneFile+"\n") {
		t.Errorf("diff does not show the deletion: %v", res.ChangeLines)
	}
	if strings.Contains(readFile(t, filepath.Join(e.root, memdir.MemoryFile)), gone.ThreadID) {
		t.Error("MEMORY.md still cites the forgotten thread")
	}
}

func TestRunLockOutcomes(t *testing.T) {
	e := newEnv(t)
	started := make(chan struct{})
	release := make(chan struct{})
	slow := heuristicThen(func(ctx context.Context, ws *Workspace) error {
		close(started)
		<-release
		return nil
	})
	done := make(chan Result)
	go func() {
		res, _ := e.run(t, slow)
		done <- res
	}()
	<-started
	// A second process while the first holds a live lease.
	if res, err := e.run(t, heuristicThen(nil)); err != nil || res.Status != ClaimRunning {
		t.Errorf("concurrent run = %+v, %v", res, err)
	}
	close(release)
	if res := <-done; res.Status != StatusSucceeded {
		t.Fatalf("first run = %+v", res)
	}
	if res, _ := e.run(t, heuristicThen(nil)); res.Status != ClaimCooldown {
		t.Errorf("after success = %q, want cooldown", res.Status)
	}
	// --force skips the cooldown only.
	o := e.opts(heuristicThen(nil))
	o.Force = true
	if res, err := Run(context.Background(), e.jobs, o); err != nil || res.Status != StatusSucceededNoChanges {
		t.Errorf("forced run = %+v, %v", res, err)
	}
}

func TestRunFailingConsolidatorKeepsPreviousArtifacts(t *testing.T) {
	for _, tt := range []struct {
		name   string
		fn     func(ctx context.Context, ws *Workspace) (model.Usage, error)
		status Status
	}{
		{"error", func(ctx context.Context, ws *Workspace) (model.Usage, error) {
			// Half the work done, then a crash.
			if err := memdir.WriteAtomic(filepath.Join(ws.Root, memdir.MemoryFile), []byte("partial"), 0o600); err != nil {
				return model.Usage{}, err
			}
			return model.Usage{}, errors.New("boom")
		}, StatusFailedAgent},
		{"invalid summary", func(ctx context.Context, ws *Workspace) (model.Usage, error) {
			writeFile(t, filepath.Join(ws.Root, memdir.SummaryFile), "not v1\n")
			writeFile(t, filepath.Join(ws.Root, memdir.SkillsDir, "new-skill", "SKILL.md"), "x")
			return model.Usage{}, nil
		}, statusFailedInvalid},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			if res, err := e.run(t, heuristicThen(func(ctx context.Context, ws *Workspace) error {
				writeFile(t, filepath.Join(ws.Root, memdir.SkillsDir, "kept", "SKILL.md"), "kept skill")
				return nil
			})); err != nil || res.Status != StatusSucceeded {
				t.Fatalf("first run = %+v, %v", res, err)
			}
			memBefore := readFile(t, filepath.Join(e.root, memdir.MemoryFile))
			sumBefore := readFile(t, filepath.Join(e.root, memdir.SummaryFile))
			baseBefore := e.jobs.baseline

			e.jobs.selection = append(e.jobs.selection, sampleSelection(t)[3])
			e.clock.Advance(7 * time.Hour)
			res, err := e.run(t, &funcConsolidator{fn: tt.fn})
			if err == nil || res.Status != tt.status {
				t.Fatalf("run = %+v, %v; want %s", res, err, tt.status)
			}
			if got := readFile(t, filepath.Join(e.root, memdir.MemoryFile)); got != memBefore {
				t.Error("MEMORY.md not restored")
			}
			if got := readFile(t, filepath.Join(e.root, memdir.SummaryFile)); got != sumBefore {
				t.Error("memory_summary.md not restored")
			}
			if exists(filepath.Join(e.root, memdir.SkillsDir, "new-skill")+"/SKILL.md") || readFile(t, filepath.Join(e.root, memdir.SkillsDir, "kept", "SKILL.md")) != "kept skill" {
				t.Error("skills not restored")
			}
			if !exists(filepath.Join(e.root, memdir.DiffFile)) {
				t.Error("diff file removed after a failure")
			}
			if len(e.jobs.fails) != 1 || !strings.HasPrefix(e.jobs.fails[0], string(tt.status)+": ") {
				t.Errorf("FailGlobal calls = %v", e.jobs.fails)
			}
			if len(diffSnapshots(baseBefore, e.jobs.baseline)) != 0 {
				t.Error("baseline changed by a failed run")
			}
			if res, _ := e.run(t, heuristicThen(nil)); res.Status != ClaimRetryUnavailable {
				t.Errorf("run during backoff = %q", res.Status)
			}
			// After the backoff the next run redoes the work.
			e.clock.Advance(2 * time.Hour)
			if res, err := e.run(t, heuristicThen(nil)); err != nil || res.Status != StatusSucceeded {
				t.Errorf("retry = %+v, %v", res, err)
			}
		})
	}
}

func TestRunLostOwnership(t *testing.T) {
	e := newEnv(t)
	e.jobs.loseOnBeat = 2
	c := &funcConsolidator{fn: func(ctx context.Context, ws *Workspace) (model.Usage, error) {
		select {
		case <-ctx.Done():
			return model.Usage{}, ctx.Err()
		case <-time.After(5 * time.Second):
			return model.Usage{}, errors.New("not cancelled")
		}
	}}
	res, err := e.run(t, c)
	if !errors.Is(err, errLostOwnership) || res.Status != statusFailedLostOwnership {
		t.Fatalf("run = %+v, %v", res, err)
	}
	if e.jobs.hasBaseline {
		t.Error("baseline saved by a run that lost the lock")
	}
	if e.jobs.status != "running" || e.jobs.token != "stolen" {
		t.Errorf("the new owner's job was touched: %s %s", e.jobs.status, e.jobs.token)
	}
}

func TestRunSymlinkedRootFails(t *testing.T) {
	e := newEnv(t)
	target := t.TempDir()
	if err := os.Symlink(target, e.root); err != nil {
		t.Fatal(err)
	}
	res, err := e.run(t, heuristicThen(nil))
	if !errors.Is(err, memdir.ErrSymlinkedRoot) || res.Status != statusFailedPrepare {
		t.Fatalf("run = %+v, %v", res, err)
	}
	if entries, _ := os.ReadDir(target); len(entries) != 0 {
		t.Error("wrote behind the symlinked root")
	}
	if len(e.jobs.fails) != 1 || !strings.HasPrefix(e.jobs.fails[0], string(statusFailedPrepare)+": ") {
		t.Errorf("fails = %v", e.jobs.fails)
	}
}

func TestRunAgentSymlinkFailsAndRestores(t *testing.T) {
	e := newEnv(t)
	if res, err := e.run(t, heuristicThen(nil)); err != nil || res.Status != StatusSucceeded {
		t.Fatalf("first run = %+v, %v", res, err)
	}
	secret := filepath.Join(t.TempDir(), "secret.txt")
	writeFile(t, secret, "outside")
	memBefore := readFile(t, filepath.Join(e.root, memdir.MemoryFile))
	e.clock.Advance(7 * time.Hour)
	e.jobs.selection = append(e.jobs.selection, sampleSelection(t)[3])
	res, err := e.run(t, heuristicThen(func(ctx context.Context, ws *Workspace) error {
		return os.Symlink(secret, filepath.Join(ws.Root, "extensions", "ad_hoc", "notes.md"))
	}))
	if err == nil || res.Status != statusFailedInvalid || !strings.Contains(res.Error, "symbolic link") {
		t.Fatalf("run = %+v, %v", res, err)
	}
	if exists(filepath.Join(e.root, "extensions", "ad_hoc", "notes.md")) || readFile(t, secret) != "outside" {
		t.Error("link kept or target touched")
	}
	if readFile(t, filepath.Join(e.root, memdir.MemoryFile)) != memBefore {
		t.Error("artifacts not restored")
	}
	if !exists(filepath.Join(e.root, memdir.DiffFile)) {
		t.Error("diff file not kept")
	}
}

func TestRunCleanWorkspaceWithMissingArtifactsRunsConsolidator(t *testing.T) {
	e := newEnv(t)
	if res, err := e.run(t, heuristicThen(nil)); err != nil || res.Status != StatusSucceeded {
		t.Fatalf("first run = %+v, %v", res, err)
	}
	// The baseline lacks MEMORY.md (a user removed it before a baseline
	// reset): the workspace is clean, the artifacts are not.
	if err := os.Remove(filepath.Join(e.root, memdir.MemoryFile)); err != nil {
		t.Fatal(err)
	}
	snap, _ := Snapshot(e.root)
	e.jobs.baseline = snap
	e.clock.Advance(7 * time.Hour)
	c := &funcConsolidator{fn: func(ctx context.Context, ws *Workspace) (model.Usage, error) { return model.Usage{}, nil }}
	res, err := e.run(t, c)
	if c.calls.Load() != 1 || res.Status != statusFailedInvalid || err == nil {
		t.Fatalf("run = %+v, %v (calls %d)", res, err, c.calls.Load())
	}
	diff := readFile(t, filepath.Join(e.root, memdir.DiffFile))
	if !strings.HasSuffix(diff, "## Status\n- none\n") || strings.Contains(diff, "## Diff") {
		t.Errorf("diff file:\n%s", diff)
	}
}

func TestRunTraversalSlugStaysInside(t *testing.T) {
	e := newEnv(t)
	e.jobs.selection = []Selected{{ThreadID: "t1", SourceUpdatedAt: 1785840059, RawMemory: "---\ndescription: x\n---\n", RolloutSummary: "s", RolloutSlug: "../../x", Cwd: "/w"}}
	res, err := e.run(t, heuristicThen(nil))
	if err != nil || res.Status != StatusSucceeded {
		t.Fatalf("run = %+v, %v", res, err)
	}
	parent := filepath.Dir(e.root)
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 {
		t.Errorf("wrote beside the root: %v", entries)
	}
	files, _ := os.ReadDir(filepath.Join(e.root, memdir.RolloutSummariesDir))
	if len(files) != 1 || !strings.HasSuffix(files[0].Name(), "-______x.md") {
		t.Errorf("summary files = %v", files)
	}
}

func TestRunDryRunWritesNothing(t *testing.T) {
	e := newEnv(t)
	o := e.opts(heuristicThen(nil))
	o.DryRun = true
	res, err := Run(context.Background(), e.jobs, o)
	if err != nil || res.Status != statusDryRun || res.Selected != 3 {
		t.Fatalf("dry run = %+v, %v", res, err)
	}
	if exists(e.root) {
		t.Error("dry run created the root")
	}
	if e.jobs.exists {
		t.Error("dry run claimed the job")
	}
	want := []string{"A extensions/ad_hoc/instructions.md", "A raw_memories.md"}
	got := strings.Join(res.ChangeLines, "\n")
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("dry run changes lack %q:\n%s", w, got)
		}
	}
	if len(res.ChangeLines) != 5 {
		t.Errorf("got %d changes, want 5", len(res.ChangeLines))
	}

	// After a real run, a dry run with one thread less shows exactly its deletion.
	if res, err := e.run(t, heuristicThen(nil)); err != nil || res.Status != StatusSucceeded {
		t.Fatal(res, err)
	}
	before, _ := Snapshot(e.root)
	e.jobs.selection = e.jobs.selection[:2]
	res, err = Run(context.Background(), e.jobs, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ChangeLines) != 2 || !strings.HasPrefix(res.ChangeLines[0], "M raw_memories.md") || !strings.HasPrefix(res.ChangeLines[1], "D rollout_summaries/") {
		t.Errorf("dry run changes = %v", res.ChangeLines)
	}
	after, _ := Snapshot(e.root)
	if len(diffSnapshots(before, after)) != 0 {
		t.Error("dry run changed the folder")
	}
}

func TestRunSelectionErrorFailsJob(t *testing.T) {
	e := newEnv(t)
	e.jobs.selectionErr = errors.New("db gone")
	res, err := e.run(t, heuristicThen(nil))
	if err == nil || res.Status != statusFailedLoad || len(e.jobs.fails) != 1 {
		t.Errorf("run = %+v, %v, fails %v", res, err, e.jobs.fails)
	}
}

func TestRunV2(t *testing.T) {
	e := newEnv(t)
	for i := range e.jobs.selection {
		e.jobs.selection[i].RawMemory = ""
	}
	o := e.opts(NewHeuristic())
	o.Version = "v2"
	res, err := Run(context.Background(), e.jobs, o)
	if err != nil || res.Status != StatusSucceeded || res.Consolidator != "heuristic" {
		t.Fatalf("v2 run = %+v, %v", res, err)
	}
	for _, f := range []string{memdir.MemoryFile, memdir.RawMemoriesFile, memdir.SkillsDir} {
		if exists(filepath.Join(e.root, f)) {
			t.Errorf("v2 wrote %s", f)
		}
	}
}

func TestRunHeartbeatErrorRestores(t *testing.T) {
	e := newEnv(t)
	e.jobs.beatErr = errors.New("database is locked")
	c := &funcConsolidator{fn: func(ctx context.Context, ws *Workspace) (model.Usage, error) {
		writeFile(t, filepath.Join(ws.Root, memdir.MemoryFile), "half")
		<-ctx.Done()
		return model.Usage{}, ctx.Err()
	}}
	res, err := e.run(t, c)
	if err == nil || res.Status != StatusFailedAgent || !strings.Contains(res.Error, "database is locked") {
		t.Fatalf("run = %+v, %v", res, err)
	}
	if exists(filepath.Join(e.root, memdir.MemoryFile)) {
		t.Error("half-written MEMORY.md not rolled back")
	}
	if len(e.jobs.fails) != 1 {
		t.Errorf("fails = %v", e.jobs.fails)
	}
}

// Ctrl-C during a consolidation exited 130 but left the job
// failed, in an hour of backoff, so the next run and even --force skipped
// it. An interrupted run restores the previous files and gives the lock
// back: no failure, no backoff, and the next run consolidates at once.
func TestRunInterruptedGivesLockBack(t *testing.T) {
	for _, tt := range []struct {
		name  string
		prior func(e *env) // the job's state before the interrupted run
		force bool
	}{
		{"after a success, forced", func(e *env) {
			if res, err := e.run(t, heuristicThen(nil)); err != nil || res.Status != StatusSucceeded {
				t.Fatalf("first run = %+v, %v", res, err)
			}
			e.jobs.selection = append(e.jobs.selection, sampleSelection(t)[3])
		}, true},
		{"first run", func(e *env) {}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			tt.prior(e)
			failsBefore := len(e.jobs.fails)
			memBefore, _ := os.ReadFile(filepath.Join(e.root, memdir.MemoryFile))

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c := &funcConsolidator{fn: func(ctx context.Context, ws *Workspace) (model.Usage, error) {
				// Half the work written, then the user presses Ctrl-C.
				if err := memdir.WriteAtomic(filepath.Join(ws.Root, memdir.MemoryFile), []byte("partial"), 0o600); err != nil {
					return model.Usage{}, err
				}
				cancel()
				<-ctx.Done()
				return model.Usage{}, fmt.Errorf("model call: %w", ctx.Err())
			}}
			o := e.opts(c)
			o.Force = tt.force
			res, err := Run(ctx, e.jobs, o)
			if !errors.Is(err, context.Canceled) || res.Status != StatusInterrupted {
				t.Fatalf("interrupted run = %+v, %v; want %s wrapping context.Canceled", res, err, StatusInterrupted)
			}
			if res.Status.Failed() || res.Status.Skipped() {
				t.Errorf("status %q counts as failed or skipped", res.Status)
			}
			if e.jobs.releases != 1 || len(e.jobs.fails) != failsBefore {
				t.Errorf("releases %d, fails %v: want one release and no new failure", e.jobs.releases, e.jobs.fails)
			}
			if e.jobs.status != "pending" || !e.jobs.retryAt.IsZero() || e.jobs.lastError != "" {
				t.Errorf("job after the interrupt = %s, retry %v, error %q; want pending, no backoff, no error", e.jobs.status, e.jobs.retryAt, e.jobs.lastError)
			}
			memAfter, _ := os.ReadFile(filepath.Join(e.root, memdir.MemoryFile))
			if string(memAfter) != string(memBefore) {
				t.Errorf("MEMORY.md = %q after the interrupt, want the previous %q", memAfter, memBefore)
			}
			if exists(filepath.Join(e.root, memdir.DiffFile)) {
				t.Error("the interrupted run's diff file is kept")
			}
			// The next plain run does the work at once.
			if res, err := e.run(t, heuristicThen(nil)); err != nil || res.Status != StatusSucceeded {
				t.Errorf("next run = %+v, %v", res, err)
			}
		})
	}
}
