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
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/memctl/memctl/pkg/memdir"
	"github.com/memctl/memctl/pkg/model"
	"github.com/memctl/memctl/templates"
)

// ErrLostOwnership is reported when the global lock was taken over while a
// consolidation ran (the lease expired and another process claimed it).
var ErrLostOwnership = errors.New("lost ownership of the consolidation lock")

// FailedError is the error [Run] returns with a failed… Result: the status
// and the cause.
type FailedError struct {
	Status Status
	Err    error
}

func (e *FailedError) Error() string { return fmt.Sprintf("consolidate: %s: %v", e.Status, e.Err) }
func (e *FailedError) Unwrap() error { return e.Err }

// DefaultHeartbeat is the lease renewal interval Codex uses.
const DefaultHeartbeat = 90 * time.Second

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
func Run(ctx context.Context, jobs Jobs, opts Options) (Result, error) {
	r := &runner{jobs: jobs, opts: opts}
	r.defaults()
	if opts.DryRun {
		return r.dryRun(ctx)
	}
	return r.run(ctx)
}

type runner struct {
	jobs  Jobs
	opts  Options
	log   io.Writer
	now   time.Time
	token string
	res   Result
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
		r.opts.Heartbeat = DefaultHeartbeat
	}
	if r.opts.Version == "" {
		r.opts.Version = "v1"
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
func (r *runner) fail(ctx context.Context, status Status, err error, mark bool) (Result, error) {
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

func (r *runner) setChanges(changes []Change) {
	r.res.Changes = changes
	r.res.ChangeLines = nil
	for _, c := range changes {
		r.res.ChangeLines = append(r.res.ChangeLines, c.String())
	}
}

func (r *runner) run(ctx context.Context) (Result, error) {
	opts := r.opts
	claim, err := r.jobs.ClaimGlobal(ctx, opts.WorkerID, opts.Force)
	if err != nil {
		return r.fail(ctx, StatusFailedClaim, err, false)
	}
	if claim.Status != ClaimClaimed {
		r.res.Status = claim.Status
		// Say how many raw memories wait, not 0: a skip selects nothing,
		// but the user needs to know whether anything is pending.
		if sel, err := r.jobs.Selection(ctx, opts.MaxRaw, opts.MaxUnusedDays); err == nil {
			r.res.Selected = len(retained(sel, opts.MaxRaw))
		}
		return r.res, nil
	}
	r.token = claim.Token

	if err := PrepareLayout(opts.Root, opts.TemplateDir, r.now); err != nil {
		return r.fail(ctx, StatusFailedPrepare, err, true)
	}
	if err := os.Remove(filepath.Join(opts.Root, memdir.DiffFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return r.fail(ctx, StatusFailedPrepare, err, true)
	}

	selected, err := r.jobs.Selection(ctx, opts.MaxRaw, opts.MaxUnusedDays)
	if err != nil {
		return r.fail(ctx, StatusFailedLoad, err, true)
	}
	selected = retained(selected, opts.MaxRaw)
	r.res.Selected = len(selected)
	watermark := claim.InputWatermark
	for _, s := range selected {
		watermark = max(watermark, s.SourceUpdatedAt)
	}
	r.res.Watermark = watermark

	if err := SyncInputs(opts.Root, opts.Version, selected, opts.MaxRaw, r.now); err != nil {
		return r.fail(ctx, StatusFailedSync, err, true)
	}

	base, _, err := r.jobs.Baseline(ctx)
	if err != nil {
		return r.fail(ctx, StatusFailedStatus, err, true)
	}
	cur, err := Snapshot(opts.Root)
	if err != nil {
		return r.fail(ctx, StatusFailedStatus, err, true)
	}
	changes := Diff(base, cur)
	r.setChanges(changes)

	if len(changes) == 0 {
		if verr := Validate(opts.Root, opts.Version); verr == nil {
			owned, err := r.jobs.SucceedGlobal(ctx, r.token, watermark, selected)
			if err != nil {
				return r.fail(ctx, StatusFailedCommit, err, true)
			}
			if !owned {
				return r.fail(ctx, StatusFailedLostOwnership, ErrLostOwnership, false)
			}
			r.res.Status = StatusSucceededNoChanges
			r.res.StorageBytes, _ = memdir.Size(opts.Root)
			return r.res, nil
		} else {
			fmt.Fprintf(r.log, "memctl: workspace unchanged but artifacts need work: %v\n", verr)
		}
		// Validation may have removed symlinks; the diff must show that.
		if cur, err = Snapshot(opts.Root); err != nil {
			return r.fail(ctx, StatusFailedStatus, err, true)
		}
		changes = Diff(base, cur)
		r.setChanges(changes)
	}

	diffText := RenderDiffFile(changes, base, cur)
	if err := memdir.WriteAtomic(filepath.Join(opts.Root, memdir.DiffFile), []byte(diffText), 0o600); err != nil {
		return r.fail(ctx, StatusFailedDiffFile, err, true)
	}
	prompt, perr := RenderPrompt(opts.Root, opts.Version, opts.TemplateDir)
	if perr != nil {
		fmt.Fprintf(r.log, "memctl: warning: consolidation prompt: %v; using a minimal prompt\n", perr)
	}

	backup, err := backupArtifacts(opts.Root)
	if err != nil {
		return r.fail(ctx, StatusFailedPrepare, err, true)
	}
	ws := &Workspace{
		Root: opts.Root, Version: opts.Version, Selected: selected, Changes: changes,
		DiffFile: diffText, Prompt: prompt, TemplateDir: opts.TemplateDir, Now: r.now,
		Redact: opts.Redact, Log: r.log,
	}
	usage, lost, cerr := r.consolidateWithHeartbeat(ctx, ws)
	r.res.Usage = usage
	if errors.Is(lost, ErrLostOwnership) {
		// Another process owns the folder now; its files are its business.
		// The sweep is best effort: the run is failing either way.
		_, _ = memdir.RemoveSymlinks(opts.Root)
		return r.fail(ctx, StatusFailedLostOwnership, lost, true)
	}
	if lost != nil { // the heartbeat itself failed: treat as a failed agent
		cerr = errors.Join(lost, cerr)
	}
	if cerr != nil {
		_, _ = memdir.RemoveSymlinks(opts.Root) // best effort, as above
		r.restore(backup)
		return r.fail(ctx, FailedStatus(opts.Consolidator.Name()), cerr, true)
	}
	if err := Validate(opts.Root, opts.Version); err != nil {
		r.restore(backup)
		return r.fail(ctx, StatusFailedInvalid, err, true)
	}
	owned, err := r.jobs.HeartbeatGlobal(ctx, r.token)
	if err != nil {
		return r.fail(ctx, StatusFailedConfirm, err, true)
	}
	if !owned {
		return r.fail(ctx, StatusFailedLostOwnership, ErrLostOwnership, false)
	}
	if err := os.Remove(filepath.Join(opts.Root, memdir.DiffFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return r.fail(ctx, StatusFailedCommit, err, true)
	}
	final, err := Snapshot(opts.Root)
	if err != nil {
		return r.fail(ctx, StatusFailedCommit, err, true)
	}
	if err := r.jobs.SaveBaseline(ctx, final); err != nil {
		return r.fail(ctx, StatusFailedCommit, err, true)
	}
	owned, err = r.jobs.SucceedGlobal(ctx, r.token, watermark, selected)
	if err != nil {
		return r.fail(ctx, StatusFailedCommit, err, true)
	}
	if !owned {
		return r.fail(ctx, StatusFailedLostOwnership, ErrLostOwnership, false)
	}
	r.res.Status = StatusSucceeded
	r.res.StorageBytes, _ = memdir.Size(opts.Root)
	return r.res, nil
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
					hbErr = ErrLostOwnership
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
		mode := ModeRegular
		if fi.Mode().Perm()&0o111 != 0 {
			mode = ModeExecutable
		}
		b.files = append(b.files, BaselineFile{Path: name, Mode: mode, Content: data})
	}
	if fi, err := os.Lstat(filepath.Join(root, memdir.SkillsDir)); err == nil && fi.IsDir() {
		skills, err := Snapshot(filepath.Join(root, memdir.SkillsDir))
		if err != nil {
			return nil, err
		}
		for _, f := range skills {
			if f.Mode != ModeSymlink {
				f.Path = memdir.SkillsDir + "/" + f.Path
				b.files = append(b.files, f)
			}
		}
	}
	return b, nil
}

// restore puts the backed-up artifacts back: MEMORY.md and
// memory_summary.md are rewritten or removed, skills/ is replaced.
func (r *runner) restore(b *artifactBackup) {
	root := r.opts.Root
	warn := func(err error) {
		if err != nil {
			fmt.Fprintf(r.log, "memctl: warning: restore previous memory: %v\n", err)
		}
	}
	have := indexFiles(b.files)
	for _, name := range []string{memdir.MemoryFile, memdir.SummaryFile} {
		p := filepath.Join(root, name)
		if f, ok := have[name]; ok {
			warn(memdir.WriteAtomic(p, f.Content, fileMode(f.Mode)))
		} else if err := os.RemoveAll(p); err != nil {
			warn(err)
		}
	}
	skills := filepath.Join(root, memdir.SkillsDir)
	if fi, err := os.Lstat(skills); err == nil && !fi.IsDir() {
		warn(os.Remove(skills))
	} else if err == nil {
		// Remove what the run added or changed, then write the old files back.
		cur, err := Snapshot(skills)
		warn(err)
		for _, f := range cur {
			f.Path = memdir.SkillsDir + "/" + f.Path
			if old, ok := have[f.Path]; !ok || old.Mode != f.Mode || string(old.Content) != string(f.Content) {
				warn(os.Remove(filepath.Join(root, filepath.FromSlash(f.Path))))
			}
		}
	}
	defer removeEmptyDirs(skills)
	var paths []string
	for p := range have {
		if strings.HasPrefix(p, memdir.SkillsDir+"/") {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		f := have[p]
		full := filepath.Join(root, filepath.FromSlash(p))
		if cur, err := os.ReadFile(full); err == nil && string(cur) == string(f.Content) {
			continue
		}
		if err := memdir.EnsureDir(root, path.Dir(p)); err != nil {
			warn(err)
			continue
		}
		warn(memdir.WriteAtomic(full, f.Content, fileMode(f.Mode)))
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
	if m == ModeExecutable {
		return 0o700
	}
	return 0o600
}

// dryRun reports what a run would sync without claiming the lock or
// writing anything: the selection count and the status lines of the diff
// between the baseline and the folder as the sync would leave it.
func (r *runner) dryRun(ctx context.Context) (Result, error) {
	opts := r.opts
	r.res.Status = StatusDryRun
	if fi, err := os.Lstat(opts.Root); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return r.fail(ctx, StatusFailedPrepare, fmt.Errorf("%w: %s", memdir.ErrSymlinkedRoot, opts.Root), false)
	}
	selected, err := r.jobs.Selection(ctx, opts.MaxRaw, opts.MaxUnusedDays)
	if err != nil {
		return r.fail(ctx, StatusFailedLoad, err, false)
	}
	selected = retained(selected, opts.MaxRaw)
	r.res.Selected = len(selected)
	var cur []BaselineFile
	if _, err := os.Lstat(opts.Root); err == nil {
		if cur, err = Snapshot(opts.Root); err != nil {
			return r.fail(ctx, StatusFailedStatus, err, false)
		}
	}
	plan, err := planInputs(opts.Root, opts.Version, selected, opts.MaxRaw, r.now)
	if err != nil {
		return r.fail(ctx, StatusFailedSync, err, false)
	}
	files := map[string]BaselineFile{}
	for _, f := range cur {
		if f.Mode != ModeSymlink { // the layout step would remove links
			files[f.Path] = f
		}
	}
	for _, p := range plan.removes {
		delete(files, p)
	}
	for p, data := range plan.writes {
		files[p] = BaselineFile{Path: p, Mode: ModeRegular, Content: data}
	}
	seed := memdir.AdHocInstructionsFile
	if _, ok := files[seed]; !ok {
		if text, err := r.seedText(); err == nil {
			files[seed] = BaselineFile{Path: seed, Mode: ModeRegular, Content: []byte(text)}
		}
	}
	planned := make([]BaselineFile, 0, len(files))
	for _, f := range files {
		planned = append(planned, f)
	}
	sortFiles(planned)
	base, _, err := r.jobs.Baseline(ctx)
	if err != nil {
		return r.fail(ctx, StatusFailedStatus, err, false)
	}
	r.setChanges(Diff(base, planned))
	return r.res, nil
}

func (r *runner) seedText() (string, error) {
	return templates.Get(adHocInstructionsTemplate, r.opts.TemplateDir)
}
