package pipeline

import (
	"context"

	"github.com/memctl/memctl/internal/extract"
	"github.com/memctl/memctl/internal/store"
)

// Backlog is a version's first run seen before it claims anything: how
// many past sessions it could take, how many the usual windows and limit
// take, and (with a model provider) what taking them all would send.
type Backlog struct {
	// Sessions is every past session the windows would let through if
	// ignored; Taken is what the usual windows and limit claim.
	Sessions, Taken int
	// ApproxTokens is the rendered input of every session, measured only
	// with a model provider (the offline heuristic costs nothing).
	ApproxTokens int
}

// Take widens ro to the whole backlog, as --all with no --max would.
func (b Backlog) Take(ro *extract.RunOptions) {
	ro.Filter.AllWindows = true
	ro.MaxClaims = max(b.Sessions, ro.MaxClaims)
}

// firstRunBacklog reports a version's first-run backlog: nil when the
// version already holds a raw memory or ran an extraction, or when the
// usual windows and limit already take every past session. Codex's windows
// (sessions idle six hours and updated within ten days, two claims a run)
// suit a machine memctl runs on every day; on a first run over months of
// history they take two sessions of dozens, so the caller may take
// the backlog; with a model provider it should ask first, which is why
// the input is measured here, as a dry run does.
func firstRunBacklog(ctx context.Context, st *store.Store, ro extract.RunOptions) (*Backlog, error) {
	s, err := st.Status(ctx)
	if err != nil {
		return nil, err
	}
	if s.RawMemories > 0 {
		return nil, nil
	}
	for _, c := range s.JobCounts {
		if c.Kind == store.KindStage1 {
			return nil, nil
		}
	}
	// No thread of this version was extracted yet, so none is up to date:
	// the candidates are what a run would claim.
	wideFilter := ro.Filter
	wideFilter.AllWindows = true
	all, err := st.Candidates(ctx, wideFilter)
	if err != nil {
		return nil, err
	}
	usual, err := st.Candidates(ctx, ro.Filter)
	if err != nil {
		return nil, err
	}
	b := &Backlog{Sessions: len(all), Taken: min(len(usual), ro.MaxClaims)}
	if b.Sessions <= b.Taken {
		return nil, nil
	}
	if ro.Provider == nil {
		return b, nil
	}
	wide := ro
	wide.Filter, wide.MaxClaims, wide.DryRun, wide.Progress = wideFilter, b.Sessions, true, nil
	dry, err := extract.Run(ctx, st, wide)
	if err != nil {
		return nil, err
	}
	b.ApproxTokens = dry.ApproxTokens
	return b, nil
}
