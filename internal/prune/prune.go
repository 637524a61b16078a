// Package prune is memctl's retention stage: it forgets raw memories that
// no consolidation selected and that nobody cited for max_unused_days
// (Codex's rule, at most 200 per run, stalest first). A memory never used
// ages from when memctl generated it, not from its thread's update alone,
// so a first run over old history keeps what it extracted
// (docs/retention.md). It runs before the rate-limit guard because it
// costs no tokens.
package prune

import (
	"context"

	"github.com/memctl/memctl/internal/store"
)

// Store is the part of the store prune needs.
type Store interface {
	Prune(ctx context.Context, maxUnusedDays, limit int, dryRun bool) ([]string, error)
}

// Result says what was (or, with DryRun, would be) pruned.
type Result struct {
	Pruned    int      `json:"pruned"`
	ThreadIDs []string `json:"thread_ids"`
	DryRun    bool     `json:"dry_run,omitempty"`
}

// Run prunes one store.
func Run(ctx context.Context, s Store, maxUnusedDays int, dryRun bool) (Result, error) {
	ids, err := s.Prune(ctx, maxUnusedDays, store.PruneLimit, dryRun)
	if err != nil {
		return Result{}, err
	}
	if ids == nil {
		ids = []string{}
	}
	return Result{Pruned: len(ids), ThreadIDs: ids, DryRun: dryRun}, nil
}
