package evidence

import (
	"os"
	"strings"
)

// Notice is a stale memory as the read path reports it (summary --json,
// the MCP tools): which memory, and what changed under it.
type Notice struct {
	ThreadID    string `json:"thread_id"`
	RolloutFile string `json:"rollout_file"`
	Description string `json:"description"`
	// Dropped is set when everything the memory rested on is gone.
	Dropped  bool      `json:"dropped"`
	Problems []Problem `json:"problems"`
	// Handled is what the last consolidation did with it: demoted,
	// dropped, or "" when it was current then.
	Handled string `json:"handled,omitempty"`
}

// NoticeOf reports an assessment.
func NoticeOf(a Assessment) Notice {
	return Notice{ThreadID: a.Record.ThreadID, RolloutFile: a.Record.RolloutFile, Description: a.Record.Description,
		Dropped: a.Gone, Problems: a.Problems, Handled: a.Record.Handled}
}

// Summary says what changed, in one line.
func (n Notice) Summary() string {
	msgs := make([]string, 0, len(n.Problems))
	for _, p := range n.Problems {
		msgs = append(msgs, p.Message())
	}
	return strings.Join(msgs, "; ")
}

// Scan is the result of checking an index.
type Scan struct {
	Stale []Notice
	// Checked and Unchecked count the items: those the budget left
	// unchecked are not reported stale.
	Checked, Unchecked int
}

// CheckIndex reads the index at path and checks the records of scope
// ("" for all) with c, within its deadline. A missing or damaged index
// is an empty scan and its error: the caller decides whether that matters.
func CheckIndex(path, scope string, c *Checker) (Scan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Scan{}, err
	}
	var s Scan
	left, err := walkIndexCount(string(data), scope, func(r Record) bool {
		if c.Expired() {
			// Out of time: what is left is counted, not checked.
			c.Unchecked += len(r.Items)
			return false
		}
		if a := c.Assess(r); a.Stale() {
			s.Stale = append(s.Stale, NoticeOf(a))
		}
		return true
	})
	if err != nil {
		return Scan{}, err
	}
	s.Checked, s.Unchecked = c.Checked, c.Unchecked+left
	return s, nil
}

// Mentions reports whether text names the memory: its rollout summary,
// its thread id, or a file or command that changed under it.
func (n Notice) Mentions(text string) bool {
	if n.RolloutFile != "" && strings.Contains(text, baseName(n.RolloutFile)) {
		return true
	}
	if n.ThreadID != "" && strings.Contains(text, n.ThreadID) {
		return true
	}
	for _, p := range n.Problems {
		if distinctive(p.Ref) && strings.Contains(text, p.Ref) {
			return true
		}
	}
	return false
}

// distinctive keeps refs long enough not to match by accident.
func distinctive(ref string) bool {
	return len(ref) >= 6 && strings.ContainsAny(ref, "/. ")
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
