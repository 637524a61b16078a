// Package pipeline runs memctl's stages for one memory version: Phase 1
// (extract) and Phase 2 (consolidate) on a version's store and memory
// folder, each returning a report. It is what `memctl run`, `extract` and
// `consolidate` share; cmd/ resolves flags and config into the stage
// inputs and renders the reports.
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

// Progress shows a stage's progress to a person: called as the stage
// starts with what it does and what it counts (unit, "" for nothing), it
// returns the function that sets how far the stage is and the one that
// ends the display. nil shows nothing.
type Progress func(label, unit string) (set func(done, total int), done func())

func (p Progress) start(label, unit string) (set func(done, total int), done func()) {
	if p == nil {
		return func(int, int) {}, func() {}
	}
	return p(label, unit)
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

// Prune drops the raw memories unused for maxUnusedDays from a version's
// store (Codex's retention; it costs no tokens) and records the stage run
// unless dryRun.
func Prune(ctx context.Context, st *store.Store, version memversion.Version, maxUnusedDays int, dryRun bool, now func() time.Time) (prune.Result, error) {
	started := now()
	res, err := prune.Run(ctx, st, maxUnusedDays, dryRun)
	if err != nil {
		return res, fmt.Errorf("prune %s: %w", version, err)
	}
	if !dryRun {
		recordStage(ctx, st, "prune", started, now(), "ok", fmt.Sprintf("pruned %d", res.Pruned))
	}
	return res, nil
}

// PruneVersions prunes every version's store (PruneVersion), the first
// first, and adds up what they pruned; the first error stops the loop.
func PruneVersions(ctx context.Context, open OpenStore, versions []memversion.Version, maxUnusedDays int, dryRun bool, now func() time.Time) (prune.Result, error) {
	total := prune.Result{ThreadIDs: []string{}, DryRun: dryRun}
	for _, v := range versions {
		res, err := PruneVersion(ctx, open, v, maxUnusedDays, dryRun, now)
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

// Prepare repairs the layout of a version's memory folder before its
// stages run. A dry run changes nothing and says so.
func Prepare(root, templateDir string, now time.Time, dryRun bool) (StageStatus, error) {
	if dryRun {
		return StageStatus{Status: "skipped_dry_run"}, nil
	}
	if err := consolidate.PrepareLayout(root, templateDir, now); err != nil {
		return StageStatus{Status: "failed", Error: err.Error()}, err
	}
	return StageStatus{Status: "ok"}, nil
}
