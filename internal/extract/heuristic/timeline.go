package heuristic

import (
	"slices"
	"strings"

	"github.com/memctl/memctl/internal/textcut"
)

// The timeline is a task's steps in order, for the rollout summary: the
// user's messages, the commands with their recorded statuses, the files
// changed, the final answers. Runs of looking around fold into one step.
// A long task keeps its first steps, its latest ones and every message of
// the user (up to a cap); the gap is marked.

const (
	timelineHead = 8
	timelineTail = 24
	timelineKept = 16 // messages of the user kept from the middle
)

type stepKind int

const (
	stepAsk stepKind = iota
	stepFollowUp
	stepCorrection
	stepCommand
	stepExplore
	stepFiles
	stepUndone   // a change that cancelled earlier ones
	stepReverted // a command that restored files
	stepRefused  // a call that is not a command and did not run
	stepInterrupt
	stepAnswer
)

type step struct {
	seq    int
	kind   stepKind
	text   string
	call   *call
	answer *answer
	op     string
	files  []string
	names  []string // exploration: the programs
	count  int
}

func (s step) human() bool { return s.kind <= stepCorrection }

type timeline struct {
	head, tail []step
	next       int // where the full tail ring writes next
	kept       []step
	seq        int
}

func (tl *timeline) last() *step {
	switch {
	case len(tl.tail) == timelineTail:
		return &tl.tail[(tl.next+timelineTail-1)%timelineTail]
	case len(tl.tail) > 0:
		return &tl.tail[len(tl.tail)-1]
	case len(tl.head) > 0:
		return &tl.head[len(tl.head)-1]
	}
	return nil
}

func (tl *timeline) add(s step) {
	if l := tl.last(); l != nil && l.kind == s.kind && (s.kind == stepExplore || s.kind == stepFiles && l.op == s.op) {
		if s.kind == stepExplore {
			l.count++
			if !slices.Contains(l.names, s.text) && len(l.names) < 5 {
				l.names = append(l.names, s.text)
			}
		} else if !slices.Contains(l.files, s.files[0]) {
			if len(l.files) < 6 {
				l.files = append(l.files, s.files[0])
			} else {
				l.count++
			}
		}
		return
	}
	if s.kind == stepExplore {
		s.names, s.count = []string{s.text}, 1
	}
	tl.seq++
	s.seq = tl.seq
	switch {
	case len(tl.head) < timelineHead:
		tl.head = append(tl.head, s)
	case len(tl.tail) < timelineTail:
		tl.tail = append(tl.tail, s)
	default:
		if old := tl.tail[tl.next]; old.human() && len(tl.kept) < timelineKept {
			tl.kept = append(tl.kept, old)
		}
		tl.tail[tl.next] = s
		tl.next = (tl.next + 1) % timelineTail
	}
}

// render prints the steps, statuses read now that every result arrived.
func (tl *timeline) render() []string {
	all := append(slices.Clone(tl.head), tl.kept...)
	all = append(all, tl.tail[tl.next:]...)
	all = append(all, tl.tail[:tl.next]...)
	var out []string
	prev := 0
	for _, s := range all {
		if prev > 0 && s.seq > prev+1 {
			out = append(out, "… "+itoa(s.seq-prev-1)+" steps omitted …")
		}
		prev = s.seq
		if line := s.render(); line != "" {
			out = append(out, line)
		}
	}
	return out
}

func (s step) render() string {
	switch s.kind {
	case stepAsk:
		return "The user asked: " + userWords(s.text, askMax)
	case stepFollowUp:
		return "Follow-up from the user: " + userWords(s.text, lineMax)
	case stepCorrection:
		return "The user pushed back: " + userWords(s.text, lineMax)
	case stepExplore:
		return "Explored with " + itoa(s.count) + " read-only command" + plural(s.count) + " (" + strings.Join(s.names, ", ") + ")."
	case stepFiles:
		verb := map[string]string{"add": "Created", "delete": "Deleted"}[s.op]
		if verb == "" {
			verb = "Edited"
		}
		line := verb + " " + strings.Join(s.files, ", ")
		if s.count > 0 {
			line += " and " + itoa(s.count) + " more"
		}
		return line + "."
	case stepUndone:
		return "Changed " + strings.Join(s.files, ", ") + " back (" + s.text + ")."
	case stepReverted:
		return "Threw away the changes to " + strings.Join(s.files, ", ") + " with " + code(textcut.Line(s.text, 120)) + "."
	case stepRefused:
		return "Tried " + s.call.describe() + ": " + s.call.statusText() + "."
	case stepInterrupt:
		return "The user interrupted the agent."
	case stepAnswer:
		switch a := s.answer; {
		case a.withdrawn:
			return "The assistant answered; the user rejected the answer."
		case a.unchecked:
			return "The assistant answered with no tool call since the user spoke."
		case len(a.sentences) > 0:
			return "The assistant answered: " + quote(strings.Join(firstSentences(a.sentences, stepAnswerMax), " "))
		}
		return ""
	case stepCommand:
		c := s.call
		verb := "Ran "
		if c.status.refused() && c.status != stInterrupted {
			verb = "Proposed "
		}
		line := verb + code(textcut.Line(c.command, 160))
		if c.escalated {
			line += " with escalated permissions"
		}
		return line + ": " + c.statusText() + "."
	}
	return s.text
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
