package heuristic

import (
	"slices"
	"strings"
)

// The timeline is a task's steps in order, for the rollout summary; a look
// around folds into one step, and past timelineMax the oldest steps after
// the head that do not quote the user go, counted.

const (
	timelineHead = 8
	timelineMax  = 160
)

type step struct {
	text  string
	call  *call    // a call, whose status is read when the steps are printed
	user  string   // the user's words, for a message of the user
	names []string // a look around: the programs it ran
	count int
}

type timeline struct {
	steps   []step
	omitted int
}

func (tl *timeline) add(text string) { tl.push(step{text: text}) }

// ran adds a call, whatever its result turns out to be.
func (tl *timeline) ran(c *call) { tl.push(step{call: c}) }

// said adds a message of the user.
// A message laid out as a document (a prompt template a command
// expanded, a pasted spec) is quoted by its opening only.
func (tl *timeline) said(label, words string) {
	n := askMax
	if document(words) {
		n = 200
	}
	tl.push(step{text: label + userWords(words, n), user: words})
}

// explore adds a look around, folded into the one before it.
func (tl *timeline) explore(name string) {
	if n := len(tl.steps); n > 0 && tl.steps[n-1].names != nil {
		last := &tl.steps[n-1]
		last.count++
		if !slices.Contains(last.names, name) && len(last.names) < 5 {
			last.names = append(last.names, name)
		}
		return
	}
	tl.push(step{names: []string{name}, count: 1})
}

// push adds a step; past the cap, the oldest step after the head that
// does not quote the user goes.
func (tl *timeline) push(s step) {
	tl.steps = append(tl.steps, s)
	if len(tl.steps) <= timelineMax {
		return
	}
	i := timelineHead
	for i < len(tl.steps)-1 && tl.steps[i].user != "" {
		i++
	}
	tl.steps = slices.Delete(tl.steps, i, i+1)
	tl.omitted++
}

func (tl *timeline) render() []string {
	var out []string
	for i, s := range tl.steps {
		if i == timelineHead && tl.omitted > 0 {
			out = append(out, "… "+itoa(tl.omitted)+" steps omitted …")
		}
		if s.call != nil {
			s.text = s.call.ranText()
		}
		if s.names != nil {
			s.text = "Explored with " + itoa(s.count) + " read-only command" + plural(s.count) + " (" + strings.Join(s.names, ", ") + ")."
		}
		out = append(out, s.text)
	}
	return out
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
