package extract

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/humantime"
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

// Window is the part of the config eligibility depends on.
type Window struct {
	MaxAgeDays      int
	MinIdleHours    int
	InteractiveOnly bool
	// ExcludeCwdUnder: threads run inside these folders (the memory
	// folders) are never extracted.
	ExcludeCwdUnder []string
}

// Explain evaluates every condition for one thread. job and out may be nil.
func Explain(t store.Thread, job *store.Job, out *store.Output, w Window, now time.Time) Eligibility {
	var e Eligibility
	add := func(name string, ok bool, detail string, args ...any) {
		e.Checks = append(e.Checks, Check{Name: name, OK: ok, Detail: fmt.Sprintf(detail, args...)})
	}
	add("source", !w.InteractiveOnly || (t.Interactive && !t.Subagent), "source %q (interactive %v, sub-agent %v)", t.Source, t.Interactive, t.Subagent)
	add("memory_mode", t.MemoryMode == "enabled", "memory mode %s", t.MemoryMode)
	if under := cwdUnder(t.Cwd, w.ExcludeCwdUnder); under != "" {
		add("outside_memory_folder", false, "ran in the memory folder %s (an agent consolidation)", under)
	}
	add("not_archived", !t.Archived, "archived %v", t.Archived)
	add("has_preview", t.Preview != "", "a first human message is %s", map[bool]string{true: "present", false: "missing"}[t.Preview != ""])
	age := now.Sub(t.UpdatedAt)
	add("age", age <= time.Duration(w.MaxAgeDays)*24*time.Hour, "updated %s ago, window %d days (extract --all ignores it)", humantime.Duration(age), w.MaxAgeDays)
	add("idle", age >= time.Duration(w.MinIdleHours)*time.Hour, "idle %s, needs %d hours (extract --all ignores it)", humantime.Duration(age), w.MinIdleHours)
	wm := t.UpdatedAt.Unix()
	upToDate := (out != nil && out.SourceUpdatedAt >= wm) || (job != nil && job.LastSuccessWatermark != nil && *job.LastSuccessWatermark >= wm)
	add("not_up_to_date", !upToDate, "this version of the thread %s", map[bool]string{true: "was already extracted", false: "has not been extracted"}[upToDate])
	if job != nil {
		advanced := job.InputWatermark == nil || wm > *job.InputWatermark
		running := job.Status == "running" && job.LeaseUntil != nil && *job.LeaseUntil > now.Unix()
		add("not_running", !running, "job status %s", job.Status)
		backoff := job.RetryAt != nil && *job.RetryAt > now.Unix() && !advanced
		detail := "no backoff"
		if job.RetryAt != nil && *job.RetryAt > now.Unix() {
			detail = "retry after " + time.Unix(*job.RetryAt, 0).UTC().Format(time.RFC3339)
		}
		add("backoff", !backoff, "%s", detail)
		add("retries_left", job.RetryRemaining > 0 || advanced, "%d retries left for this version", job.RetryRemaining)
		if job.LastError != "" {
			add("last_error", true, "%s", job.LastError)
		}
	} else {
		add("retries_left", true, "%d retries left (no job yet)", store.DefaultRetries)
	}
	e.Eligible = true
	for _, c := range e.Checks {
		if !c.OK {
			e.Eligible = false
		}
	}
	return e
}

// cwdUnder returns the folder of dirs that cwd is, or is inside; "" if none.
func cwdUnder(cwd string, dirs []string) string {
	for _, d := range dirs {
		d = strings.TrimRight(d, "/")
		if d != "" && (cwd == d || strings.HasPrefix(cwd, d+"/")) {
			return d
		}
	}
	return ""
}

// Reasons a thread was not claimed, as WhyNotClaimed counts them (and
// `extract --json` reports them under not_claimed).
const (
	ReasonNonInteractive = "non_interactive"  // an exec / SDK source, not extracted by default
	ReasonSubagent       = "sub_agent"        // folded into its parent instead
	ReasonMemoryDisabled = "memory_disabled"  // memory_mode disabled or polluted
	ReasonMemoryFolder   = "in_memory_folder" // an agent consolidation's own session
	ReasonArchived       = "archived"
	ReasonNoPreview      = "no_human_message"
	ReasonTooOld         = "too_old"  // outside memories.max_rollout_age_days
	ReasonNotIdle        = "not_idle" // younger than memories.min_rollout_idle_hours
	ReasonUpToDate       = "up_to_date"
	ReasonRunning        = "running" // another process holds the claim
	ReasonBackoff        = "backoff" // failed less than an hour ago
	ReasonNoRetries      = "no_retries_left"
	ReasonOverLimit      = "over_limit" // eligible, but past --max or excluded this run
)

// reasonOf maps the first failed check of an Eligibility to a reason.
func reasonOf(t store.Thread, e Eligibility) string {
	for _, c := range e.Checks {
		if c.OK {
			continue
		}
		switch c.Name {
		case "source":
			if t.Subagent {
				return ReasonSubagent
			}
			return ReasonNonInteractive
		case "memory_mode":
			return ReasonMemoryDisabled
		case "outside_memory_folder":
			return ReasonMemoryFolder
		case "not_archived":
			return ReasonArchived
		case "has_preview":
			return ReasonNoPreview
		case "age":
			return ReasonTooOld
		case "idle":
			return ReasonNotIdle
		case "not_up_to_date":
			return ReasonUpToDate
		case "not_running":
			return ReasonRunning
		case "backoff":
			return ReasonBackoff
		case "retries_left":
			return ReasonNoRetries
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
	threads, err := st.ListThreads(ctx, store.ThreadFilter{})
	if err != nil {
		return nil, err
	}
	jobs, err := st.Jobs(ctx)
	if err != nil {
		return nil, err
	}
	outs, err := st.AllOutputs(ctx)
	if err != nil {
		return nil, err
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
	counts := map[string]int{}
	for _, tw := range threads {
		t := tw.Thread
		if skip[t.ID] || (want != nil && !want[t.ID]) {
			continue
		}
		e := Explain(t, jobOf[t.ID], outOf[t.ID], w, now)
		if allWindows {
			// --all ignores both windows: drop those checks before asking why.
			kept := e.Checks[:0:0]
			for _, c := range e.Checks {
				if c.Name != "age" && c.Name != "idle" {
					kept = append(kept, c)
				}
			}
			e.Checks = kept
		}
		counts[reasonOf(t, e)]++
	}
	return counts, nil
}
