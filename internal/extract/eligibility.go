package extract

import (
	"context"
	"slices"
	"time"

	"github.com/memctl/memctl/internal/store"
)

// Check is one condition of Phase 1 eligibility.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

// Eligibility explains whether a thread would be claimed by the next
// extract, condition by condition (the same ones Candidates and the claim
// apply).
type Eligibility struct {
	Eligible bool    `json:"eligible"`
	Checks   []Check `json:"checks"`
}

// Window is the part of the config eligibility depends on: the candidate
// filter of the claim, so the explanation applies the claim's own rules.
type Window = store.CandidateFilter

// Explain evaluates every condition for one thread: the candidate rules of
// the claim query (store.CandidateRules), then the claim's own checks of
// the thread's job and output (store.ClaimRules). job and out may be nil.
func Explain(t store.Thread, job *store.Job, out *store.Output, w Window, now time.Time) Eligibility {
	var e Eligibility
	add := func(name string, ok bool, detail string) {
		e.Checks = append(e.Checks, Check{Name: name, OK: ok, Detail: detail})
	}
	for _, r := range store.CandidateRules() {
		ok := r.Holds(t, w, now)
		if ok && r.ShownWhenFailing {
			continue
		}
		add(r.Name, ok, r.Detail(t, w, now))
	}
	claim := store.ClaimState{Watermark: t.UpdatedAt.Unix(), Job: job, Output: out, Now: now.Unix()}
	for _, r := range store.ClaimRules() {
		if r.NeedsJob && job == nil {
			continue
		}
		add(r.Name, r.Holds(claim), r.Detail(claim))
	}
	if job != nil && job.LastError != "" {
		add("last_error", true, job.LastError)
	}
	e.Eligible = true
	for _, c := range e.Checks {
		if !c.OK {
			e.Eligible = false
		}
	}
	return e
}

// Reasons a thread was not claimed, as WhyNotClaimed counts them (and
// `extract --json` reports them under not_claimed). A failed candidate
// rule or claim check counts under its own reason (store.Reason*).
const (
	ReasonUpToDate  = store.ReasonUpToDate
	ReasonRunning   = store.ReasonRunning
	ReasonBackoff   = store.ReasonBackoff
	ReasonNoRetries = store.ReasonNoRetries
	ReasonOverLimit = "over_limit" // eligible, but past --max or excluded this run
)

// reasonOf names why an explained thread was not claimed: the first
// candidate rule it fails, except that a thread whose version was already
// extracted says so rather than that it has since aged out of a window
// (the windows only decide whether a new version is extracted).
func reasonOf(t store.Thread, e Eligibility) string {
	failed := map[string]bool{}
	for _, c := range e.Checks {
		if !c.OK {
			failed[c.Name] = true
		}
	}
	rules := store.CandidateRules()
	for _, r := range rules {
		if !r.Window && failed[r.Name] {
			return r.Reason(t)
		}
	}
	claims := store.ClaimRules()
	if failed[store.CheckUpToDate] {
		return ReasonUpToDate
	}
	for _, r := range rules {
		if failed[r.Name] {
			return r.Reason(t)
		}
	}
	for _, r := range claims {
		if failed[r.Name] {
			return r.Reason
		}
	}
	return ReasonOverLimit
}

// WhyNotClaimed counts the threads of st that a run did not claim, by the
// first condition each fails (the order of Explain), so `extract` can say
// why "0 threads" rather than leave the user guessing. claimed lists the
// ids the run claimed; only (non-empty) only considers those ids, as
// --thread does; allWindows drops the age and idle windows (--all).
func WhyNotClaimed(ctx context.Context, st *store.Store, w Window, allWindows bool, claimed, only []string, now time.Time) (map[string]int, error) {
	t, err := TallyThreads(ctx, st, w, allWindows, claimed, only, now)
	return t.All, err
}

// Tally counts threads by the reason WhyNotClaimed gives (ReasonOverLimit:
// eligible): all of them, and the first run's past sessions among them
// (those updated at or before the window's BacklogUntil).
type Tally struct {
	All, Past map[string]int
}

// PastLeft counts the past sessions a claim may still take: eligible now,
// or waiting for a retry or for another process's claim to end.
func (t Tally) PastLeft() int {
	return t.Past[ReasonOverLimit] + t.Past[ReasonBackoff] + t.Past[ReasonRunning]
}

// TallyThreads is WhyNotClaimed's count, with the past sessions counted
// apart (Tally).
func TallyThreads(ctx context.Context, st *store.Store, w Window, allWindows bool, claimed, only []string, now time.Time) (Tally, error) {
	tally := Tally{All: map[string]int{}, Past: map[string]int{}}
	threads, err := st.ListThreads(ctx, store.ThreadFilter{})
	if err != nil {
		return tally, err
	}
	jobs, err := st.Jobs(ctx)
	if err != nil {
		return tally, err
	}
	outs, err := st.AllOutputs(ctx)
	if err != nil {
		return tally, err
	}
	jobOf := map[string]*store.Job{}
	for i := range jobs {
		if jobs[i].Kind == store.KindStage1 {
			jobOf[jobs[i].Key] = &jobs[i]
		}
	}
	outOf := map[string]*store.Output{}
	for i := range outs {
		outOf[outs[i].ThreadID] = &outs[i]
	}
	skip := map[string]bool{}
	for _, id := range claimed {
		skip[id] = true
	}
	var want map[string]bool
	if len(only) > 0 {
		want = map[string]bool{}
		for _, id := range only {
			want[id] = true
		}
	}
	for _, tw := range threads {
		t := tw.Thread
		if skip[t.ID] || (want != nil && !want[t.ID]) {
			continue
		}
		e := Explain(t, jobOf[t.ID], outOf[t.ID], w, now)
		if allWindows {
			// --all ignores both windows: drop those checks before asking why.
			e.Checks = slices.DeleteFunc(e.Checks, func(c Check) bool { return c.Name == "age" || c.Name == "idle" })
		}
		reason := reasonOf(t, e)
		tally.All[reason]++
		if store.PastSession(t, w) {
			tally.Past[reason]++
		}
	}
	return tally, nil
}
