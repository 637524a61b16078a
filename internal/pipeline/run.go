package pipeline

import (
	"context"
	"errors"
	"fmt"

	"github.com/memctl/memctl/internal/consolidate"
	"github.com/memctl/memctl/internal/extract"
	"github.com/memctl/memctl/internal/memversion"
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

// RunRequest is what `memctl run` asks: the requests of its two phases.
// Extract.DryRun makes the whole run a dry run: no layout repair, no
// prune, no consolidation.
type RunRequest struct {
	Extract     ExtractRequest
	Consolidate ConsolidateRequest
}

// Runs is what Run gives back: every version's report, in the order of
// the versions, and the extraction jobs they claimed and failed.
type Runs struct {
	Reports             []Report
	Claimed, FailedJobs int
}

// Run runs the pipeline of every generated version, the first first.
// Each version is its own pipeline, as in Codex: a failure of one does
// not stop the other; the errors are joined. The plan is resolved before
// any version starts, so a config that cannot work stops the run before
// anything changes.
func (h *Home) Run(ctx context.Context, req RunRequest) (Runs, error) {
	var out Runs
	plan, err := h.Plan(PhaseExtract | PhaseConsolidate)
	if err != nil {
		return out, err
	}
	var errs error
	for i, v := range h.Versions() {
		rep, err := h.runVersion(ctx, plan, v, req, i == 0)
		out.Reports = append(out.Reports, rep)
		if rep.Extract != nil {
			out.FailedJobs += rep.Extract.Failed
			out.Claimed += rep.Extract.Claimed
		}
		errs = errors.Join(errs, err)
	}
	return out, errs
}

// runVersion runs a version's stages in Codex's order: prepare the memory
// folder, prune (it costs no tokens), the rate-limit guard, extract,
// consolidate. A skipped stage is reported, not an error; consolidation
// runs when extraction found nothing, so notes and forgotten threads reach
// the memory folder.
func (h *Home) runVersion(ctx context.Context, plan Plan, version memversion.Version, req RunRequest, first bool) (Report, error) {
	rep := Report{Version: version, Prepare: StageStatus{Status: "ok"}}
	if err := h.ensureDir(); err != nil {
		return rep, err
	}
	rpt, dryRun := h.env.Reporter, req.Extract.DryRun
	var err error
	if rep.Prepare, err = h.prepare(version, dryRun); err != nil {
		return rep, fmt.Errorf("%s: prepare %s: %w", version, h.MemoryRoot(version), err)
	}
	// Codex logs a prune error and goes on.
	rep.Prune, err = h.pruneVersion(ctx, version, dryRun)
	rpt.Pruned(version, rep.Prune, err)
	if rep.Guard, err = h.guard(ctx, version, plan.Extract); err != nil || !rep.Guard.Allowed {
		if err == nil {
			rpt.Guarded(version, rep.Guard, true)
		}
		return rep, err
	}
	ex, scanned, err := h.scanAndExtract(ctx, plan, version, req.Extract, false)
	rep.Extract, rep.Scan = &ex, &scanned
	if err != nil {
		return rep, fmt.Errorf("%s: extract: %w", version, err)
	}
	rpt.Extracted(version, ex, scanned, first)
	if dryRun {
		return rep, nil
	}
	cr, err := h.consolidateVersion(ctx, plan, version, req.Consolidate)
	rep.Consolidate = &cr
	var failed *consolidate.FailedError
	switch {
	case errors.As(err, &failed):
		return rep, fmt.Errorf("%s: %w", version, err) // already says "consolidate: failed_…"
	case err != nil:
		return rep, fmt.Errorf("%s: consolidate: %w", version, err)
	}
	return rep, nil
}

// guard checks the rate-limit guard on the version's store for the
// provider of Phase 1.
func (h *Home) guard(ctx context.Context, version memversion.Version, prov Provider) (extract.GuardResult, error) {
	st, err := h.OpenStore(ctx, version)
	if err != nil {
		return extract.GuardResult{}, err
	}
	defer st.Close()
	return extract.Guard(ctx, st, prov.Kind, h.cfg.Memories.MinRateLimitRemainingPercent, h.Now())
}
