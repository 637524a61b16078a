package extract

import (
	"fmt"
	"time"

	"github.com/memctl/memctl/pkg/store"
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
}

// Explain evaluates every condition for one thread. job and out may be nil.
func Explain(t store.Thread, job *store.Job, out *store.Output, w Window, now time.Time) Eligibility {
	var e Eligibility
	add := func(name string, ok bool, detail string, args ...any) {
		e.Checks = append(e.Checks, Check{Name: name, OK: ok, Detail: fmt.Sprintf(detail, args...)})
	}
	add("source", !w.InteractiveOnly || (t.Interactive && !t.Subagent), "source %q (interactive %v, sub-agent %v)", t.Source, t.Interactive, t.Subagent)
	add("memory_mode", t.MemoryMode == "enabled", "memory mode %s", t.MemoryMode)
	add("not_archived", !t.Archived, "archived %v", t.Archived)
	add("has_preview", t.Preview != "", "a first human message is %s", map[bool]string{true: "present", false: "missing"}[t.Preview != ""])
	age := now.Sub(t.UpdatedAt)
	add("age", age <= time.Duration(w.MaxAgeDays)*24*time.Hour, "updated %s ago, window %d days (extract --all ignores it)", age.Round(time.Minute), w.MaxAgeDays)
	add("idle", age >= time.Duration(w.MinIdleHours)*time.Hour, "idle %s, needs %d hours (extract --all ignores it)", age.Round(time.Minute), w.MinIdleHours)
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
