package cmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/memctl/memctl/internal/consolidate"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/store"
)

// phase2Store adapts the store to what Phase 2 and its generations need
// (consolidate.Jobs and consolidate.History): internal/consolidate declares the
// interfaces with its own types, so it stays free of SQL.
type phase2Store struct{ st *store.Store }

var (
	_ consolidate.History        = phase2Store{}
	_ consolidate.RequestWatcher = phase2Store{}
)

func (j phase2Store) ClaimGlobal(ctx context.Context, worker string, force bool) (consolidate.Claim, error) {
	c, err := j.st.ClaimGlobal(ctx, worker, force)
	out := consolidate.Claim{Status: consolidate.Status(c.Status), Token: c.Token, InputWatermark: c.InputWatermark,
		RequestsUpTo: c.RequestsUpTo(), Regenerate: c.Regenerate()}
	for _, r := range c.Requests {
		out.Requests = append(out.Requests, r.Reason)
	}
	return out, err
}

func (j phase2Store) HeartbeatGlobal(ctx context.Context, token string) (bool, error) {
	return j.st.HeartbeatGlobal(ctx, token)
}

func (j phase2Store) FailGlobal(ctx context.Context, token, reason string) error {
	return j.st.FailGlobal(ctx, token, reason)
}

func (j phase2Store) Selection(ctx context.Context, n, maxUnusedDays int) ([]consolidate.Selected, error) {
	sel, err := j.st.Selection(ctx, n, maxUnusedDays)
	out := make([]consolidate.Selected, len(sel))
	for i, s := range sel {
		out[i] = consolidate.Selected(s)
	}
	return out, err
}

func (j phase2Store) Baseline(ctx context.Context) ([]consolidate.BaselineFile, bool, error) {
	files, ok, err := j.st.Baseline(ctx)
	return fromStoreFiles(files), ok, err
}

func fromStoreFiles(files []store.BaselineFile) []consolidate.BaselineFile {
	out := make([]consolidate.BaselineFile, len(files))
	for i, f := range files {
		out[i] = consolidate.BaselineFile(f)
	}
	return out
}

func toStoreFiles(files []consolidate.BaselineFile) []store.BaselineFile {
	if files == nil {
		return nil
	}
	out := make([]store.BaselineFile, len(files))
	for i, f := range files {
		out[i] = store.BaselineFile(f)
	}
	return out
}

func toStoreGeneration(g consolidate.NewGeneration) store.NewGeneration {
	out := store.NewGeneration{Generation: store.Generation(g.Generation), Files: toStoreFiles(g.Files), WorkspaceDiff: g.WorkspaceDiff}
	for _, in := range g.Inputs {
		out.Inputs = append(out.Inputs, store.GenerationInput(in))
	}
	return out
}

func (j phase2Store) Commit(ctx context.Context, c consolidate.Commit) (bool, int64, error) {
	snaps := make([]store.Snapshot, len(c.Selected))
	for i, s := range c.Selected {
		snaps[i] = store.Snapshot{ThreadID: s.ThreadID, SourceUpdatedAt: s.SourceUpdatedAt}
	}
	sc := store.GlobalCommit{Token: c.Token, Watermark: c.Watermark, Selected: snaps, RequestsUpTo: c.RequestsUpTo,
		Baseline: toStoreFiles(c.Baseline), Keep: c.Keep}
	if c.Generation != nil {
		g := toStoreGeneration(*c.Generation)
		sc.Generation = &g
	}
	return j.st.CommitGlobal(ctx, sc)
}

func (j phase2Store) Pend(ctx context.Context, p consolidate.Pend) (bool, int64, error) {
	return j.st.PendGlobal(ctx, store.GlobalPend{Token: p.Token, Generation: toStoreGeneration(p.Generation),
		RequestsUpTo: p.RequestsUpTo, Keep: p.Keep})
}

func (j phase2Store) PendingGeneration(ctx context.Context) (consolidate.Generation, bool, error) {
	g, ok, err := j.st.PendingGeneration(ctx)
	return consolidate.Generation(g), ok, err
}

func (j phase2Store) ReleaseGlobal(ctx context.Context, token string) error {
	return j.st.ReleaseGlobal(ctx, token)
}

func (j phase2Store) Generation(ctx context.Context, id int64) (consolidate.Generation, error) {
	g, err := j.st.Generation(ctx, id)
	return consolidate.Generation(g), err
}

func (j phase2Store) GenerationFiles(ctx context.Context, id int64) ([]consolidate.BaselineFile, error) {
	files, err := j.st.GenerationFiles(ctx, id)
	return fromStoreFiles(files), err
}

func (j phase2Store) GenerationInputs(ctx context.Context, id int64) ([]consolidate.GenerationInput, error) {
	in, err := j.st.GenerationInputs(ctx, id)
	out := make([]consolidate.GenerationInput, len(in))
	for i, x := range in {
		out[i] = consolidate.GenerationInput(x)
	}
	return out, err
}

func (j phase2Store) Forgotten(ctx context.Context, ids []string) (map[string]time.Time, error) {
	return j.st.Forgotten(ctx, ids)
}

func (j phase2Store) BeginLanding(ctx context.Context, token, action string, id int64) (bool, error) {
	return j.st.BeginLanding(ctx, token, action, id)
}

func (j phase2Store) CancelLanding(ctx context.Context, token string) error {
	return j.st.CancelLanding(ctx, token)
}

func (j phase2Store) UnfinishedLanding(ctx context.Context) (consolidate.Landing, bool, error) {
	l, ok, err := j.st.UnfinishedLanding(ctx)
	return consolidate.Landing(l), ok, err
}

func (j phase2Store) LandGeneration(ctx context.Context, l consolidate.Land) (bool, int64, error) {
	return j.st.LandGeneration(ctx, store.Land(l))
}

func (j phase2Store) RejectedProposal(ctx context.Context, workspaceDiff string) (int64, bool, error) {
	return j.st.RejectedProposal(ctx, workspaceDiff)
}

func (j phase2Store) RequestsAfter(ctx context.Context, id int64) (int, error) {
	reqs, err := j.st.ConsolidationRequests(ctx)
	n := 0
	for _, r := range reqs {
		if r.ID > id {
			n++
		}
	}
	return n, err
}

func (j phase2Store) RequestConsolidation(ctx context.Context, reason string, regenerate bool) error {
	return j.st.RequestConsolidation(ctx, reason, regenerate)
}

// landError says what to do next when an approve or a rollback is refused.
func landError(version memversion.Version, err error) error {
	var forgotten *consolidate.ForgottenError
	wrapped := fmt.Errorf("%s: %w", version, err)
	switch {
	case errors.As(err, &forgotten):
		return withHint(wrapped, "pass --force to restore it anyway (the next consolidation takes those memories out again), or pick another generation")
	case errors.Is(err, consolidate.ErrBusy):
		return withHint(wrapped, "`memctl status` shows which process holds the consolidation lock and until when")
	case errors.Is(err, consolidate.ErrPendingReview):
		return withHint(wrapped, "`memctl review` shows it; `memctl approve` or `memctl reject` settles it")
	case errors.Is(err, store.ErrNotFound):
		return withHint(wrapped, "`memctl history` lists the kept generations")
	}
	return wrapped
}

// landedJSON is one version's approve or rollback in --json documents.
type landedJSON struct {
	Version memversion.Version `json:"version"`
	consolidate.LandResult
}

// reportLanding prints what an approve or rollback changed (stdout: the
// status lines) and refreshes the search index over the new folder.
func reportLanding(ctx context.Context, ios *IOStreams, st *store.Store, root string, res consolidate.LandResult, jsonOut bool) {
	if res.Recovered != nil {
		ios.Warnf("finished the %s of generation %d that was interrupted at %s", res.Recovered.Action,
			res.Recovered.GenerationID, rfc3339(res.Recovered.StartedAt))
	}
	if err := indexFolder(context.WithoutCancel(ctx), st, root); err != nil {
		ios.Warnf("search index: %v", err)
	}
	if jsonOut {
		return
	}
	for _, l := range res.Changes {
		fmt.Fprintln(ios.Out, l)
	}
}
