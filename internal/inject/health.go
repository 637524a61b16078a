package inject

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/evidence"
	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/quarantine"
	"github.com/memctl/memctl/internal/textcut"
)

// Caps on what a summary says about stale memory, so the notice never
// crowds out the memory itself.
const (
	maxStaleListed = 8
	maxStaleMarks  = 40
	staleMark      = " [stale: see below]"
)

// Checks configures the health checks run on a summary before it is
// injected: the stale checks of the folder's evidence index, and the
// scrub of instruction-shaped lines.
type Checks struct {
	// Stale turns the evidence checks on.
	Stale bool
	// Budget bounds the time spent on them (0: evidence.DefaultBudget);
	// memory left unchecked when it runs out is not flagged.
	Budget time.Duration
	// RewriteThreshold: the share of a file's lines that must be gone
	// for it to count as rewritten (0: half).
	RewriteThreshold float64
	// Scope limits the checks to one project's memories ("" for all).
	Scope string
	// Now is the clock the budget is measured with (nil: time.Now).
	Now func() time.Time
}

// applyChecks checks the evidence of root's memories, cuts the summary to
// maxTokens leaving room for the stale notice and the marks, scrubs
// instruction-shaped lines from what is left, marks the lines that name a
// stale memory and appends the notice, which the cut never removes. The
// cut comes first so that the scrub and the marks work on at most the
// injected text, however long memory_summary.md grew.
func applyChecks(root, summary string, maxTokens int, c *Checks, res *SummaryResult) string {
	var shown []evidence.Notice
	var notice string
	if c != nil && c.Stale {
		scan := staleScan(root, c)
		res.Stale, res.StaleUnchecked = scan.Stale, scan.Unchecked
		// A memory the last consolidation dropped is no longer in the
		// summary: the notice would only repeat the consolidation.
		for _, n := range scan.Stale {
			if !(n.Dropped && n.Handled == evidence.HandledDropped) {
				shown = append(shown, n)
			}
		}
		if len(shown) > 0 {
			notice = staleNotice(shown)
		}
	}
	budget := maxTokens
	if notice != "" {
		reserve := textcut.ApproxTokens(notice) + (maxStaleMarks*len(staleMark)+3)/4 + 1
		budget = max(maxTokens-reserve, maxTokens/2)
	}
	cut := textcut.MiddleTokens(summary, budget)
	res.Truncated = cut != summary
	cut, res.QuarantinedLines = quarantine.Scrub(cut)
	if notice == "" {
		return cut
	}
	return markStale(cut, shown) + "\n\n" + notice
}

func staleScan(root string, c *Checks) evidence.Scan {
	now := c.Now
	if now == nil {
		now = time.Now
	}
	budget := c.Budget
	if budget <= 0 {
		budget = evidence.DefaultBudget
	}
	checker := &evidence.Checker{Deadline: now().Add(budget), Now: now, RewriteThreshold: c.RewriteThreshold}
	scan, _ := evidence.CheckIndex(filepath.Join(root, memdir.EvidenceIndexFile), c.Scope, checker)
	return scan
}

// markStale tags the lines of the summary that name a stale memory.
func markStale(summary string, stale []evidence.Notice) string {
	// Most stale memories are not named in the (cut) summary at all: look
	// for each once in the whole text before going line by line.
	var named []evidence.Notice
	for _, n := range stale {
		if n.Mentions(summary) {
			named = append(named, n)
		}
	}
	if len(named) == 0 {
		return summary
	}
	stale = named
	lines := strings.Split(summary, "\n")
	marked := 0
	for i, l := range lines {
		if marked == maxStaleMarks {
			break
		}
		if strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "#") || strings.Contains(l, "(stale:") {
			continue
		}
		for _, n := range stale {
			if n.Mentions(l) {
				lines[i] = l + staleMark
				marked++
				break
			}
		}
	}
	return strings.Join(lines, "\n")
}

// staleNotice is the section appended to the summary.
func staleNotice(stale []evidence.Notice) string {
	var b strings.Builder
	b.WriteString("## Stale memory\n\n")
	b.WriteString("Checked just now: what these memories rest on changed after they were written. Read them as history, and check the code before relying on them.\n")
	for i, n := range stale {
		if i == maxStaleListed {
			fmt.Fprintf(&b, "- and %d more; `memctl doctor` lists them all\n", len(stale)-i)
			break
		}
		what := textcut.Words(n.Description, 100)
		fmt.Fprintf(&b, "- %s (%s): %s\n", what, n.RolloutFile, textcut.Words(n.Summary(), 240))
	}
	return strings.TrimRight(b.String(), "\n")
}
