package memmodel

import (
	"strings"

	"github.com/memctl/memctl/internal/evidence"
	"github.com/memctl/memctl/internal/textcut"
)

// Stale is the mark of a selected memory whose evidence changed since
// extraction.
type Stale struct {
	Problems []evidence.Problem
	// Gone: everything it rested on is gone, so it is dropped from the
	// summary (MEMORY.md and its rollout summary keep it, marked).
	Gone bool
}

// Note says what changed, in one line, for the files a consolidator reads.
func (s Stale) Note() string {
	msgs := make([]string, 0, len(s.Problems))
	for _, p := range s.Problems {
		msgs = append(msgs, p.Message())
	}
	return strings.Join(msgs, "; ")
}

// Dropped reports a memory that is left out of the summary.
func (m Memory) Dropped() bool { return m.Stale != nil && m.Stale.Gone }

// StaleNote is what the summary says next to a stale memory.
func (m Memory) StaleNote() string {
	if m.Stale == nil {
		return ""
	}
	return " (stale: " + textcut.Words(m.Stale.Note(), MaxSummaryItem) + ")"
}

// MarkStale attaches the run's stale verdicts, by thread id, to the
// parsed memories. A memory the user pinned or wrote is demoted at most,
// never dropped: the user chose to keep it.
func MarkStale(mems []Memory, stale map[string]Stale) {
	for i := range mems {
		if st, ok := stale[mems[i].Sel.ThreadID]; ok {
			if mems[i].Sel.Pinned || mems[i].Sel.UserAsserted {
				st.Gone = false
			}
			mems[i].Stale = &st
		}
	}
}

// Current returns the memories the summary may show.
func Current(mems []Memory) []Memory {
	var out []Memory
	for _, m := range mems {
		if !m.Dropped() {
			out = append(out, m)
		}
	}
	return out
}
