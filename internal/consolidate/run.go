package consolidate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync"
	"time"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/model"
	"github.com/memctl/memctl/internal/store"
)

// errLostOwnership is reported when the global lock was taken over while a
// consolidation ran (the lease expired and another process claimed it).
var errLostOwnership = errors.New("lost ownership of the consolidation lock")

// FailedError is the error [Run] returns with a failed… Result: the status
// and the cause.
type FailedError struct {
	Status Status
	Err    error
}

func (e *FailedError) Error() string { return fmt.Sprintf("consolidate: %s: %v", e.Status, e.Err) }
func (e *FailedError) Unwrap() error { return e.Err }

// defaultHeartbeat is the lease renewal interval Codex uses.
const defaultHeartbeat = 90 * time.Second

// Run performs one Phase 2 consolidation in Codex's newest order: claim
// the global lock, prepare the folder, load the selection, sync the
// inputs, diff against the baseline, and either finish at once (nothing
// changed and the artifacts are valid) or write the diff file, run the
// consolidator under a heartbeat, validate and commit the new baseline.
//
// Skips (lock held, backoff, cooldown) return a Result whose Status names
// the reason and a nil error. Failures return a Result whose Status is the
// failed_… reason together with a non-nil error; the job is marked failed
// (1 h backoff) where Codex does so, the diff file is kept and the
// baseline is left alone.
//
// When a request came in while a run worked (a raw memory that landed
// after the run selected its inputs, as a store that records requests
// says), the run that succeeded starts over, up to maxPasses in all, so
// that parallel runs end with a folder that holds what each of them
// extracted.
func Run(ctx context.Context, jobs Jobs, opts Options) (Result, error) {
	r := &runner{jobs: jobs, opts: opts}
	r.defaults()
	if opts.DryRun {
		return r.dryRun(ctx)
	}
	// A run that then skips still clears what a killed writer left in the
	// folder; one that works does it again in PrepareLayout.
	if fi, err := os.Lstat(r.opts.Root); err == nil && fi.IsDir() {
		memdir.RemoveAbandonedTemps(r.opts.Root, r.now)
	}
	res, err := r.run(ctx)
	watcher, ok := jobs.(requestWatcher)
	for pass := 2; ok && err == nil && res.Status.Succeeded() && pass <= maxPasses; pass++ {
		n, werr := watcher.RequestsAfter(ctx, r.requestsUpTo)
		if werr != nil || n == 0 {
			break
		}
		fmt.Fprintf(r.log, "memctl: new raw memories landed while consolidating; consolidating again (pass %d of at most %d)\n", pass, maxPasses)
		next := &runner{jobs: jobs, opts: opts}
		next.defaults()
		nres, nerr := next.run(ctx)
		if nerr == nil && !nres.Status.Succeeded() {
			// Another process took the lock (it includes them) or the
			// cooldown holds after all: the first pass's result stands.
			break
		}
		nres.Passes = pass
		r, res, err = next, nres, nerr
	}
	return res, err
}

// maxPasses bounds how often one Run consolidates when raw memories keep
// landing while it works; what lands during the last pass waits for the
// next run, which its request lets through the cooldown.
const maxPasses = 3

// requestWatcher is implemented by stores that record consolidation
// requests (the store's ConsolidationRequests): RequestsAfter counts the
// open requests newer than id, the newest a claim saw.
type requestWatcher interface {
	RequestsAfter(ctx context.Context, id int64) (int, error)
}

type runner struct {
	jobs Jobs
	opts Options
	// root is the folder the run works in: the memory folder, or with
	// review on (and for a dry run's plan) a staging copy of it.
	root  string
	log   io.Writer
	now   time.Time
	token string
	res   Result
	// requestsUpTo is the newest consolidation request the claim saw.
	requestsUpTo int64
}

func (r *runner) defaults() {
	r.log = r.opts.Log
	if r.log == nil {
		r.log = io.Discard
	}
	if r.opts.Now == nil {
		r.opts.Now = time.Now
	}
	if r.opts.Heartbeat <= 0 {
		r.opts.Heartbeat = defaultHeartbeat
	}
	if r.opts.Version == "" {
		r.opts.Version = memversion.V1
	}
	if r.opts.Consolidator == nil {
		r.opts.Consolidator = NewHeuristic()
	}
	// The prompt names the root and agents run inside it: make it absolute.
	if abs, err := filepath.Abs(r.opts.Root); err == nil {
		r.opts.Root = abs
	}
	r.now = r.opts.Now()
	r.res.Consolidator = r.opts.Consolidator.Name()
}

// fail records a failure: the job is marked failed when mark is set
// (Codex does not mark a job it never claimed), with the status and the
// error as reason, so a later skip can say what went wrong.
//
// When ctx was cancelled (Ctrl-C, SIGTERM) the run did not fail, the user
// stopped it: the lock is given back (no backoff, no retry spent) and the
// error wraps ctx's, so the command exits 130.
func (r *runner) fail(ctx context.Context, status Status, err error, mark bool) (Result, error) {
	if ctx.Err() != nil {
		return r.interrupted(ctx, err)
	}
	r.res.Status = status
	r.res.Error = err.Error()
	if mark && r.token != "" {
		// A cancelled run context must not keep the failure from being recorded.
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		reason := string(status) + ": " + err.Error()
		if len(reason) > 500 {
			reason = reason[:500] + "…"
		}
		if ferr := r.jobs.FailGlobal(fctx, r.token, reason); ferr != nil {
			fmt.Fprintf(r.log, "memctl: warning: record consolidation failure: %v\n", ferr)
		}
	}
	return r.res, &FailedError{Status: status, Err: err}
}

// interrupted gives the lock back and drops the run's diff file; the
// caller has already put the previous memory files back. (Without a
// History store there is no release: the lease runs out in an hour.)
func (r *runner) interrupted(ctx context.Context, cause error) (Result, error) {
	r.res.Status = StatusInterrupted
	r.res.Error = ""
	if r.token != "" {
		r.release(ctx)
		if r.root != "" {
			_ = os.Remove(filepath.Join(r.root, memdir.DiffFile)) // best effort: the next run rewrites it
		}
	}
	if !errors.Is(cause, ctx.Err()) {
		cause = fmt.Errorf("%w (%v)", ctx.Err(), cause)
	}
	return r.res, fmt.Errorf("consolidation interrupted: %w", cause)
}

func (r *runner) setChanges(changes []Change) {
	r.res.Changes = changes
	r.res.ChangeLines = nil
	for _, c := range changes {
		r.res.ChangeLines = append(r.res.ChangeLines, c.String())
	}
}

// holdBack sweeps the folder (holdBackInFolder), records what it removed
// and says so on the log.
func (r *runner) holdBack(root, stage string) error {
	held, err := holdBackInFolder(root)
	if err != nil {
		return fmt.Errorf("quarantine: %w", err)
	}
	if len(held) > 0 {
		r.res.Held = append(r.res.Held, held...)
		fmt.Fprintln(r.log, describeHeld(stage, held))
	}
	return nil
}

// generation describes what this run produced, for the history.
func (r *runner) generation(files []BaselineFile, selected []Selected, diffText string, usage model.Usage, watermark int64) store.NewGeneration {
	g := store.NewGeneration{
		Generation: store.Generation{Kind: store.GenerationConsolidation, Mode: r.opts.Consolidator.Name(), Provider: r.opts.Provider,
			Model: r.opts.Model, Selected: len(selected), InputTokens: usage.InputTokens, OutputTokens: usage.OutputTokens,
			TotalTokens: usage.TotalTokens, Watermark: watermark},
		Files:         files,
		WorkspaceDiff: diffText,
	}
	for _, s := range selected {
		g.Inputs = append(g.Inputs, store.GenerationInput{ThreadID: s.ThreadID, SourceUpdatedAt: s.SourceUpdatedAt,
			RawMemory: s.RawMemory, RolloutSummary: s.RolloutSummary, Pinned: s.Pinned, UserAsserted: s.UserAsserted})
	}
	return g
}

// release gives the lock back without marking success or failure.
func (r *runner) release(ctx context.Context) {
	if h, ok := r.jobs.(History); ok && r.token != "" {
		bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := h.ReleaseGlobal(bg, r.token); err != nil {
			fmt.Fprintf(r.log, "memctl: warning: release the consolidation lock: %v\n", err)
		}
	}
}

// removeArtifacts deletes the consolidator's outputs (MEMORY.md,
// memory_summary.md, skills/) so that the next consolidator run starts
// from the inputs alone; backupArtifacts has saved them first.
func removeArtifacts(root string) error {
	for _, name := range []string{memdir.SummaryFile, memdir.MemoryFile, memdir.SkillsDir} {
		if err := dropTree(filepath.Join(root, name)); err != nil {
			return err
		}
	}
	return nil
}

// consolidateWithHeartbeat runs the consolidator while a goroutine renews
// the lease every opts.Heartbeat. When the lease is lost (or the heartbeat
// fails) the consolidator's context is cancelled and lost reports why.
func (r *runner) consolidateWithHeartbeat(ctx context.Context, ws *Workspace) (usage model.Usage, lost, err error) {
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu      sync.Mutex
		hbErr   error
		stopped = make(chan struct{})
		done    = make(chan struct{})
	)
	go func() {
		defer close(done)
		t := time.NewTicker(r.opts.Heartbeat)
		defer t.Stop()
		for {
			select {
			case <-stopped:
				return
			case <-cctx.Done():
				return
			case <-t.C:
				owned, err := r.jobs.HeartbeatGlobal(cctx, r.token)
				if err == nil && owned {
					continue
				}
				mu.Lock()
				if err != nil {
					hbErr = fmt.Errorf("heartbeat: %w", err)
				} else {
					hbErr = errLostOwnership
				}
				mu.Unlock()
				cancel()
				return
			}
		}
	}()
	usage, err = r.opts.Consolidator.Consolidate(cctx, ws)
	close(stopped)
	<-done
	mu.Lock()
	defer mu.Unlock()
	if hbErr != nil && ctx.Err() == nil {
		return usage, hbErr, err
	}
	return usage, nil, err
}

// artifactBackup holds the consolidator's outputs as they were before it
// ran, so a rejected run leaves the previous good memory in place.
type artifactBackup struct {
	files []BaselineFile
}

func backupArtifacts(root string) (*artifactBackup, error) {
	// Read only the artifacts, not the whole folder: resources under
	// extensions/ can be large and need no backup.
	b := &artifactBackup{}
	for _, name := range []string{memdir.MemoryFile, memdir.SummaryFile} {
		fi, err := os.Lstat(filepath.Join(root, name))
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			return nil, err
		}
		mode := modeRegular
		if fi.Mode().Perm()&0o111 != 0 {
			mode = modeExecutable
		}
		b.files = append(b.files, BaselineFile{Path: name, Mode: mode, Content: data})
	}
	for _, dir := range []string{memdir.SkillsDir, memdir.ProjectsDir} {
		fi, err := os.Lstat(filepath.Join(root, dir))
		if err != nil || !fi.IsDir() {
			continue
		}
		files, err := Snapshot(filepath.Join(root, dir))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if f.Mode != modeSymlink {
				f.Path = dir + "/" + f.Path
				b.files = append(b.files, f)
			}
		}
	}
	return b, nil
}

// restore puts the backed-up artifacts back in crash order (order.go):
// the files of skills/ and projects/ first, then MEMORY.md and
// memory_summary.md (or, when there were none, their removal), and what
// the run added under skills/ and projects/ last, the index before the
// files it names.
func (r *runner) restore(b *artifactBackup) {
	root := r.root
	warn := func(err error) {
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(r.log, "memctl: warning: restore previous memory: %v\n", err)
		}
	}
	dirs := []string{memdir.SkillsDir, memdir.ProjectsDir}
	for _, dir := range dirs {
		// A file where the folder belongs (the consolidator's doing).
		if fi, err := os.Lstat(filepath.Join(root, dir)); err == nil && !fi.IsDir() {
			warn(dropFile(filepath.Join(root, dir)))
		}
	}
	have := indexFiles(b.files)
	paths := make([]string, 0, len(have))
	for p := range have {
		paths = append(paths, p)
	}
	sortForWrite(paths)
	for _, p := range paths {
		f := have[p]
		full := filepath.Join(root, filepath.FromSlash(p))
		if fi, err := os.Lstat(full); err == nil && fi.Mode().IsRegular() && fileMode(f.Mode) == fi.Mode().Perm() {
			if cur, err := os.ReadFile(full); err == nil && string(cur) == string(f.Content) {
				continue
			}
		} else if err == nil && fi.IsDir() {
			warn(dropTree(full))
		}
		if d := path.Dir(p); d != "." {
			if err := memdir.EnsureDir(root, d); err != nil {
				warn(err)
				continue
			}
		}
		warn(putFile(full, f.Content, fileMode(f.Mode)))
	}
	for _, name := range []string{memdir.SummaryFile, memdir.MemoryFile} {
		if _, ok := have[name]; !ok {
			warn(dropTree(filepath.Join(root, name)))
		}
	}
	var added []string
	for _, dir := range dirs {
		top := filepath.Join(root, dir)
		if fi, err := os.Lstat(top); err != nil || !fi.IsDir() {
			continue
		}
		cur, err := Snapshot(top)
		warn(err)
		for _, f := range cur {
			if _, kept := have[dir+"/"+f.Path]; !kept {
				added = append(added, dir+"/"+f.Path)
			}
		}
	}
	sortForWrite(added)
	for i := len(added) - 1; i >= 0; i-- {
		warn(dropFile(filepath.Join(root, filepath.FromSlash(added[i]))))
	}
	for _, dir := range dirs {
		removeEmptyDirs(filepath.Join(root, dir))
	}
}

// removeEmptyDirs deletes the empty folders below dir (a failed run's new
// skill folders), deepest first; dir itself stays.
func removeEmptyDirs(dir string) {
	var dirs []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != dir {
			dirs = append(dirs, p)
		}
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		_ = os.Remove(dirs[i]) // fails, as it should, when not empty
	}
}

func fileMode(m uint32) os.FileMode {
	if m == modeExecutable {
		return 0o700
	}
	return 0o600
}

// dryRun reports what a run would do without claiming the lock or
// writing to the memory folder or the store: the selection count, the
// status lines of the workspace diff (baseline → folder as the sync would
// leave it) and, in Plan, the diff of every artifact the consolidator
// would write. The plan is real: the consolidator runs in a scratch copy
// of the folder beside it, which is deleted afterwards (so a model or an
// agent consolidator spends what a run would). When the inputs did not
// change and the artifacts are valid, a run would not call it, and the
// plan is empty.
func (r *runner) dryRun(ctx context.Context) (Result, error) {
	opts := r.opts
	r.res.Status = statusDryRun
	if fi, err := os.Lstat(opts.Root); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return r.fail(ctx, statusFailedPrepare, fmt.Errorf("%w: %s", memdir.ErrSymlinkedRoot, opts.Root), false)
	}
	selected, err := r.jobs.Selection(ctx, opts.MaxRaw, opts.MaxUnusedDays)
	if err != nil {
		return r.fail(ctx, statusFailedLoad, err, false)
	}
	selected = retained(selected, opts.MaxRaw)
	r.res.Selected = len(selected)
	base, _, err := r.jobs.Baseline(ctx)
	if err != nil {
		return r.fail(ctx, statusFailedStatus, err, false)
	}
	current, err := snapshotIfExists(opts.Root)
	if err != nil {
		return r.fail(ctx, statusFailedStatus, err, false)
	}
	scratch, err := newStaging(opts.Root, "plan", r.now)
	if err != nil {
		return r.fail(ctx, statusFailedPrepare, err, false)
	}
	defer removeStaging(scratch)
	r.root = scratch
	if err := PrepareLayout(scratch, opts.TemplateDir, r.now); err != nil {
		return r.fail(ctx, statusFailedPrepare, err, false)
	}
	evid := r.checkEvidence(ctx, selected) // a dry run records no verdict
	if err := syncInputs(scratch, opts.Version, selected, opts.MaxRaw, r.now, evid.stale); err != nil {
		return r.fail(ctx, statusFailedSync, err, false)
	}
	if r.offlineWhenEmpty(scratch, selected) {
		opts = r.opts
	}
	cur, err := Snapshot(scratch)
	if err != nil {
		return r.fail(ctx, statusFailedStatus, err, false)
	}
	changes := diffSnapshots(base, cur)
	r.setChanges(changes)
	r.res.Plan = []FileDiff{}
	if len(changes) == 0 && Validate(scratch, opts.Version) == nil {
		return r.res, nil
	}
	diffText := renderDiffFile(changes, base, cur)
	if err := memdir.WriteAtomic(filepath.Join(scratch, memdir.DiffFile), []byte(diffText), 0o600); err != nil {
		return r.fail(ctx, statusFailedDiffFile, err, false)
	}
	prompt, perr := renderPrompt(scratch, opts.Version, opts.TemplateDir)
	if perr != nil {
		fmt.Fprintf(r.log, "memctl: warning: consolidation prompt: %v; using a minimal prompt\n", perr)
	}
	ws := &Workspace{
		Root: scratch, Version: opts.Version, Selected: selected, Changes: changes,
		DiffFile: diffText, Prompt: prompt, TemplateDir: opts.TemplateDir, Now: r.now,
		Redact: opts.Redact, Log: r.log, Stale: evid.stale, NoteMarks: r.noteMarks(ctx),
	}
	usage, err := opts.Consolidator.Consolidate(ctx, ws)
	r.res.Usage = usage
	if err != nil {
		return r.fail(ctx, failedStatus(opts.Consolidator.Name()), err, false)
	}
	if err := Validate(scratch, opts.Version); err != nil {
		return r.fail(ctx, statusFailedInvalid, err, false)
	}
	planned, err := Snapshot(scratch)
	if err != nil {
		return r.fail(ctx, statusFailedStatus, err, false)
	}
	var now []BaselineFile
	for _, f := range current {
		if f.Mode != modeSymlink { // the layout step would remove links
			now = append(now, f)
		}
	}
	r.res.Plan = DiffFiles(now, planned, isArtifact)
	return r.res, nil
}

// removeStaging deletes a staging folder, and the staging root with it
// when nothing else is left there.
func removeStaging(dir string) {
	_ = os.RemoveAll(dir)
	_ = os.Remove(filepath.Dir(dir))
}
