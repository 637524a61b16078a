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
				return "updated_at_ms >= ?", []any{oldestAllowed(f, now)}
			},
			holds: func(t Thread, f CandidateFilter, now time.Time) bool {
				return t.UpdatedAt.UnixMilli() >= oldestAllowed(f, now)
			},
			detail: func(t Thread, f CandidateFilter, now time.Time) string {
				return fmt.Sprintf("updated %s ago, window %d days (extract --all ignores it)", humantime.Duration(now.Sub(t.UpdatedAt)), f.MaxAgeDays)
			},
			reason: fixed(ReasonTooOld),
		},
		{
			Name: "idle", Window: true,
			where: func(f CandidateFilter, now time.Time) (string, []any) {
				return "updated_at_ms <= ?", []any{newestAllowed(f, now)}
			},
			holds: func(t Thread, f CandidateFilter, now time.Time) bool {
				return t.UpdatedAt.UnixMilli() <= newestAllowed(f, now)
			},
			detail: func(t Thread, f CandidateFilter, now time.Time) string {
				return fmt.Sprintf("idle %s, needs %d hours (extract --all ignores it)", humantime.Duration(now.Sub(t.UpdatedAt)), f.MinIdleHours)
			},
			reason: fixed(ReasonNotIdle),
		},
	}
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
