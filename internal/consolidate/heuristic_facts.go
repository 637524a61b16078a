package consolidate

import (
	"fmt"
	"strings"

	"github.com/memctl/memctl/internal/rawmemory"
)

// Facts of the offline extractor about a command (a check, a fix, a
// failure line) and which newer fact supersedes an older one.

// subjectOf names what a fact of the offline extractor is about: the
// command a Check, a Fix or a failure line is about ("" for anything
// else). Two such facts about the same command in one project say how it
// went then; the later one holds now.
func subjectOf(item string) string {
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

// newerFacts remembers, per project and command, the newest memory that
// stated a fact about it. Memories are visited newest first, so the first
// claim holds and a later one from another memory is superseded.
type newerFacts map[string]factOwner

type factOwner struct {
	thread string
	day    string
	task   int
	text   string // normKey of what it stated
}

// claim records m's fact, or, when a newer memory already stated one
// about the same command, says so ("superseded on DAY by Task N"). Facts
// with no subject, and memories not written by the offline extractor
// (whose wording memctl cannot read), are never superseded.
func (f newerFacts) claim(m memory, item string, task int) string {
	subj := subjectOf(item)
	if !m.offline || subj == "" {
		return ""
	}
	key := m.projectID().Key + "\x00" + subj
	owner, ok := f[key]
	if !ok {
		f[key] = factOwner{thread: m.sel.ThreadID, day: m.day, task: task, text: normKey(item)}
		return ""
	}
	if owner.thread == m.sel.ThreadID {
		return ""
	}
	by := "superseded on " + owner.day
	if owner.task > 0 {
		by += fmt.Sprintf(" by Task %d", owner.task)
	}
	return by
}

// restated reports whether the newer memory that claimed item's subject
// stated the very same fact: that is the fact seen again, not
// superseded.
func (f newerFacts) restated(m memory, item string) bool {
	owner, ok := f[m.projectID().Key+"\x00"+subjectOf(item)]
	return ok && owner.text == normKey(item)
}

// sort puts m's fact into current, or into old with the newer memory that
// superseded it; a fact a newer memory restated word for word is current,
// one bullet for every session that stated it.
func (f newerFacts) sort(m memory, item string, task int, current, old *bulletSet) {
	by := f.claim(m, item, task)
	switch {
	case by == "" || f.restated(m, item):
		current.add(item, task, m.sel.ThreadID)
	default:
		old.add(item+" ("+by+")", task, m.sel.ThreadID)
	}
}

// supersessions says, for each fact (thread id, NUL, item) that a newer
// memory of the same project supersedes, since when.
func supersessions(mems []memory) map[string]string {
	out := map[string]string{}
	f := newerFacts{}
	for _, m := range mems { // newest first
		if m.stale != nil {
			continue // a stale memory supersedes nothing
		}
		for _, t := range m.tasks {
			for _, it := range append(append([]string(nil), t.Knowledge...), t.Failures...) {
				if by := f.claim(m, it, 0); by != "" && !f.restated(m, it) {
					out[m.sel.ThreadID+"\x00"+it] = by
				}
			}
		}
	}
	return out
}
