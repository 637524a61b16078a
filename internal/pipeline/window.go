package pipeline

import (
	"context"
	"errors"

	"github.com/memctl/memctl/internal/extract"
	"github.com/memctl/memctl/internal/store"
)

// Window is the candidate filter of a claim in this home: the config's
// age and idle windows (all drops them, as `extract --all` does),
// interactive sources only, and never a session run in a memory folder
// (MemoryRoots). `extract` claims through it, and `threads show`, `status`
// and eval's replay judge through it, so they cannot disagree.
func (h *Home) Window(all bool) store.CandidateFilter {
	m := h.cfg.Memories
	return store.CandidateFilter{MaxAgeDays: m.MaxRolloutAgeDays, MinIdleHours: m.MinRolloutIdleHours, AllWindows: all,
		InteractiveOnly: true, ExcludeCwdUnder: h.MemoryRoots()}
}

// nextWindow is the claim window of the version's next extraction
// without flags (--all, --max, --thread): the config's windows, and the
// first-run rule that extraction would apply (firstRunOf).
func (h *Home) nextWindow(ctx context.Context, st *store.Store) (store.CandidateFilter, *FirstRun, error) {
	w := h.Window(false)
	fr, wide, err := firstRunOf(ctx, st, w, h.cfg.Memories.MaxRolloutsPerStartup, h.Now(), h.asksFirst())
	if err != nil || fr == nil || fr.State == FirstRunAsks {
		return w, fr, err // without a yes, a first run that asks takes what the windows take
	}
	return wide, fr, nil
}

// Explain says, check by check, whether the next `memctl extract` (without
// --all) claims t: the claim's own window, with the first-run rule it
// would apply, and its checks of t's job and raw memory in st.
func (h *Home) Explain(ctx context.Context, st *store.Store, t store.Thread) (extract.Eligibility, error) {
	var out *store.Output
	if o, err := st.Output(ctx, t.ID); err == nil {
		out = &o
	} else if !errors.Is(err, store.ErrNotFound) {
		return extract.Eligibility{}, err
	}
	var job *store.Job
	if j, err := st.Job(ctx, store.KindStage1, t.ID); err == nil {
		job = &j
	} else if !errors.Is(err, store.ErrNotFound) {
		return extract.Eligibility{}, err
	}
	w, _, err := h.nextWindow(ctx, st)
	if err != nil {
		return extract.Eligibility{}, err
	}
	return extract.Explain(t, job, out, w, h.Now()), nil
}

// Candidacy counts a store's threads by what the next `memctl extract`
// (without --all or a limit) would do with them.
type Candidacy struct {
	// Eligible are the threads it would claim, were there no limit.
	Eligible int `json:"eligible"`
	// NotEligible counts the others by the reason extract reports them
	// under (not_claimed of `extract --json`).
	NotEligible map[string]int `json:"not_eligible"`
	// Takes is how many of the eligible threads it claims:
	// memories.max_rollouts_per_startup, and every past session while
	// the first run's rule holds.
	Takes int `json:"takes"`
	// FirstRun is the first run the next extraction is under, or nil.
	FirstRun *FirstRun `json:"first_run,omitempty"`
}

// Candidacy counts st's threads by whether the next extract claims them,
// with the same checks and reasons as the claim and its explanation, and
// says how many it takes.
func (h *Home) Candidacy(ctx context.Context, st *store.Store) (Candidacy, error) {
	w, fr, err := h.nextWindow(ctx, st)
	if err != nil {
		return Candidacy{}, err
	}
	counts, err := extract.WhyNotClaimed(ctx, st, w, false, nil, nil, h.Now())
	if err != nil {
		return Candidacy{}, err
	}
	c := Candidacy{Eligible: counts[extract.ReasonOverLimit], NotEligible: counts, FirstRun: fr}
	delete(counts, extract.ReasonOverLimit)
	limit := h.cfg.Memories.MaxRolloutsPerStartup
	if fr != nil && fr.State != FirstRunAsks {
		limit += fr.PastSessions
	}
	c.Takes = min(c.Eligible, limit)
	return c, nil
}
