package pipeline

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/memctl/memctl/internal/consolidate"
	"github.com/memctl/memctl/internal/extract"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/model"
	"github.com/memctl/memctl/internal/prune"
	"github.com/memctl/memctl/internal/scan"
	"github.com/memctl/memctl/internal/store"
)

// OpenStore opens a version's store; the caller closes it.
type OpenStore func(ctx context.Context, version memversion.Version) (*store.Store, error)

// Report is one version's run of every stage (the --json shape of
// `memctl run`). A stage that did not run is null.
type Report struct {
	Version     memversion.Version  `json:"version"`
	Prepare     StageStatus         `json:"prepare"`
	Prune       prune.Result        `json:"prune"`
	Guard       extract.GuardResult `json:"guard"`
	Scan        *scan.Result        `json:"scan"`
	Extract     *extract.RunResult  `json:"extract"`
	Consolidate *consolidate.Result `json:"consolidate"`
}

// VersionRun is one version's pipeline: where it runs, its settings, and
// the two phases as the caller resolved them (they render as they go).
type VersionRun struct {
	Version     memversion.Version
	Root        string
	TemplateDir string
	OpenStore   OpenStore
	Now         func() time.Time
	// DryRun changes nothing: no layout repair, no prune, no consolidation.
	DryRun bool
	// MaxUnusedDays is prune's retention; MinRateLimitPercent and
	// GuardKind are the rate-limit guard's threshold and provider.
	MaxUnusedDays       int
	MinRateLimitPercent int
	GuardKind           model.Kind
	// Extract scans and extracts; Consolidate runs Phase 2.
	Extract     func(ctx context.Context) (extract.RunResult, scan.Result, error)
	Consolidate func(ctx context.Context) (consolidate.Result, error)
	// Pruned is told prune's outcome (Codex logs a prune error and goes
	// on); Guarded is told when the guard skips both phases; Extracted is
	// told Phase 1's result before Phase 2 runs. Any may be nil.
	Pruned    func(prune.Result, error)
	Guarded   func(extract.GuardResult)
	Extracted func(extract.RunResult, scan.Result)
}

// RunVersion runs a version's stages in Codex's order: prepare the memory
// folder, prune (it costs no tokens), the rate-limit guard, extract,
// consolidate. A skipped stage is reported, not an error; consolidation
// runs when extraction found nothing, so notes and forgotten threads reach
// the memory folder.
func RunVersion(ctx context.Context, r VersionRun) (Report, error) {
	rep := Report{Version: r.Version, Prepare: StageStatus{Status: "ok"}}
	var err error
	if rep.Prepare, err = Prepare(r.Root, r.TemplateDir, r.Now(), r.DryRun); err != nil {
		return rep, fmt.Errorf("%s: prepare %s: %w", r.Version, r.Root, err)
	}
	rep.Prune, err = PruneVersion(ctx, r.OpenStore, r.Version, r.MaxUnusedDays, r.DryRun, r.Now)
	if r.Pruned != nil {
		r.Pruned(rep.Prune, err)
	}
	if rep.Guard, err = r.guard(ctx); err != nil || !rep.Guard.Allowed {
		if err == nil && r.Guarded != nil {
			r.Guarded(rep.Guard)
		}
		return rep, err
	}
	ex, scanned, err := r.Extract(ctx)
	rep.Extract, rep.Scan = &ex, &scanned
	if err != nil {
		return rep, fmt.Errorf("%s: extract: %w", r.Version, err)
	}
	if r.Extracted != nil {
		r.Extracted(ex, scanned)
	}
	if r.DryRun {
		return rep, nil
	}
	cr, err := r.Consolidate(ctx)
	rep.Consolidate = &cr
	var failed *consolidate.FailedError
	switch {
	case errors.As(err, &failed):
		return rep, fmt.Errorf("%s: %w", r.Version, err) // already says "consolidate: failed_…"
	case err != nil:
		return rep, fmt.Errorf("%s: consolidate: %w", r.Version, err)
	}
	return rep, nil
}

// guard checks the rate-limit guard on the version's store.
func (r VersionRun) guard(ctx context.Context) (extract.GuardResult, error) {
	st, err := r.OpenStore(ctx, r.Version)
	if err != nil {
		return extract.GuardResult{}, err
	}
	defer st.Close()
	return extract.Guard(ctx, st, r.GuardKind, r.MinRateLimitPercent, r.Now())
}

// PruneVersion opens a version's store and prunes it (see Prune).
func PruneVersion(ctx context.Context, open OpenStore, version memversion.Version, maxUnusedDays int, dryRun bool, now func() time.Time) (prune.Result, error) {
	st, err := open(ctx, version)
	if err != nil {
		return prune.Result{}, err
	}
	defer st.Close()
	return Prune(ctx, st, version, maxUnusedDays, dryRun, now)
}

// Runs is what RunVersions gives back: every version's report, in the
// order of the versions, and the extraction jobs they claimed and failed.
type Runs struct {
	Reports             []Report
	Claimed, FailedJobs int
}

// RunVersions runs the pipeline of every generated version, the first
// first. Each version is its own pipeline, as in Codex: a failure of one
// does not stop the other; the errors are joined.
func RunVersions(ctx context.Context, versions []memversion.Version, run func(ctx context.Context, version memversion.Version, first bool) (Report, error)) (Runs, error) {
	var out Runs
	var errs error
	for i, v := range versions {
		rep, err := run(ctx, v, i == 0)
		out.Reports = append(out.Reports, rep)
		if rep.Extract != nil {
			out.FailedJobs += rep.Extract.Failed
			out.Claimed += rep.Extract.Claimed
		}
		errs = errors.Join(errs, err)
	}
	return out, errs
}
