package heuristic

import (
	"slices"
	"strings"

	"github.com/memctl/memctl/internal/english"
	"github.com/memctl/memctl/internal/textcut"
)

// The timeline is the chronological steps of a task, with repeats folded
// and the middle dropped when a task is long.

const (
	timelineHead = 8
	timelineTail = 16
	lineMaxStep  = 160
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
	stepRefused  // a non-shell call that was rejected or stopped
	stepInterrupt
	stepAnswer
	stepChoice // the user's answer to a question the agent asked with options
)

type step struct {
	seq   int
	kind  stepKind
	text  string
	call  *call
	op    string
	files []string
	count int
	names []string // exploration: distinct command names
	// unchecked marks an answer given without any tool call since the
	// human spoke.
	unchecked bool
}

type timeline struct {
	head    []step
	tail    []step // ring buffer of the latest steps
	next    int    // next write position in tail once full
	dropped int
	// kept holds the human's messages that fell out of the ring: what the
	// user said is never dropped from the middle of a task (up to a cap).
	kept []step
	seq  int
}

const timelineKept = 16

func (s step) human() bool {
	return s.kind == stepAsk || s.kind == stepFollowUp || s.kind == stepCorrection
}

func (tl *timeline) lastStep() *step {
	if len(tl.tail) > 0 {
		i := tl.next - 1
		if len(tl.tail) < timelineTail || i < 0 {
			i = len(tl.tail) - 1
		}
		return &tl.tail[i]
	}
	if len(tl.head) > 0 {
		return &tl.head[len(tl.head)-1]
	}
	return nil
}

// replaceAsk puts text in place of the task's opening request.
func (tl *timeline) replaceAsk(text string) {
	for i := range tl.head {
		if tl.head[i].kind == stepAsk {
			tl.head[i].text = text
			return
		}
	}
}

// lastKind is the kind of the latest step, -1 when there is none.
func (tl *timeline) lastKind() stepKind {
	if last := tl.lastStep(); last != nil {
		return last.kind
	}
	return -1
}

func (tl *timeline) add(s step) {
	s.count = 1
	if last := tl.lastStep(); last != nil && last.kind == s.kind {
		switch s.kind {
		case stepExplore:
			last.count++
			if !slices.Contains(last.names, s.text) && len(last.names) < 5 {
				last.names = append(last.names, s.text)
			}
			return
		case stepFiles:
			if last.op == s.op {
				for _, f := range s.files {
					if !slices.Contains(last.files, f) {
						if len(last.files) < 6 {
							last.files = append(last.files, f)
						} else {
							last.count++
						}
					}
				}
				return
			}
		}
	}
	if s.kind == stepExplore {
		s.names = []string{s.text}
	}
	tl.seq++
	s.seq = tl.seq
	if len(tl.head) < timelineHead {
		tl.head = append(tl.head, s)
		return
	}
	if len(tl.tail) < timelineTail {
		tl.tail = append(tl.tail, s)
		return
	}
	if old := tl.tail[tl.next]; old.human() && len(tl.kept) < timelineKept {
		tl.kept = append(tl.kept, old)
	} else {
		tl.dropped++
	}
	tl.tail[tl.next] = s
	tl.next = (tl.next + 1) % timelineTail
}

func (tl *timeline) steps() []step {
	out := slices.Clone(tl.head)
	out = append(out, tl.kept...)
	if len(tl.tail) < timelineTail {
		return append(out, tl.tail...)
	}
	out = append(out, tl.tail[tl.next:]...)
	return append(out, tl.tail[:tl.next]...)
}

// render prints the steps; runs of the same command with the same result
// fold into one line. Statuses are read now, after every result arrived.
// A gap in the sequence is marked where steps were dropped.
func (tl *timeline) render() []string {
	var out []string
	var prev *step
	last := 0
	for _, s := range tl.steps() {
		if last > 0 && s.seq > last+1 {
			out = append(out, "… "+english.Count(s.seq-last-1, "step", "steps")+" omitted …")
			prev = nil
		}
		last = s.seq
		if s.kind == stepCommand && prev != nil && prev.kind == stepCommand && sameRun(prev.call, s.call) {
			prev.count++
			out[len(out)-1] = prev.render()
			continue
		}
		out = append(out, s.render())
		prev = &s
	}
	return out
}

func sameRun(a, b *call) bool {
	return a.command == b.command && a.status == b.status && a.errLine == b.errLine &&
		(a.exit == nil) == (b.exit == nil) && (a.exit == nil || *a.exit == *b.exit)
}

func (s step) render() string {
	switch s.kind {
	case stepAsk:
		return "The user asked: " + quote(s.text)
	case stepFollowUp:
		return "Follow-up from the user: " + quote(s.text)
	case stepCorrection:
		return "The user pushed back: " + quote(s.text)
	case stepExplore:
		return "Explored with " + english.Count(s.count, "read-only command", "read-only commands") + " (" + strings.Join(s.names, ", ") + ")."
	case stepFiles:
		verb := map[string]string{"add": "Created", "delete": "Deleted", "update": "Edited"}[s.op]
		if verb == "" {
			verb = "Changed"
		}
		line := verb + " " + strings.Join(s.files, ", ")
		if s.count > 1 {
			line += " and " + itoa(s.count-1) + " more"
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
		if s.unchecked {
			// what the model believed, with nothing in the session behind
			// it: the next agent should not take it for a finding
			return "The assistant answered with no tool call since the user spoke."
		}
		return "The assistant answered: " + quote(s.text)
	case stepChoice:
		return "Asked " + quote(textcut.Line(s.files[0], 200)) + ", the user chose " + quote(s.text) + "."
	case stepCommand:
		c := s.call
		verb := "Ran "
		if c.status.refused() && c.status != stInterrupted {
			verb = "Proposed "
		}
		line := verb + code(textcut.Line(c.command, lineMaxStep))
		if c.escalated {
			line += " with escalated permissions"
		}
		if s.count > 1 {
			line += " (" + itoa(s.count) + " times in a row)"
		}
		return line + ": " + c.statusText() + "."
	}
	return s.text
}
