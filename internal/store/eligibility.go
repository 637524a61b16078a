package store

import (
	"fmt"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/humantime"
)

// CandidateRule is one condition a thread must meet to be a Phase 1
// candidate. Candidates builds its WHERE clause from CandidateRules and
// extract.Explain evaluates the same list in Go, so the claim and the
// explanation of a thread cannot drift apart (a test runs both over a table
// of threads).
type CandidateRule struct {
	// Name is the check's name in `threads show --json` (eligibility.checks).
	Name string
	// Window marks the age and idle windows, which `extract --all` drops.
	Window bool
	// ShownWhenFailing: the check appears in an explanation only when it
	// fails (rare conditions that would otherwise pad every explanation).
	ShownWhenFailing bool
	// where returns the SQL condition and its arguments; "" when the rule
	// does not apply under f.
	where func(f CandidateFilter, now time.Time) (string, []any)
	// holds evaluates the condition on one thread.
	holds func(t Thread, f CandidateFilter, now time.Time) bool
	// detail says what the condition looked at, for people.
	detail func(t Thread, f CandidateFilter, now time.Time) string
	// reason is the not_claimed reason a failure counts under.
	reason func(t Thread) string
}

// Reasons a thread was not claimed for a failed CandidateRule, as
// extract.WhyNotClaimed counts them and `extract --json` reports them under
// not_claimed.
const (
	ReasonNonInteractive = "non_interactive"  // an exec / SDK source, not extracted by default
	ReasonSubagent       = "sub_agent"        // folded into its parent instead
	ReasonImported       = "imported"         // an imported memory: no transcript here
	ReasonMemoryDisabled = "memory_disabled"  // memory_mode disabled or polluted
	ReasonMemoryFolder   = "in_memory_folder" // an agent consolidation's own session
	ReasonArchived       = "archived"
	ReasonNoPreview      = "no_human_message"
	ReasonTooOld         = "too_old"  // outside memories.max_rollout_age_days
	ReasonNotIdle        = "not_idle" // younger than memories.min_rollout_idle_hours
)

// Holds reports whether t meets the rule under f at now.
func (r CandidateRule) Holds(t Thread, f CandidateFilter, now time.Time) bool {
	return r.holds(t, f, now)
}

// Detail says what the rule looked at in t, for people.
func (r CandidateRule) Detail(t Thread, f CandidateFilter, now time.Time) string {
	return r.detail(t, f, now)
}

// Reason is the not_claimed reason of a thread that fails the rule.
func (r CandidateRule) Reason(t Thread) string { return r.reason(t) }

// CandidateRules lists the conditions of Phase 1 candidacy in the order an
// explanation shows them; a thread's reason for not being claimed is the
// first it fails. An imported memory is said to be one before anything
// else: its thread row is no session of this machine, so what its source
// was says nothing.
func CandidateRules() []CandidateRule {
	fixed := func(reason string) func(Thread) string { return func(Thread) string { return reason } }
	return []CandidateRule{
		{
			Name: "not_imported", ShownWhenFailing: true,
			where: func(CandidateFilter, time.Time) (string, []any) { return "source_kind <> ?", []any{SourceImported} },
			holds: func(t Thread, _ CandidateFilter, _ time.Time) bool { return t.SourceKind != SourceImported },
			detail: func(Thread, CandidateFilter, time.Time) string {
				return "an imported memory: its transcript is not on this machine"
			},
			reason: fixed(ReasonImported),
		},
		{
			Name: "source",
			where: func(f CandidateFilter, _ time.Time) (string, []any) {
				if f.InteractiveOnly {
					return "subagent = 0 AND interactive = 1", nil
				}
				return "subagent = 0", nil
			},
			holds: func(t Thread, f CandidateFilter, _ time.Time) bool {
				return !t.Subagent && (t.Interactive || !f.InteractiveOnly)
			},
			detail: func(t Thread, _ CandidateFilter, _ time.Time) string {
				return fmt.Sprintf("source %q (interactive %v, sub-agent %v)", t.Source, t.Interactive, t.Subagent)
			},
			reason: func(t Thread) string {
				if t.Subagent {
					return ReasonSubagent
				}
				return ReasonNonInteractive
			},
		},
		{
			Name:   "memory_mode",
			where:  func(CandidateFilter, time.Time) (string, []any) { return "memory_mode = 'enabled'", nil },
			holds:  func(t Thread, _ CandidateFilter, _ time.Time) bool { return t.MemoryMode == "enabled" },
			detail: func(t Thread, _ CandidateFilter, _ time.Time) string { return "memory mode " + t.MemoryMode },
			reason: fixed(ReasonMemoryDisabled),
		},
		{
			Name: "outside_memory_folder", ShownWhenFailing: true,
			where: func(f CandidateFilter, _ time.Time) (string, []any) {
				var conds []string
				var args []any
				for _, dir := range excludedFolders(f) {
					conds = append(conds, "NOT (cwd = ? OR substr(cwd, 1, ?) = ?)")
					args = append(args, dir, len(dir)+1, dir+"/")
				}
				return strings.Join(conds, " AND "), args
			},
			holds: func(t Thread, f CandidateFilter, _ time.Time) bool { return cwdUnder(t.Cwd, excludedFolders(f)) == "" },
			detail: func(t Thread, f CandidateFilter, _ time.Time) string {
				return fmt.Sprintf("ran in the memory folder %s (an agent consolidation)", cwdUnder(t.Cwd, excludedFolders(f)))
			},
			reason: fixed(ReasonMemoryFolder),
		},
		{
			Name:   "not_archived",
			where:  func(CandidateFilter, time.Time) (string, []any) { return "archived = 0", nil },
			holds:  func(t Thread, _ CandidateFilter, _ time.Time) bool { return !t.Archived },
			detail: func(t Thread, _ CandidateFilter, _ time.Time) string { return fmt.Sprintf("archived %v", t.Archived) },
			reason: fixed(ReasonArchived),
		},
		{
			Name:  "has_preview",
			where: func(CandidateFilter, time.Time) (string, []any) { return "preview <> ''", nil },
			holds: func(t Thread, _ CandidateFilter, _ time.Time) bool { return t.Preview != "" },
			detail: func(t Thread, _ CandidateFilter, _ time.Time) string {
				return "a first human message is " + map[bool]string{true: "present", false: "missing"}[t.Preview != ""]
			},
			reason: fixed(ReasonNoPreview),
		},
		{
			Name: "age", Window: true,
			where: func(f CandidateFilter, now time.Time) (string, []any) {
				return orPastSession("updated_at_ms >= ?", f, oldestAllowed(f, now))
			},
			holds: func(t Thread, f CandidateFilter, now time.Time) bool {
				return t.UpdatedAt.UnixMilli() >= oldestAllowed(f, now) || PastSession(t, f)
			},
			detail: func(t Thread, f CandidateFilter, now time.Time) string {
				return windowDetail(t, f, fmt.Sprintf("updated %s ago, window %d days", humantime.Duration(now.Sub(t.UpdatedAt)), f.MaxAgeDays))
			},
			reason: fixed(ReasonTooOld),
		},
		{
			Name: "idle", Window: true,
			where: func(f CandidateFilter, now time.Time) (string, []any) {
				return orPastSession("updated_at_ms <= ?", f, newestAllowed(f, now))
			},
			holds: func(t Thread, f CandidateFilter, now time.Time) bool {
				return t.UpdatedAt.UnixMilli() <= newestAllowed(f, now) || PastSession(t, f)
			},
			detail: func(t Thread, f CandidateFilter, now time.Time) string {
				return windowDetail(t, f, fmt.Sprintf("idle %s, needs %d hours", humantime.Duration(now.Sub(t.UpdatedAt)), f.MinIdleHours))
			},
			reason: fixed(ReasonNotIdle),
		},
	}
}

// PastSession reports whether t is one of the first run's past sessions
// under f (updated at or before f.BacklogUntil), which the windows leave
// alone.
func PastSession(t Thread, f CandidateFilter) bool {
	return !f.BacklogUntil.IsZero() && t.UpdatedAt.UnixMilli() <= f.BacklogUntil.UnixMilli()
}

// orPastSession is a window's SQL condition cond (one argument, bound),
// widened to the first run's past sessions when f has a backlog.
func orPastSession(cond string, f CandidateFilter, bound int64) (string, []any) {
	if f.BacklogUntil.IsZero() {
		return cond, []any{bound}
	}
	return "(" + cond + " OR updated_at_ms <= ?)", []any{bound, f.BacklogUntil.UnixMilli()}
}

// windowDetail says what a window looked at in t, and for a past session
// of the first run why the window does not hold it back.
func windowDetail(t Thread, f CandidateFilter, looked string) string {
	if PastSession(t, f) {
		return looked + "; a past session of the first run (updated by " + f.BacklogUntil.UTC().Format(time.RFC3339) +
			"), which the window does not hold back until every past session is taken"
	}
	return looked + " (extract --all ignores it)"
}

// oldestAllowed and newestAllowed bound updated_at_ms by the age and idle
// windows, in the milliseconds the threads table stores.
func oldestAllowed(f CandidateFilter, now time.Time) int64 {
	return now.Add(-time.Duration(f.MaxAgeDays) * 24 * time.Hour).UnixMilli()
}

func newestAllowed(f CandidateFilter, now time.Time) int64 {
	return now.Add(-time.Duration(f.MinIdleHours) * time.Hour).UnixMilli()
}

// excludedFolders are f's ExcludeCwdUnder without trailing slashes, the
// empty ones dropped.
func excludedFolders(f CandidateFilter) []string {
	var out []string
	for _, d := range f.ExcludeCwdUnder {
		if d = strings.TrimRight(d, "/"); d != "" {
			out = append(out, d)
		}
	}
	return out
}

// cwdUnder returns the folder of dirs that cwd is, or is inside; "" if none.
func cwdUnder(cwd string, dirs []string) string {
	for _, d := range dirs {
		if cwd == d || strings.HasPrefix(cwd, d+"/") {
			return d
		}
	}
	return ""
}

// candidateWhere is the WHERE clause of the candidate query: every rule
// that applies (the windows unless f.AllWindows), then f's selection of
// threads.
func candidateWhere(f CandidateFilter, now time.Time) (string, []any) {
	var where []string
	var args []any
	for _, r := range CandidateRules() {
		if r.Window && f.AllWindows {
			continue
		}
		if cond, a := r.where(f, now); cond != "" {
			where = append(where, cond)
			args = append(args, a...)
		}
	}
	if f.ExcludeID != "" {
		where = append(where, "id <> ?")
		args = append(args, f.ExcludeID)
	}
	if len(f.ThreadIDs) > 0 {
		ph := make([]string, len(f.ThreadIDs))
		for i, id := range f.ThreadIDs {
			ph[i] = "?"
			args = append(args, id)
		}
		where = append(where, "id IN ("+strings.Join(ph, ",")+")")
	}
	return strings.Join(where, " AND "), args
}

// ClaimState is what the claim of a thread's Phase 1 job looks at beyond
// the thread itself: the version of the thread being claimed, the job and
// the raw memory this memory version holds of it, and the clock.
type ClaimState struct {
	// Watermark is the thread's updated time (unix seconds): the version
	// the claim extracts.
	Watermark int64
	Job       *Job    // nil: the thread has no job yet
	Output    *Output // nil: no raw memory
	Now       int64   // unix seconds
}

// advanced reports whether the thread changed since its job last took it:
// a new version resets the retry budget and skips the backoff.
func (c ClaimState) advanced() bool {
	return c.Job.InputWatermark == nil || c.Watermark > *c.Job.InputWatermark
}

// ClaimRule is one check of the claim itself, made after the candidate
// rules: on the job row and raw memory of the thread. TryClaimStage1 builds
// its SQL from ClaimRules and extract.Explain evaluates the same rows in
// Go, so the claim and the explanation cannot drift apart (a test runs
// both over a table of jobs).
type ClaimRule struct {
	// Name is the check's name in `threads show --json`.
	Name string
	// Reason is the not_claimed reason a failure counts under.
	Reason string
	// Outcome is what TryClaimStage1 returns when the check fails.
	Outcome ClaimOutcome
	// NeedsJob: the check has nothing to look at (and is not shown)
	// before the thread has a job.
	NeedsJob bool
	// onJobRow: sql is a condition on the job's row alone, which the
	// claim's update of an existing job checks.
	onJobRow bool
	// sql is the condition, over the job's row unless it names its own
	// tables, with the named arguments :kind, :key, :watermark and :now.
	sql string
	// holds is the same condition in Go.
	holds func(c ClaimState) bool
	// detail says what the check looked at, for people.
	detail func(c ClaimState) string
}

// Holds reports whether the claim's check passes on c.
func (r ClaimRule) Holds(c ClaimState) bool { return r.holds(c) }

// Detail says what the check looked at in c, for people.
func (r ClaimRule) Detail(c ClaimState) string { return r.detail(c) }

// Reasons a thread was not claimed for a failed ClaimRule.
const (
	ReasonUpToDate  = "up_to_date"
	ReasonRunning   = "running" // another process holds the claim
	ReasonBackoff   = "backoff" // failed less than an hour ago
	ReasonNoRetries = "no_retries_left"
)

// The names of the claim's checks.
const (
	CheckUpToDate = "not_up_to_date"
	CheckRunning  = "not_running"
	CheckBackoff  = "backoff"
	CheckRetries  = "retries_left"
)

// ClaimRules lists the claim's checks in the order an explanation shows
// them.
func ClaimRules() []ClaimRule {
	return []ClaimRule{
		{
			Name: CheckUpToDate, Reason: ReasonUpToDate, Outcome: SkippedUpToDate,
			// An output or a success already covers this version (Codex 3.6
			// steps 1–2).
			sql: `NOT EXISTS (SELECT 1 FROM stage1_outputs WHERE thread_id = :key AND source_updated_at >= :watermark)
  AND NOT EXISTS (SELECT 1 FROM jobs WHERE kind = :kind AND job_key = :key AND last_success_watermark >= :watermark)`,
			holds: func(c ClaimState) bool { return !upToDate(c) },
			detail: func(c ClaimState) string {
				if upToDate(c) {
					return "this version of the thread was already extracted"
				}
				return "this version of the thread has not been extracted"
			},
		},
		{
			Name: CheckRunning, Reason: ReasonRunning, Outcome: SkippedRunning, NeedsJob: true, onJobRow: true,
			sql: `(status <> 'running' OR lease_until IS NULL OR lease_until <= :now)`,
			holds: func(c ClaimState) bool {
				j := c.Job
				return j == nil || !(j.Status == "running" && j.LeaseUntil != nil && *j.LeaseUntil > c.Now)
			},
			detail: func(c ClaimState) string { return "job status " + c.Job.Status },
		},
		{
			Name: CheckBackoff, Reason: ReasonBackoff, Outcome: SkippedRetryBackoff, NeedsJob: true, onJobRow: true,
			sql: `(retry_at IS NULL OR retry_at <= :now OR :watermark > COALESCE(input_watermark, -1))`,
			holds: func(c ClaimState) bool {
				j := c.Job
				return j == nil || !(j.RetryAt != nil && *j.RetryAt > c.Now && !c.advanced())
			},
			detail: func(c ClaimState) string {
				if j := c.Job; j.RetryAt != nil && *j.RetryAt > c.Now {
					return "retry after " + time.Unix(*j.RetryAt, 0).UTC().Format(time.RFC3339)
				}
				return "no backoff"
			},
		},
		{
			Name: CheckRetries, Reason: ReasonNoRetries, Outcome: SkippedRetryExhausted, onJobRow: true,
			sql:   `(retry_remaining > 0 OR :watermark > COALESCE(input_watermark, -1))`,
			holds: func(c ClaimState) bool { return c.Job == nil || c.Job.RetryRemaining > 0 || c.advanced() },
			detail: func(c ClaimState) string {
				if c.Job == nil {
					return fmt.Sprintf("%d retries left (no job yet)", DefaultRetries)
				}
				return fmt.Sprintf("%d retries left for this version", c.Job.RetryRemaining)
			},
		},
	}
}

// upToDate: a raw memory or a successful job already covers c's version.
func upToDate(c ClaimState) bool {
	return (c.Output != nil && c.Output.SourceUpdatedAt >= c.Watermark) ||
		(c.Job != nil && c.Job.LastSuccessWatermark != nil && *c.Job.LastSuccessWatermark >= c.Watermark)
}

// claimRule returns the claim rule named name.
func claimRule(name string) ClaimRule {
	for _, r := range ClaimRules() {
		if r.Name == name {
			return r
		}
	}
	panic("store: no claim rule " + name)
}

// jobRowRules is the WHERE condition of the claim's update of an existing
// job: every rule on the job's row.
func jobRowRules() string {
	var conds []string
	for _, r := range ClaimRules() {
		if r.onJobRow {
			conds = append(conds, r.sql)
		}
	}
	return strings.Join(conds, "\n  AND ")
}

// whyNotClaimed is the outcome of a claim of an existing job that the
// update did not take: the most lasting cause first (no retries left,
// then the backoff, then another process's lease); when every rule holds,
// the cap on running jobs was reached.
func whyNotClaimed(c ClaimState) ClaimOutcome {
	for _, name := range []string{CheckRetries, CheckBackoff, CheckRunning} {
		if r := claimRule(name); !r.holds(c) {
			return r.Outcome
		}
	}
	return SkippedRunning
}
