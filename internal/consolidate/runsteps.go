package consolidate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memmodel"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/model"
	"github.com/memctl/memctl/internal/store"
)

// A consolidation run is a sequence of steps over one pass. A step that
// ends the run (a skip, a failure, a success with nothing to write)
// returns its outcome; nil lets the next step run.

// outcome is how a step ended the run: the run's result and error.
type outcome struct {
	res Result
	err error
}

func end(res Result, err error) *outcome { return &outcome{res: res, err: err} }

// pass is what the steps of one run learn and hand on.
type pass struct {
	claim     Claim
	hist      History // nil when the store keeps no generations
	staged    bool    // the run works on a copy of the memory folder
	selected  []Selected
	watermark int64
	evid      *staleCheck
	marks     map[string]store.NoteMark
	base, cur []BaselineFile
	changes   []Change
	commit    Commit
	diffText  string
	prompt    string
	ws        *Workspace
	backup    *artifactBackup
	usage     model.Usage
	final     []BaselineFile
}

// run is one consolidation: claim the lock, sync the inputs into the
// folder (or a staging copy), diff against the baseline, run the
// consolidator, check what it wrote, and commit it or pend it for review.
func (r *runner) run(ctx context.Context) (Result, error) {
	p := &pass{}
	if o := r.claimed(ctx, p); o != nil {
		return o.res, o.err
	}
	// A review run and a rebuild work on a copy: the memory folder is
	// written when the review is approved, or when the rebuild is done, so
	// readers never meet a folder without its files meanwhile.
	p.staged = r.opts.Review || p.claim.Regenerate
	if o := r.reviewWaits(ctx, p); o != nil {
		return o.res, o.err
	}
	if p.staged {
		staging, err := newStaging(r.opts.Root, "run", r.now)
		if err != nil {
			return r.fail(ctx, statusFailedPrepare, err, true)
		}
		defer removeStaging(staging)
		r.root = staging
	}
	for _, step := range []func(context.Context, *pass) *outcome{r.synced, r.unchanged, r.diffWritten, r.consolidated} {
		if o := step(ctx, p); o != nil {
			return o.res, o.err
		}
	}
	// The consolidator finished: validate and commit its work even if a
	// signal arrives now (a few store writes), so an interruption never
	// leaves new files without their baseline.
	ctx = context.WithoutCancel(ctx)
	if o := r.verified(ctx, p); o != nil {
		return o.res, o.err
	}
	return r.landed(ctx, p)
}

// claimed takes the global lock; a skip (cooldown, another run, a retry
// not due) ends the run with how many raw memories wait. An approve or
// rollback killed mid-way is finished first, and is then the run's work.
func (r *runner) claimed(ctx context.Context, p *pass) *outcome {
	opts := r.opts
	// Before the claim, so the copy holds no lock of this run's.
	if b, ok := r.jobs.(backupRefresher); ok {
		if err := b.RefreshBackup(ctx); err != nil {
			// The consolidation goes on; doctor shows the backup's age.
			fmt.Fprintf(r.log, "memctl: warning: the database backup was not refreshed: %v\n", err)
		}
	}
	claim, err := r.jobs.ClaimGlobal(ctx, opts.WorkerID, opts.Force)
	if err != nil {
		return end(r.fail(ctx, statusFailedClaim, err, false))
	}
	if claim.Status != claimClaimed {
		r.res.Status = claim.Status
		// Say how many raw memories wait, not 0: a skip selects nothing,
		// but the user needs to know whether anything is pending.
		r.countWaiting(ctx)
		return end(r.res, nil)
	}
	p.claim = claim
	r.token = claim.Token
	r.requestsUpTo = claim.RequestsUpTo
	r.res.Requests = claim.Requests
	r.root = opts.Root
	p.hist, _ = r.jobs.(History)
	if opts.Review && p.hist == nil {
		return end(r.fail(ctx, statusFailedPrepare, errors.New("review needs a store that keeps generations"), true))
	}
	if p.hist == nil {
		return nil
	}
	l, ok, err := finishLanding(ctx, p.hist, LandOptions{Root: opts.Root, Keep: opts.Keep, Now: opts.Now}, r.token)
	if err != nil {
		return end(r.fail(ctx, statusFailedPrepare, err, true))
	}
	if ok {
		fmt.Fprintf(r.log, "memctl: finished the interrupted %s of generation %d; run consolidate again to consolidate\n", l.Action, l.GenerationID)
		r.res.Status = StatusSucceeded
		return end(r.res, nil)
	}
	return nil
}

// countWaiting sets the result's Selected to the raw memories a run
// would take, for a run that skips.
func (r *runner) countWaiting(ctx context.Context) {
	if sel, err := r.jobs.Selection(ctx, r.opts.MaxRaw, r.opts.MaxUnusedDays); err == nil {
		r.res.Selected = len(retained(sel, r.opts.MaxRaw))
	}
}

// reviewWaits ends a review run while a generation still waits for review.
func (r *runner) reviewWaits(ctx context.Context, p *pass) *outcome {
	if !r.opts.Review {
		return nil
	}
	pending, ok, err := p.hist.PendingGeneration(ctx)
	if err != nil {
		return end(r.fail(ctx, statusFailedLoad, err, true))
	}
	if !ok {
		return nil
	}
	r.release(ctx)
	r.res.Status = StatusSkippedPendingReview
	r.res.Generation = pending.ID
	r.countWaiting(ctx)
	return end(r.res, nil)
}

// synced prepares the folder, selects the raw memories, syncs them in as
// the consolidator's inputs and diffs the folder against the baseline.
func (r *runner) synced(ctx context.Context, p *pass) *outcome {
	opts, root := r.opts, r.root
	if err := PrepareLayout(root, opts.TemplateDir, r.now); err != nil {
		return end(r.fail(ctx, statusFailedPrepare, err, true))
	}
	if err := os.Remove(filepath.Join(root, memdir.DiffFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return end(r.fail(ctx, statusFailedPrepare, err, true))
	}
	selected, err := r.jobs.Selection(ctx, opts.MaxRaw, opts.MaxUnusedDays)
	if err != nil {
		return end(r.fail(ctx, statusFailedLoad, err, true))
	}
	p.selected = retained(selected, opts.MaxRaw)
	r.res.Selected = len(p.selected)
	p.watermark = p.claim.InputWatermark
	for _, s := range p.selected {
		p.watermark = max(p.watermark, s.SourceUpdatedAt)
	}
	r.res.Watermark = p.watermark

	p.evid = r.checkEvidence(ctx, p.selected)
	p.marks = r.noteMarks(ctx)
	if err := syncInputs(root, opts.Version, p.selected, opts.MaxRaw, r.now, p.evid.stale); err != nil {
		return end(r.fail(ctx, statusFailedSync, err, true))
	}
	// The consolidator reads the inputs (an agent consolidator is an agent):
	// no order planted in them may reach it.
	if err := r.holdBack(root, "from the consolidator's inputs"); err != nil {
		return end(r.fail(ctx, statusFailedSync, err, true))
	}
	empty := r.offlineWhenEmpty(root, p.selected)
	if p.base, _, err = r.jobs.Baseline(ctx); err != nil {
		return end(r.fail(ctx, statusFailedStatus, err, true))
	}
	if p.cur, err = Snapshot(root); err != nil {
		return end(r.fail(ctx, statusFailedStatus, err, true))
	}
	if p.claim.Regenerate {
		// The files are rebuilt from the inputs alone: the old ones, which
		// may hold what a forget took out, are no part of the diff.
		p.changes = diffSnapshots(inputFiles(p.base), inputFiles(p.cur))
	} else {
		p.changes = diffSnapshots(p.base, p.cur)
	}
	r.setChanges(p.changes)
	p.commit = Commit{Token: r.token, Watermark: p.watermark, Selected: p.selected, RequestsUpTo: p.claim.RequestsUpTo, Keep: opts.Keep, Empty: empty}
	return nil
}

// unchanged ends a run whose folder did not change since the baseline
// and whose files are valid: the baseline is committed again, no
// consolidator runs. Files that need work go on to the consolidator.
func (r *runner) unchanged(ctx context.Context, p *pass) *outcome {
	if len(p.changes) > 0 || p.claim.Regenerate {
		return nil
	}
	verr := Validate(r.root, r.opts.Version)
	if verr == nil {
		return end(r.committedUnchanged(ctx, p))
	}
	fmt.Fprintf(r.log, "memctl: workspace unchanged but artifacts need work: %v\n", verr)
	// Validation may have removed symlinks; the diff must show that.
	var err error
	if p.cur, err = Snapshot(r.root); err != nil {
		return end(r.fail(ctx, statusFailedStatus, err, true))
	}
	p.changes = diffSnapshots(p.base, p.cur)
	r.setChanges(p.changes)
	return nil
}

func (r *runner) committedUnchanged(ctx context.Context, p *pass) (Result, error) {
	if p.staged {
		// Nothing to review; the folder gets back any input a hand edit
		// changed since the baseline, as a plain run's sync would do.
		if err := applyFiles(r.opts.Root, p.cur, r.now); err != nil {
			return r.fail(ctx, statusFailedCommit, err, true)
		}
	}
	return r.committed(ctx, p, StatusSucceededNoChanges, false)
}

// committed commits p.commit and, when the lock was still the run's, ends
// the run with status (and the generation the commit recorded, when
// withGeneration), the evidence index of what it selected and the
// folder's size.
func (r *runner) committed(ctx context.Context, p *pass, status Status, withGeneration bool) (Result, error) {
	owned, id, err := r.jobs.Commit(ctx, p.commit)
	if err != nil {
		return r.fail(ctx, statusFailedCommit, err, true)
	}
	if !owned {
		return r.fail(ctx, statusFailedLostOwnership, errLostOwnership, false)
	}
	r.res.Status = status
	if withGeneration {
		r.res.Generation = id
	}
	r.writeEvidenceIndex(p.selected, p.evid)
	r.res.StorageBytes, _ = memdir.Size(r.opts.Root)
	return r.res, nil
}

// diffWritten writes the diff file the consolidator reads, unless a
// review run would propose what the user rejected; then backs up the
// artifacts and puts the project layer in place before the consolidator
// writes a summary that may name it (crash order, order.go).
func (r *runner) diffWritten(ctx context.Context, p *pass) *outcome {
	opts, root := r.opts, r.root
	p.diffText = renderDiffFile(p.changes, p.base, p.cur)
	if opts.Review && !opts.Force {
		// The same inputs on the same folder would propose what the user
		// rejected: say so instead of spending a consolidator run on it.
		id, ok, err := p.hist.RejectedProposal(ctx, p.diffText)
		if err != nil {
			return end(r.fail(ctx, statusFailedLoad, err, true))
		}
		if ok {
			r.release(ctx)
			r.res.Status = StatusSkippedRejected
			r.res.Generation = id
			return end(r.res, nil)
		}
	}
	if err := memdir.WriteAtomic(filepath.Join(root, memdir.DiffFile), []byte(p.diffText), 0o600); err != nil {
		return end(r.fail(ctx, statusFailedDiffFile, err, true))
	}
	var err error
	if p.prompt, err = renderPrompt(root, opts.Version, opts.TemplateDir); err != nil {
		fmt.Fprintf(r.log, "memctl: warning: consolidation prompt: %v; using a minimal prompt\n", err)
	}
	if p.backup, err = backupArtifacts(root); err != nil {
		return end(r.fail(ctx, statusFailedPrepare, err, true))
	}
	if p.claim.Regenerate {
		// A forgotten memory may live on in what the consolidator wrote
		// before: rebuild the files from the inputs alone.
		fmt.Fprintf(r.log, "memctl: rebuilding the memory files from their inputs (%s)\n", strings.Join(p.claim.Requests, ", "))
		if err := removeArtifacts(root); err != nil {
			return end(r.fail(ctx, statusFailedPrepare, err, true))
		}
	}
	// The old layer's files stay until the summary is new.
	if _, err := writeProjectLayer(root, p.selected, opts.Redact, p.evid.stale, p.marks, false); err != nil {
		r.restore(p.backup)
		return end(r.fail(ctx, statusFailedPrepare, fmt.Errorf("project layer: %w", err), true))
	}
	return nil
}

// consolidated runs the consolidator over the workspace, with the lock's
// heartbeat; a failure puts the previous artifacts back.
func (r *runner) consolidated(ctx context.Context, p *pass) *outcome {
	opts, root := r.opts, r.root
	p.ws = &Workspace{
		Root: root, Version: opts.Version, Selected: p.selected, Changes: p.changes,
		DiffFile: p.diffText, Prompt: p.prompt, TemplateDir: opts.TemplateDir, Now: r.now,
		Redact: opts.Redact, Log: r.log, Stale: p.evid.stale, NoteMarks: p.marks,
	}
	usage, lost, cerr := r.consolidateWithHeartbeat(ctx, p.ws)
	r.res.Usage, p.usage = usage, usage
	if errors.Is(lost, errLostOwnership) {
		// Another process owns the folder now; its files are its business.
		// The sweep is best effort: the run is failing either way.
		_, _ = memdir.RemoveSymlinks(root)
		return end(r.fail(ctx, statusFailedLostOwnership, lost, true))
	}
	if lost != nil { // the heartbeat itself failed: treat as a failed agent
		cerr = errors.Join(lost, cerr)
	}
	if cerr != nil {
		_, _ = memdir.RemoveSymlinks(root) // best effort, as above
		r.restore(p.backup)
		return end(r.fail(ctx, failedStatus(opts.Consolidator.Name()), cerr, true))
	}
	return nil
}

// verified checks what the consolidator wrote: the project layer comes
// from the store, not from the consolidator (whatever the mode, one
// project's memory reaches another's sessions only through the personal
// layer, docs/projects.md), no planted order stays, the files are valid
// and the lock is still this run's. Then the folder is final.
func (r *runner) verified(ctx context.Context, p *pass) *outcome {
	opts, root := r.opts, r.root
	notes, err := writeProjectLayer(root, p.selected, p.ws.redact, p.evid.stale, p.marks, true)
	if err != nil {
		r.restore(p.backup)
		return end(r.fail(ctx, statusFailedInvalid, fmt.Errorf("project layer: %w", err), true))
	}
	r.reportNotes(notes)
	if err := r.holdBack(root, "from what the "+opts.Consolidator.Name()+" consolidator wrote"); err != nil {
		r.restore(p.backup)
		return end(r.fail(ctx, statusFailedInvalid, err, true))
	}
	if err := Validate(root, opts.Version); err != nil {
		r.restore(p.backup)
		return end(r.fail(ctx, statusFailedInvalid, err, true))
	}
	owned, err := r.jobs.HeartbeatGlobal(ctx, r.token)
	if err != nil {
		return end(r.fail(ctx, statusFailedConfirm, err, true))
	}
	if !owned {
		return end(r.fail(ctx, statusFailedLostOwnership, errLostOwnership, false))
	}
	if err := os.Remove(filepath.Join(root, memdir.DiffFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return end(r.fail(ctx, statusFailedCommit, err, true))
	}
	if p.final, err = Snapshot(root); err != nil {
		return end(r.fail(ctx, statusFailedCommit, err, true))
	}
	return nil
}

// landed records the new generation: pending for review when review is
// on and something changed, else committed with its baseline (a staged
// run writes the memory folder first, so a crash in between leaves a
// folder the next run's diff sees and redoes).
func (r *runner) landed(ctx context.Context, p *pass) (Result, error) {
	opts := r.opts
	gen := r.generation(p.final, p.selected, p.diffText, p.usage, p.watermark)
	changed := len(diffSnapshots(p.base, p.final)) > 0
	if opts.Review && changed {
		owned, id, err := p.hist.Pend(ctx, store.GlobalPend{Token: r.token, Generation: gen, RequestsUpTo: p.claim.RequestsUpTo, Keep: opts.Keep})
		if err != nil {
			return r.fail(ctx, statusFailedCommit, err, true)
		}
		if !owned {
			return r.fail(ctx, statusFailedLostOwnership, errLostOwnership, false)
		}
		r.res.Status = StatusPendingReview
		r.res.Generation = id
		r.res.StorageBytes, _ = memdir.Size(opts.Root)
		return r.res, nil
	}
	if p.staged {
		// A rebuild lands here (a review whose rebuild changed nothing too).
		if err := applyFiles(opts.Root, p.final, r.now); err != nil {
			return r.fail(ctx, statusFailedCommit, err, true)
		}
	}
	p.commit.Baseline = p.final
	if changed {
		p.commit.Generation = &gen
	}
	return r.committed(ctx, p, StatusSucceeded, true)
}

// noteMarks are the notes' pins and uses when the store keeps them; none
// (notes rank by recency) when it does not or cannot be read.
func (r *runner) noteMarks(ctx context.Context) map[string]store.NoteMark {
	if nm, ok := r.jobs.(noteRanker); ok {
		if marks, err := nm.NoteMarks(ctx); err == nil {
			return marks
		}
	}
	return nil
}

// reportNotes says when the folder holds more notes than the summary:
// nothing is left out of it in silence.
func (r *runner) reportNotes(total int) {
	if total <= memmodel.MaxSummaryNotes {
		return
	}
	r.res.Notes = &NotesCap{Total: total, Summary: memmodel.MaxSummaryNotes}
	where := "MEMORY.md lists every one"
	if r.opts.Version == memversion.V2 {
		where = "the others stay in " + memdir.NotesDir + "/"
	}
	fmt.Fprintf(r.log, "memctl: warning: %d ad hoc notes: the summary holds the %d best-ranked (pinned, most used, newest); %s; `memctl note pin NAME` keeps one in the summary\n",
		total, memmodel.MaxSummaryNotes, where)
}
