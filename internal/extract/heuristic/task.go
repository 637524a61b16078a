package heuristic

import (
	"slices"
	"strings"

	"github.com/memctl/memctl/internal/program"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/textcut"
)

// Tasks. A message of the user opens a task when the agent gave a final
// answer since the user last spoke and it asks for other work (startsTask);
// every message is kept verbatim (docs/extractor.md, "Tasks").

// task is what the extractor keeps about one request of the user.
type task struct {
	request   string
	followUps int
	prefs     []string
	// corrections are the user's messages pushing back on the work, and
	// negative is set while the latest message of the task was one.
	corrections []string
	negative    bool
	negAfter    bool // a complaint came after the last passing check
	words       map[string]bool

	answers    []*answer // the agent's final answers, one per message answered
	final      string    // the latest final answer, whole, for the triage
	finalSince bool      // a final answer came after the user's latest message
	// answeredBefore is finalSince as it was before the user's latest
	// message, for a message taken back as a typo.
	answeredBefore bool
	answered       bool // the agent said anything after it

	files      files
	lines      map[string]string // file → the first line its latest in-place edit put in
	commits    []program.Commit
	gitChanges []string // git command lines that changed the repository without a commit

	pairs              program.Pairer
	fixes              []fix
	failures           map[int]*call    // failed shell calls by sequence, for the pairs
	checks             map[string]*call // the latest settled run of each check family
	lastCheck, lastCmd *call

	calls, ran, failed, unknown, explore int
	reads                                []string
	refused                              []*call // calls the user rejected or stopped, or the harness refused
	toolFails                            []*call // failed calls that are not shell commands
	interrupts                           int
	// endedRefused is set while the latest act of the task was refused or
	// interrupted and nothing ran since.
	endedRefused bool

	steps timeline
}

// fix is a failure and the pass of the same work that ended it.
type fix struct {
	program.Pair
	fail, pass *call
}

// edited names the files a pair's between lists, each with the line its
// latest edit put in, when an edit says ("a.go (`return x`)").
func (t *task) edited(files []string) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f
		if line := t.lines[f]; line != "" {
			out[i] += " (" + code(textcut.Line(line, 100)) + ")"
		}
	}
	return out
}

func newTask(text string) *task {
	return &task{request: text, words: map[string]bool{}, files: files{m: map[string]*fileRec{}},
		failures: map[int]*call{}, checks: map[string]*call{}, lines: map[string]string{}}
}

func (t *task) addWords(words []string) {
	for _, w := range words {
		if len(t.words) < maxTaskWords {
			t.words[w] = true
		}
	}
}

// shares reports a word of words the task holds, or a related form of
// one ("track", "tracking"); exactly, only the same word.
func (t *task) shares(words []string, exactly bool) bool {
	for _, w := range words {
		for tw := range t.words {
			if w == tw || !exactly && min(len(w), len(tw)) >= 4 && (strings.HasPrefix(w, tw) || strings.HasPrefix(tw, w)) {
				return true
			}
		}
	}
	return false
}

// human takes one message of the user.
func (x *Extractor) human(e sessions.Event) {
	lines := strings.Split(normQuotes(e.Text), "\n")
	for i, l := range lines {
		lines[i] = oneLine(l)
	}
	text := strings.Join(slices.DeleteFunc(lines, func(l string) bool { return l == "" }), "\n")
	if text == "" {
		return
	}
	x.humans++
	x.looked = false
	words := meaningfulWords(text)
	cur := x.current()
	negative := negativeRE().MatchString(text) && (cur == nil || len(words) < 3 || cur.shares(words, true))
	if cur == nil || x.startsTask(cur, text, words, negative) {
		cur = newTask(text)
		x.tasks = append(x.tasks, cur)
		cur.steps.said("The user asked: ", text)
	} else {
		label := "Follow-up from the user: "
		cur.followUps++
		if negative {
			label = "The user pushed back: "
			if cur.finalSince && len(cur.answers) > 0 {
				cur.answers[len(cur.answers)-1].withdrawn = true
			}
			if len(cur.corrections) < maxCorrections {
				cur.corrections = append(cur.corrections, text)
			}
		}
		cur.steps.said(label, text)
		cur.negative, cur.negAfter = negative, negative
	}
	cur.answeredBefore = cur.finalSince
	cur.answered, cur.finalSince = false, false
	cur.addWords(words)
	for _, w := range words {
		x.keyword(w, 2)
	}
	for _, p := range preferences(text, x.asked) {
		if !slices.Contains(cur.prefs, p) && len(cur.prefs) < maxPrefs {
			cur.prefs = append(cur.prefs, p)
		}
	}
	x.refusal, x.asked = false, false
}

// newRequestWords is how many words of its own make a message a request
// of its own once the agent has answered: "ok, now put the docs update on
// a separate branch and open a PR for it" asks for other work though it
// shares the task's words.
const newRequestWords = 10

func (x *Extractor) startsTask(cur *task, text string, words []string, negative bool) bool {
	if len(x.tasks) >= maxTasks || !cur.finalSince || negative || x.refusal || standingRE().MatchString(firstClause(text)) {
		return false
	}
	own := slices.DeleteFunc(strings.Fields(text), func(f string) bool { return strings.Contains(f, "://") }) // links aside
	n := len(meaningfulWords(strings.Join(own, " ")))
	switch {
	case n < 2:
		return false // a link or a nudge, about the current request
	case n >= newRequestWords:
		return true
	}
	first := strings.ToLower(strings.Trim(strings.Fields(text)[0], ",.!:;"))
	return !continuations()[first] && !cur.shares(words, false)
}

// firstClause is the start of a message, up to its first comma or stop:
// "Always …" there is a standing instruction, not a new request.
func firstClause(s string) string {
	if i := strings.IndexAny(s, ",.;:\n"); i >= 0 {
		return s[:i]
	}
	return s
}

// continuations open a message that goes on with the current request.
var continuations = wordSet(`also and now then but still ok okay great thanks thank it it's its that that's this
these those same again what how more why yes no nope wait instead actually hmm plus next continue go do try i
looks seems don't dont please`)

// negativeRE is a message saying the work did not work or was not what
// the user wanted.
var negativeRE = lazyRE(`(?i)\b(doesn'?t|does not|don'?t|didn'?t|did not|isn'?t|is not|not|never) work|\bnot working\b|` +
	`\bstill (fail\w*|broken|crash\w*|wrong|not|doesn'?t|does not|getting|seeing|see)\b|\b(is|are|was|looks|it'?s|that'?s|all|everything) (wrong|broken)\b|` +
	`\b(revert|undo)\b|^(no|nope)\b|\bthat'?s not\b|\bthat is not\b|\bnot what i\b|\b(bad|terrible|poor) (idea|approach)\b|` +
	`\bnot (a )?good (idea|approach)\b|\bwrong approach\b|\bnot valid\b|does ?n[o']t make sense`)

const maxReads = 24

func (t *task) addRead(p string) {
	if p != "" && len(t.reads) < maxReads && !slices.Contains(t.reads, p) && !sessions.IsAgentFile(p) {
		t.reads = append(t.reads, p)
	}
}

// interrupted takes the user stopping the agent.
func (x *Extractor) interrupted(e sessions.Event) {
	x.refusal = true
	t := x.current()
	if t == nil {
		return
	}
	if n := len(t.steps.steps); n > 1 && t.steps.steps[n-1].user != "" && len(meaningfulWords(t.steps.steps[n-1].user)) < 2 {
		// A word or two the user stopped before the agent did anything
		// ("exot" before /exit): a typo aborted, not a message.
		for _, w := range meaningfulWords(t.steps.steps[n-1].user) {
			x.keyword(w, -2)
		}
		t.steps.steps = t.steps.steps[:n-1]
		t.followUps--
		t.finalSince = t.answeredBefore
		return
	}
	t.interrupts++
	t.endedRefused = true // until a call runs again
	t.steps.add("The user interrupted the agent.")
}

// userWords quotes what the user typed, shortened by whole sentences.
func userWords(s string, n int) string { return quote(textcut.WholeSentences(s, n)) }
