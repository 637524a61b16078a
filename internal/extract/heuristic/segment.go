package heuristic

import (
	"github.com/memctl/memctl/internal/program"
	"slices"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/textcut"
)

// Task splitting rule: a human message opens a new task when the current
// task already has an assistant answer after its last human message, the
// message has at least two meaningful words, it is not a correction, a
// continuation ("also …", "now …", "what about …", "it still fails"), a
// standing instruction ("from now on …", "always …", "never …") or the
// answer to a refused or interrupted call, and it shares no meaningful word
// with the current task (its human words and the names of the files it
// touched). Everything else is a follow-up of the current task. After
// maxTasks tasks, new requests become follow-ups of the last one.

// task is what the extractor keeps about one request of the human.
type task struct {
	request    string
	followUps  []string
	prefs      []pref
	negative   bool // the human's latest message in the task said it did not work
	answered   bool // assistant text came after the latest human message
	finalSince bool // a final answer came after the latest human message
	final      string
	// finalUnchecked is set while the final answer came with no tool call
	// since the human spoke.
	finalUnchecked bool
	answers        []string // earlier final answers of the task, one per human message
	complaint      string   // the latest message that said the result did not work
	// corrections are the human's messages pushing back on the agent's
	// work: they often carry what the agent got wrong about the project.
	corrections []string
	negAfter    bool // a complaint came after the last passing check
	words       map[string]bool

	files   files
	commits []commit // git commits the task's commands made, in order

	// gitChanges are git command lines that changed the repository and
	// reported no commit (git apply, a fast-forward merge, a rebase).
	gitChanges []string

	cmds     map[string]*cmdStat
	cmdOrder int
	ran      int // shell commands that ran
	failed   int // of which failed
	unknown  int // of which no status was recorded
	explore  int
	calls    int      // tool calls of any kind
	reads    []string // files the agent read, in order
	tools    map[string]int

	refused     []*call // calls the user rejected or stopped, or the harness refused
	emptyAgents []*call // sub-agent tasks that handed back nothing but a promise
	toolFails   []*call // failed calls that are not shell commands
	interrupts  int
	// endedRefused is set while the agent's latest act in the task was
	// refused or interrupted and nothing ran since.
	endedRefused bool

	families   map[string]*family
	recoveries []recovery
	byPurpose  map[string]*call // latest settled check run per purpose
	lastCheck  *call            // latest check with a known status
	lastCmd    *call            // latest non-exploratory command with a known status

	findings findings
	steps    timeline
	// scripts are package scripts that ran clean and what they run.
	scripts [][2]string
	start   time.Time
	end     time.Time
}

func newTask(text string) *task {
	return &task{
		request:   textcut.Line(text, requestMax),
		words:     map[string]bool{},
		files:     newFiles(),
		cmds:      map[string]*cmdStat{},
		tools:     map[string]int{},
		families:  map[string]*family{},
		byPurpose: map[string]*call{},
	}
}

func (t *task) touch(ts time.Time) {
	if ts.IsZero() {
		return
	}
	if t.start.IsZero() {
		t.start = ts
	}
	t.end = ts
}

// addWords remembers words that tie later messages to this task.
func (t *task) addWords(words []string) {
	for _, w := range words {
		if len(t.words) >= maxTaskWords {
			return
		}
		t.words[w] = true
	}
}

// human handles one message of the human: a new task, a follow-up, a
// correction; its standing instructions become preferences.
func (x *Extractor) human(e sessions.Event) {
	text := cleanHuman(e.Text)
	if text == "" {
		return
	}
	x.humans++
	x.looked = false
	words := topicWords(meaningfulWords(text))
	cur := x.current()
	// A complaint is about this session's work only when it speaks of
	// what the task is about, or is too short to be about anything else
	// ("it still fails"); "scrolling in X still does not work" after an
	// unrelated request reports a bug, it corrects nothing.
	negative := isNegative(text) && (cur == nil || len(words) < 3 || cur.sharesExactly(words) || cur.namesProgramRun(words))
	followUp := false
	if cur != nil && resent(cur, text) {
		// The user stopped the agent before it did anything and sent the
		// request again, completed: it is the request, not a complaint
		// about work that never happened.
		cur.request = textcut.Line(text, requestMax)
		cur.steps.replaceAsk(textcut.Line(text, askMax))
		cur.touch(e.Time)
		cur.addWords(words)
		x.kw.addWords(words, 2)
		for _, p := range preferences(text, x.asked) {
			cur.addPref(p)
		}
		return
	}
	if cur == nil || x.startsNewTask(cur, text, words, negative) {
		cur = newTask(text)
		x.tasks = append(x.tasks, cur)
		cur.steps.add(step{kind: stepAsk, text: textcut.Line(text, askMax)})
		x.kw.addWords(words, 2)
	} else {
		followUp = true
		if len(cur.followUps) < maxFollowUps {
			cur.followUps = append(cur.followUps, textcut.Line(text, lineMax))
		}
		kind := stepFollowUp
		if negative {
			kind = stepCorrection
			if rejectsRE().MatchString(text) {
				cur.findings.withdrawAnswer()
			}
			cur.complaint = textcut.Line(text, 220)
			if len(cur.corrections) < 3 {
				cur.corrections = append(cur.corrections, textcut.Line(text, 240))
			}
		}
		cur.steps.add(step{kind: kind, text: textcut.Line(text, lineMax)})
		x.kw.addWords(words, 1)
		cur.negative = negative
		// A complaint stays open until the human moves on without one or
		// a check passes after it.
		cur.negAfter = negative
	}
	cur.touch(e.Time)
	if followUp && cur.finalSince && cur.final != "" && len(cur.answers) < 3 {
		cur.answers = append(cur.answers, cur.final)
	}
	cur.answered = false
	cur.finalSince = false
	cur.findings.answerFrom = cur.findings.msgs
	cur.addWords(words)
	for _, p := range preferences(text, x.asked) {
		cur.addPref(p)
	}
}

var continuationRE = lazyRE(`(?i)^(also|and|now|then|but|still|ok|okay|great|thanks|thank you|it|it's|its|that|this|these|those|same|again|what about|how about|tell me more|more|why|yes|no|nope|wait|instead|actually|hmm|plus|next|continue|go on|do it|try|i think|i believe|looks like|seems|don'?t|do not|please don'?t)\b`)

// standingStartRE matches a message that opens with a standing
// instruction: it says how to go on working, so it never opens a task.
var standingStartRE = lazyRE(`(?i)^(from now on|going forward|from here on|in (the )?future|always|never|avoid|prefer|please use|stop \w+ing)\b`)

// newRequestWords is how many words of its own (links aside) make a
// message a request of its own once the agent has answered the last one:
// "ok, now put the docs update on a separate branch and open a PR for it"
// shares the task's words but asks for other work, and the outcome of
// that work must not land on the earlier request. A short nudge ("commit,
// push", "continue implementation") or a link for the agent to look at
// stays with the request it is about.
const newRequestWords = 10

func (x *Extractor) startsNewTask(cur *task, text string, words []string, negative bool) bool {
	if len(x.tasks) >= maxTasks || !cur.answered || negative || len(words) < 2 || x.refusal {
		return false
	}
	if standingStartRE().MatchString(text) {
		return false
	}
	own := len(topicWords(meaningfulWords(urlRE().ReplaceAllString(text, ""))))
	if own < 2 {
		return false // a link for the agent to look at, about the current request
	}
	if cur.finalSince && own >= newRequestWords {
		return true
	}
	if continuationRE().MatchString(text) {
		return false
	}
	return !cur.shares(words)
}

// namesProgramRun reports a word that is a program the task ran.
func (t *task) namesProgramRun(words []string) bool {
	for cmd := range t.cmds {
		if slices.Contains(words, strings.ToLower(program.Name(cmd))) {
			return true
		}
	}
	return false
}

// sharesExactly reports a word of words the task already holds.
func (t *task) sharesExactly(words []string) bool {
	return slices.ContainsFunc(words, func(w string) bool { return t.words[w] })
}

// shares reports a word of words the task already holds, or a related
// form of one ("track", "tracking", "conversationId").
func (t *task) shares(words []string) bool {
	if t.sharesExactly(words) {
		return true
	}
	for _, w := range words {
		for tw := range t.words {
			if relatedWords(w, tw) {
				return true
			}
		}
	}
	return false
}

var (
	tagBlockRE = lazyRE(`(?s)<(system-reminder|local-command-stdout|local-command-stderr|command-message)>.*?</(system-reminder|local-command-stdout|local-command-stderr|command-message)>`)
	tagRE      = lazyRE(`</?(command-name|command-args|command-contents)>`)
)

// harnessPrefixes mark messages that sit in the human's slot but were
// written by the harness (interruptions, compaction hand-overs, caveats).
var harnessPrefixes = []string{
	"[request interrupted by user",
	"caveat: the messages below were generated by the user while running local commands",
	"this session is being continued from a previous conversation",
	"<environment_context>",
	"<user_instructions>",
	"# agents.md instructions",
}

// cleanHuman strips harness wrappers from a human message and folds its
// whitespace, keeping line breaks (they separate instructions); it returns
// "" when nothing the human typed remains.
func cleanHuman(s string) string {
	t := normQuotes(strings.TrimSpace(s))
	low := strings.ToLower(t)
	for _, p := range harnessPrefixes {
		if strings.HasPrefix(low, p) {
			return ""
		}
	}
	t = tagBlockRE().ReplaceAllString(t, " ")
	t = tagRE().ReplaceAllString(t, " ")
	var lines []string
	for _, l := range strings.Split(t, "\n") {
		if l = oneLine(l); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

var negativeRE = lazyRE(`(?i)(\b(doesn'?t|does not|don'?t|didn'?t|did not|isn'?t|is not|not|still not|never) work|\bnot working\b|\bstill (fail|failing|broken|crash|crashing|getting|seeing|see|wrong|doesn'?t|does not|not)\b|\b(is|are|was|it's|that's|looks|still|all|everything) (wrong|broken)\b|\brevert\b|\bundo\b|^(no|nope)\b|that'?s not|that is not|\bit'?s not\b|\bnot what i|\b(a )?(bad|terrible|poor) (idea|approach)\b|\bnot (a )?good (idea|approach)\b)`)

func isNegative(s string) bool { return negativeRE().MatchString(s) }

// rejectsRE is a complaint that rejects what the agent proposed or
// claimed ("it's bad idea, since …", "that's wrong", "no, …"), not one that
// only says something still fails or asks to undo a change.
var rejectsRE = lazyRE(`(?i)\b((a )?(bad|terrible|poor) (idea|approach)|not (a )?good (idea|approach)|wrong approach|not what i|that'?s (not|wrong)|that is (not|wrong)|it'?s not (valid|right|correct|true|what)|not valid|does ?n[o']t make sense)\b|^(no|nope)\s*[,.!]`)

const maxReads = 24

func (t *task) addRead(p string) {
	if p == "" || len(t.reads) >= maxReads || slices.Contains(t.reads, p) || sessions.IsAgentFile(p) {
		return
	}
	t.reads = append(t.reads, p)
}

// abortShortFollowUp drops a follow-up of fewer than two meaningful words
// that the user interrupted before the agent did anything ("exot" before
// /exit): a typo aborted, not a request. It reports whether it did.
func (t *task) abortShortFollowUp() bool {
	last := t.steps.lastStep()
	if last == nil || last.kind != stepFollowUp || len(meaningfulWords(last.text)) >= 2 {
		return false
	}
	last.kind, last.text = stepInterrupt, ""
	if n := len(t.followUps); n > 0 {
		t.followUps = t.followUps[:n-1]
	}
	return true
}

// resent reports a message that repeats the task's request, usually
// completed, after the user interrupted the agent before it ran or said
// anything ("fix the login" … interrupt … "fix the login, it 500s").
func resent(t *task, text string) bool {
	if t.calls > 0 || t.final != "" || len(t.followUps) > 0 || t.steps.lastKind() != stepInterrupt {
		return false
	}
	norm := func(s string) string {
		return strings.TrimRight(strings.ToLower(strings.Join(strings.Fields(s), " ")), " .,;:!?")
	}
	was, now := norm(t.request), norm(text)
	return len(was) >= 8 && strings.HasPrefix(now, was)
}
