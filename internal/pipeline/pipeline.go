// Package pipeline is the one door from the config to memctl's stages. A
// Home, built once per process from the effective config, resolves the
// plan (redaction, Phase 1's provider, Phase 2's consolidator), the
// sources, the eligibility window and the memory folders, and runs every
// stage (prepare, prune, scan, the rate-limit guard, extract,
// consolidate) for each generated memory version, returning reports and
// telling a Reporter what happens meanwhile. cmd/ turns flags into the
// config and a request, and renders what comes back.
package pipeline

import (
	"context"
	"fmt"
	"time"

	"github.com/memctl/memctl/internal/consolidate"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/model"
	"github.com/memctl/memctl/internal/prune"
	"github.com/memctl/memctl/internal/store"
)

// Provider is the model a stage uses, resolved once per command: a nil
// Provider means the offline heuristic. Kind names what answers (a
// provider kind, or "agent" for an agent consolidator) for the token
// record and the history.
type Provider struct {
	Provider model.Provider
	Kind     model.Kind
	Model    string
}

// Label names a provider and its model for a cost estimate.
func (p Provider) Label() string {
	if p.Model == "" {
		return string(p.Kind)
	}
	return string(p.Kind) + " (" + p.Model + ")"
}

// recordStage notes a stage's run for `memctl status`; a failure to note
// it must not fail the stage.
func recordStage(ctx context.Context, st *store.Store, stage string, started, finished time.Time, status, detail string) {
	_ = st.RecordStageRun(ctx, store.StageRun{Stage: stage, StartedAt: started, FinishedAt: finished, Status: status, Detail: detail})
}

// Plan is what every version's stages share, resolved once per command
// before any stage runs: the redaction, Phase 1's provider and Phase 2's
// consolidator with what answers it. A command that runs one phase leaves
// the other's fields zero.
type Plan struct {
	Redact       func(string) string
	Extract      Provider
	Consolidator consolidate.Consolidator
	Consolidate  Provider
}

// PruneRequest is what a command asks of retention: its flags (the
// retention window is memories.max_unused_days, which a flag sets in the
// config).
type PruneRequest struct {
	DryRun bool
}

// pruneStore drops the raw memories unused for max_unused_days from a
// version's store (Codex's retention; it costs no tokens) and records the
// stage run unless dryRun.
func (h *Home) pruneStore(ctx context.Context, st *store.Store, version memversion.Version, dryRun bool) (prune.Result, error) {
	started := h.Now()
	res, err := prune.Run(ctx, st, h.cfg.Memories.MaxUnusedDays, dryRun)
	if err != nil {
		return res, fmt.Errorf("prune %s: %w", version, err)
	}
	if !dryRun {
		recordStage(ctx, st, "prune", started, h.Now(), "ok", fmt.Sprintf("pruned %d", res.Pruned))
	}
	return res, nil
}

// pruneVersion opens a version's store and prunes it.
func (h *Home) pruneVersion(ctx context.Context, version memversion.Version, dryRun bool) (prune.Result, error) {
	st, err := h.OpenStore(ctx, version)
	if err != nil {
		return prune.Result{}, err
	}
	defer st.Close()
	return h.pruneStore(ctx, st, version, dryRun)
}

// Prune prunes every version's store, the first first, and adds up what
// they pruned; the first error stops the loop.
func (h *Home) Prune(ctx context.Context, req PruneRequest) (prune.Result, error) {
	total := prune.Result{ThreadIDs: []string{}, DryRun: req.DryRun}
	for _, v := range h.Versions() {
		res, err := h.pruneVersion(ctx, v, req.DryRun)
		if err != nil {
			return total, err
		}
		total.Pruned += res.Pruned
		total.ThreadIDs = append(total.ThreadIDs, res.ThreadIDs...)
	}
	return total, nil
}

// StageStatus is how a stage without its own result ended: ok, failed (with
// the error) or skipped_dry_run.
type StageStatus struct {
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

// prepare repairs the layout of a version's memory folder before its
// stages run. A dry run changes nothing and says so.
func (h *Home) prepare(version memversion.Version, dryRun bool) (StageStatus, error) {
	if dryRun {
		return StageStatus{Status: "skipped_dry_run"}, nil
	}
	if err := h.Prepare(version); err != nil {
		return StageStatus{Status: "failed", Error: err.Error()}, err
	}
	return StageStatus{Status: "ok"}, nil
}

// Prepare creates or repairs the layout of a version's memory folder, as
// `memctl run` does before its stages.
func (h *Home) Prepare(version memversion.Version) error {
	if err := h.ensureDir(); err != nil {
		return err
	}
	return consolidate.PrepareLayout(h.MemoryRoot(version), h.cfg.Templates.Dir, h.Now())
}
