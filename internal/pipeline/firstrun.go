package pipeline

import (
	"context"
	"time"

	"github.com/memctl/memctl/internal/extract"
	"github.com/memctl/memctl/internal/model"
	"github.com/memctl/memctl/internal/store"
)

// A version's first extraction takes every past session, not only those
// that Codex's windows let through (idle six hours, updated within ten
// days, two a run): those suit a machine memctl runs on every day, and on
// months of history they would take two sessions of dozens. The past
// sessions are the threads updated by the first run's clock, recorded in
// the store as its backlog; the windows leave them alone until every one
// is taken, so a first run cut short by Ctrl-C, a crash or a failed call
// is finished by the runs after it. --all widens the rule (the windows go
// for every thread); --max and --thread take what they say, and do not
// start a first run. With a model provider the first run asks before it
// takes more than the usual windows would (its estimate is measured as a
// dry run measures it); a yes is recorded with the backlog, so the runs
// that finish it do not ask again.

// First-run states, as FirstRun.State names them.
const (
	// FirstRunNext: the next run is the first, and takes every past
	// session.
	FirstRunNext = "next"
	// FirstRunAsks: the next run is the first, and asks before it takes
	// every past session (a model provider); without a yes it takes what
	// the usual windows take.
	FirstRunAsks = "asks"
	// FirstRunContinues: a first run was cut short; the next run takes
	// the past sessions it left.
	FirstRunContinues = "continues"
)

// FirstRun is where a memory version stands with its first run, as the
// next extraction without --max or --thread sees it.
type FirstRun struct {
	// State is FirstRunNext, FirstRunAsks or FirstRunContinues.
	State string `json:"state"`
	// PastSessions are the past sessions the next run may take under the
	// first-run rule (on a yes, when it asks).
	PastSessions int `json:"past_sessions"`
	// UsualTake is how many threads the usual windows and limit would
	// take instead, before the first run starts (what it takes without a
	// yes, when it asks).
	UsualTake int `json:"usual_take"`
	// Until is the first run's clock: threads updated at or before it are
	// past sessions.
	Until time.Time `json:"until"`
}

// firstRunOf says where st stands with its first run at now under the
// claim window w and limit: the backlog recorded and still open, or no
// first run yet (the version never extracted) with past sessions to
// take. It returns nil when the first run is behind it, or when there is
// nothing to take yet (a home with no session stays before its first
// run). The returned window lets the past sessions through: what the
// run takes under the rule (when it asks, only on a yes: ask is a model
// provider, and the state is FirstRunAsks when the past sessions are more
// than the usual windows take).
func firstRunOf(ctx context.Context, st *store.Store, w store.CandidateFilter, limit int, now time.Time, ask bool) (*FirstRun, store.CandidateFilter, error) {
	b, err := st.Backlog(ctx)
	if err != nil || (b != nil && !b.Open()) {
		return nil, w, err
	}
	fr := &FirstRun{State: FirstRunContinues}
	if b != nil {
		fr.Until = b.Until
	} else {
		never, err := st.NeverExtracted(ctx)
		if err != nil || !never {
			return nil, w, err
		}
		fr.State, fr.Until = FirstRunNext, now
	}
	wide := w
	wide.BacklogUntil = fr.Until
	tally, err := extract.TallyThreads(ctx, st, wide, false, nil, nil, now)
	if err != nil {
		return nil, w, err
	}
	fr.PastSessions = tally.Past[extract.ReasonOverLimit]
	if fr.State == FirstRunContinues {
		return fr, wide, nil
	}
	if fr.PastSessions == 0 {
		return nil, w, nil
	}
	usual, err := extract.TallyThreads(ctx, st, w, false, nil, nil, now)
	if err != nil {
		return nil, w, err
	}
	fr.UsualTake = min(usual.All[extract.ReasonOverLimit], limit)
	if ask && fr.PastSessions > fr.UsualTake {
		fr.State = FirstRunAsks
	}
	return fr, wide, nil
}

// asksFirst reports whether a first run in this home asks before it takes
// every past session: Phase 1 calls a model (the offline heuristic costs
// nothing). It resolves provider.kind as Plan does, building nothing.
func (h *Home) asksFirst() bool {
	if h.env.Provider != nil {
		return h.env.Provider.Provider != nil
	}
	return model.Resolve(model.Kind(h.cfg.Provider.Kind), h.env.Getenv) != model.KindHeuristic
}

// finishBacklog records that the first run's backlog is taken once no
// past session is left under w (none eligible, none waiting for a retry
// or another process's claim): from then on the windows hold for every
// thread.
func finishBacklog(ctx context.Context, st *store.Store, w store.CandidateFilter, now time.Time) error {
	w.AllWindows, w.ThreadIDs, w.ExcludeID = false, nil, ""
	tally, err := extract.TallyThreads(ctx, st, w, false, nil, nil, now)
	if err != nil || tally.PastLeft() > 0 {
		return err
	}
	return st.FinishBacklog(ctx)
}
