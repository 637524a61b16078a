package heuristic

import (
	"cmp"
	"slices"
	"strings"

	"github.com/memctl/memctl/internal/english"
)

// The timeline is a task's steps in order, for the rollout summary; a look around folds into one step, and
// past timelineMax the oldest steps after the head that do not quote the user go, counted.
const timelineHead, timelineMax, pastedMark = 8, 160, "(pasted terminal output) " // pastedMark: not the user's words

type step struct {
	text, user   string   // user: the user's words, for a message of the user
	call         *call    // a call, whose status is read when the steps are printed
	names        []string // a look around: the programs it ran
	count, worth int      // worth: see entries
}

type timeline struct {
	steps   []step
	omitted int
}

func (tl *timeline) add(text string, worth int) { tl.push(step{text: text, worth: worth}) }

// said adds a message of the user; one laid out as a document (a template, a pasted spec: two or more headings, whose
// rules are its own) by its opening only.
func (tl *timeline) said(label, words string) {
	document := strings.Count("\n"+words, "\n#") >= 2
	tl.push(step{text: label + userWords(words, map[bool]int{true: 200, false: askMax}[document]), user: words})
}

// explore adds a look around, folded into the one before it.
func (tl *timeline) explore(name string) {
	if n := len(tl.steps); n > 0 && tl.steps[n-1].names != nil {
		last := &tl.steps[n-1]
		if last.count++; !slices.Contains(last.names, name) && len(last.names) < 5 {
			last.names = append(last.names, name)
		}
		return
	}
	tl.push(step{names: []string{name}, count: 1})
}

// push adds a step; past the cap, the oldest step after the head that does not quote the user goes.
func (tl *timeline) push(s step) {
	tl.steps = append(tl.steps, s)
	for i := timelineHead; len(tl.steps) > timelineMax; i++ {
		if i == len(tl.steps)-1 || tl.steps[i].user == "" {
			tl.steps, tl.omitted = slices.Delete(tl.steps, i, i+1), tl.omitted+1
		}
	}
}

// entries renders the steps, ranked for shrink: the user's words apart (cUser); a look around or a change
// undone, a run without a status, a run that ended well, then anything else.
func (tl *timeline) entries() []*entry {
	var out []*entry
	for i, s := range tl.steps {
		if i == timelineHead && tl.omitted > 0 {
			out = append(out, &entry{text: "… " + itoa(tl.omitted) + " steps omitted …", class: cStep})
		}
		e := &entry{text: s.text, class: cStep, worth: s.worth}
		switch {
		case s.user != "":
			e.class = cUser
		case s.names != nil:
			e.text = "Explored with " + english.Count(s.count, "read-only command", "read-only commands") +
				" (" + strings.Join(s.names, ", ") + ")."
		case s.call != nil: // read once the call's status is known
			e.text = s.call.ranText()
			e.worth = cmp.Or(map[status]int{stOK: 2, stUnknown: 1, stPending: 1, stCancelled: 1}[s.call.status], 3)
		}
		out = append(out, e)
	}
	return out
}
