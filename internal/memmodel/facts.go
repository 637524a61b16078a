package memmodel

import (
	"fmt"
	"strings"

	"github.com/memctl/memctl/internal/rawmemory"
)

// Facts of the offline extractor about a command (a check, a fix, a
// failure line) and which newer fact supersedes an older one.

// SubjectOf names what a fact of the offline extractor is about: the
// command a Check, a Fix or a failure line is about ("" for anything
// else). Two such facts about the same command in one project that say
// it ended differently (passed, failed) disagree; the later one holds.
func SubjectOf(item string) string {
	s := item
	switch rawmemory.Tagged(s) {
	case rawmemory.TagCheck:
		s = strings.TrimPrefix(s, rawmemory.TagCheck)
	case rawmemory.TagFix:
		s = strings.TrimPrefix(s, rawmemory.TagFix)
	case "":
	default:
		return "" // a finding is the agent's words, not a command's outcome
	}
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "`") {
		return ""
	}
	end := strings.IndexByte(s[1:], '`')
	if end <= 0 {
		return ""
	}
	return s[1 : 1+end]
}

// Outcomes of a command a fact states, as its exit status showed.
const (
	outcomeUnknown = ""
	outcomePassed  = "passed"
	outcomeFailed  = "failed"
)

// outcomeOf is how the command of a fact with a subject ended, in the
// offline extractor's own wording: a check passed, a fix ended in a pass,
// a failure stands (a line that opens on the command and says it failed,
// no pass after it) or passed on a rerun. A failure run again with no exit
// status of its own, or a line memctl does not know, states no outcome,
// and what states none contradicts nothing.
func outcomeOf(item string) string {
	switch {
	case strings.Contains(item, "no exit status of its own"):
		return outcomeUnknown
	case strings.Contains(item, "was not run again to a pass"), strings.Contains(item, "no later run passed"),
		strings.HasPrefix(item, "`") && strings.Contains(item, "` failed ") && !strings.Contains(item, " passed"):
		return outcomeFailed
	case rawmemory.Tagged(item) == rawmemory.TagCheck, rawmemory.Tagged(item) == rawmemory.TagFix,
		strings.Contains(item, "passed on an identical rerun"):
		return outcomePassed
	}
	return outcomeUnknown
}

// Facts remembers, per project and command, the newest memory that
// stated how the command ended. Memories are visited newest first, so the
// first claim holds, and an older one from another memory that says the
// command ended otherwise is superseded. Two facts that agree on the
// outcome both stand, whatever else they say (another error fixed,
// other files changed): they are two lessons, not one changed answer.
type Facts map[string]factOwner

type factOwner struct {
	thread  string
	day     string
	task    int
	outcome string
}

// Claim records m's fact, or, when a newer memory already stated another
// outcome of the same command, says so ("superseded on DAY by Task N").
// Facts with no subject or no known outcome, and memories not written by
// the offline extractor (whose wording memctl cannot read), are never
// superseded.
func (f Facts) Claim(m Memory, item string, task int) string {
	subj, outcome := SubjectOf(item), outcomeOf(item)
	if !m.Offline || subj == "" || outcome == outcomeUnknown {
		return ""
	}
	key := m.Project().Key + "\x00" + subj
	owner, ok := f[key]
	if !ok {
		f[key] = factOwner{thread: m.Sel.ThreadID, day: m.Day, task: task, outcome: outcome}
		return ""
	}
	if owner.thread == m.Sel.ThreadID || owner.outcome == outcome {
		return ""
	}
	by := "superseded on " + owner.day
	if owner.task > 0 {
		by += fmt.Sprintf(" by Task %d", owner.task)
	}
	return by
}

// CheckedAgain reports whether item is a check of a command that a newer
// check of the same project already stated, and records it otherwise. A
// summary's tips give each command's check once, the newest: an older
// pass of the same command, for the same work or other work, is history
// MEMORY.md keeps, not another tip. Checks of one session restated are
// the same tip, counted by the summary's ranking; fixes are each a lesson
// of their own and never count.
func (f Facts) CheckedAgain(m Memory, item string) bool {
	subj := SubjectOf(item)
	if !m.Offline || subj == "" || rawmemory.Tagged(item) != rawmemory.TagCheck {
		return false
	}
	key := "check\x00" + m.Project().Key + "\x00" + subj
	if owner, ok := f[key]; ok {
		return owner.thread != m.Sel.ThreadID
	}
	f[key] = factOwner{thread: m.Sel.ThreadID}
	return false
}
