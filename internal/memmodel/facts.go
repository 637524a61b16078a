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
// else). Two such facts about the same command in one project say how it
// went then; the later one holds now.
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

// Facts remembers, per project and command, the newest memory that
// stated a fact about it. Memories are visited newest first, so the first
// claim holds and a later one from another memory is superseded.
type Facts map[string]factOwner

type factOwner struct {
	thread string
	day    string
	task   int
	text   string // NormKey of what it stated
}

// Claim records m's fact, or, when a newer memory already stated one
// about the same command, says so ("superseded on DAY by Task N"). Facts
// with no subject, and memories not written by the offline extractor
// (whose wording memctl cannot read), are never superseded.
func (f Facts) Claim(m Memory, item string, task int) string {
	subj := SubjectOf(item)
	if !m.Offline || subj == "" {
		return ""
	}
	key := m.Project().Key + "\x00" + subj
	owner, ok := f[key]
	if !ok {
		f[key] = factOwner{thread: m.Sel.ThreadID, day: m.Day, task: task, text: NormKey(item)}
		return ""
	}
	if owner.thread == m.Sel.ThreadID {
		return ""
	}
	by := "superseded on " + owner.day
	if owner.task > 0 {
		by += fmt.Sprintf(" by Task %d", owner.task)
	}
	return by
}

// Restated reports whether the newer memory that claimed item's subject
// stated the very same fact: that is the fact seen again, not
// superseded.
func (f Facts) Restated(m Memory, item string) bool {
	owner, ok := f[m.Project().Key+"\x00"+SubjectOf(item)]
	return ok && owner.text == NormKey(item)
}
