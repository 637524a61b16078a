// Package heuristic is memctl's offline Phase 1 extractor: it reads the
// normalised events of one thread (internal/sessions) and writes what a model
// would, a rollout summary, a slug and (v1) a raw memory, from the
// structure of the transcript alone. It is deterministic and makes no
// network call.
//
// Truth first: a statement goes into a memory only when the transcript
// supports it. A command passed only when its exit status (or, where the
// format records none, its own output) says so; a file changed only when
// the call that changed it succeeded and nothing undid it later; "flaky"
// only when the very same command passed with nothing done in between;
// the user's preferences are their own words, quoted. Where the extractor
// cannot be sure it quotes the transcript instead of interpreting it.
//
// The work is split the way a reader follows a session:
//
//   - segment.go: the human's messages split the thread into tasks;
//   - commands.go: each call's outcome, checks and their purposes;
//   - failures.go: failing command families and what made them pass;
//   - files.go: file changes, and the reverts that cancel them;
//   - prefs.go: standing instructions in the human's words;
//   - findings.go: the agent's explanations (causes, locations, facts);
//   - outcome.go: the triage of each task;
//   - render.go: the digest, printed through internal/rawmemory.
//
// How programs behave is not this package's knowledge: which commands
// check, only look, or change files, which line of a failed command's
// output states the problem, which words say a run failed, all live in
// internal/program, shared with the stale-evidence code. What is here is
// what a memory makes of them.
package heuristic

import (
	"iter"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/memctl/memctl/internal/program"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/textcut"
)

// Versions of the output.
const (
	V1 = "v1" // raw memory and rollout summary
	V2 = "v2" // rollout summary only, a chronological history
)

// Limits on what the extractor keeps and prints. Memory stays bounded
// whatever the transcript length: every list kept per task is capped.
const (
	maxTasks        = 8
	maxFollowUps    = 6
	maxPrefs        = 8
	maxTrackedFiles = 200 // distinct files remembered per task
	maxTrackedCmds  = 200 // distinct commands remembered per task
	maxFamilies     = 64
	maxRecoveries   = 6
	maxTaskWords    = 400
	maxKeywords     = 12
	maxSlugBytes    = 80
	maxCalls        = 1024 // calls awaiting a result
	rawMemoryBudget = 7000 // bytes; the raw memory must stay well under 8 KB
	maxChangedNames = 12
	summaryBudget   = 8000 // bytes; under the v2 9,000-byte cap
	requestMax      = 300
	lineMax         = 200 // a follow-up message, an error line
	askMax          = 420 // the opening request as the summary quotes it
	finalAnswerMax  = 500
	answerMax       = 1500 // the answer to a question: nothing else holds what was learned
)

// Result is the extractor's answer, shaped like a model's.
type Result struct {
	RawMemory      string // v1 only
	RolloutSummary string
	Slug           string
}

// Empty reports the no-output answer (nothing worth keeping).
func (r Result) Empty() bool { return r.RolloutSummary == "" }

// Extract runs the extractor over a whole thread.
func Extract(version string, meta sessions.Meta, events []sessions.Event) Result {
	x := New(version, meta)
	for _, e := range events {
		x.Add(e)
	}
	return x.Result()
}

// Extractor is the streaming form of Extract: feed it events in transcript
// order with Add, then call Result once. Its memory is bounded by the caps
// above, not by the transcript length. It is not safe for concurrent use.
type Extractor struct {
	version string
	meta    sessions.Meta

	tasks  []*task
	humans int
	first  time.Time
	last   time.Time
	kw     keywords

	calls      map[string]*call // call id → the call awaiting its result
	lastCall   *call            // the latest call, for results without a call id
	dropped    map[string]bool  // calls that read memory: their results are dropped too
	seenChange map[string]bool  // call id + file of changes already counted
	subagents  int
	memReads   int
	// explainNext is the latest failed call while the agent has not yet
	// spoken since: its next words usually say why it failed.
	explainNext *call
	// refusal is set while the latest tool result was a rejection or an
	// interruption: the human's next words answer it, so they belong to
	// the same task.
	refusal bool
	// asked is set while the agent's latest words were a question: the
	// human's next message answers it.
	asked bool
	// deleted and existed name files by base name (see fileNames), set
	// when the memory is written.
	deleted map[string]bool
	existed map[string]bool // base names of the files the session read or changed
	// worktrees are the folders `git worktree add` made: the project's,
	// even under /tmp.
	worktrees []string
	// looked is set once the agent called a tool since the human last
	// spoke: an answer given without looking at anything is what the
	// model already believed, which the session did not find out.
	looked bool
}

// New returns an extractor for one thread.
func New(version string, meta sessions.Meta) *Extractor {
	return &Extractor{
		version:    version,
		meta:       meta,
		kw:         newKeywords(),
		calls:      map[string]*call{},
		dropped:    map[string]bool{},
		seenChange: map[string]bool{},
	}
}

// Add feeds one event.
func (x *Extractor) Add(e sessions.Event) {
	if !e.Time.IsZero() {
		if x.first.IsZero() || e.Time.Before(x.first) {
			x.first = e.Time
		}
		if e.Time.After(x.last) {
			x.last = e.Time
		}
	}
	switch e.Kind {
	case sessions.EventHuman:
		x.human(e)
		x.refusal, x.asked = false, false
	case sessions.EventAssistant:
		x.assistant(e)
	case sessions.EventReasoning:
		x.reasoning(e)
	case sessions.EventToolCall:
		x.toolCall(e)
	case sessions.EventToolResult:
		x.toolResult(e)
	case sessions.EventFileChange:
		x.fileChange(e)
	case sessions.EventInterrupt:
		if t := x.current(); t != nil {
			if t.abortShortFollowUp() {
				break
			}
			t.interrupts++
			t.endedRefused = true // until a call runs again
			t.steps.add(step{kind: stepInterrupt})
			t.touch(e.Time)
		}
		x.refusal = true
	case sessions.EventOtherAgent:
		x.subagents++
		x.otherAgent(e)
	}
}

func (x *Extractor) current() *task {
	if len(x.tasks) == 0 {
		return nil
	}
	return x.tasks[len(x.tasks)-1]
}

// assistant takes the agent's text: its final answers and its findings.
// Citation blocks are the agent quoting memory back: they are cut before
// anything is read, so memory never feeds on itself.
func (x *Extractor) assistant(e sessions.Event) {
	t := x.current()
	if t == nil {
		return
	}
	text := dropRecital(sessions.StripCitations(e.Text))
	flat := oneLine(text)
	if flat == "" {
		return
	}
	t.touch(e.Time)
	t.answered = true
	x.asked = strings.HasSuffix(strings.TrimSpace(stripMarkdown(text)), "?")
	if c := x.explainNext; c != nil {
		x.explainNext = nil
		if c.task == t && !x.expectedFailure(c, text) {
			c.explanation = explanationOf(text)
		}
	}
	if x.looked {
		t.findings.add(text)
	}
	if e.Final {
		t.finalSince = true
		if oneLine(stripMarkdown(text)) != t.final {
			// Some transcripts carry the final answer twice (message
			// item and turn-complete event); print it once.
			t.steps.add(step{kind: stepAnswer, text: textcut.Line(flat, 160), unchecked: !x.looked})
		}
		t.final = oneLine(stripMarkdown(text))
		t.finalUnchecked = !x.looked
	}
}

// recitalRE is how the agent says it is reciting memory.
var recitalRE = lazyRE(`(?i)\b(according to|from|in|based on) (my|the|your) (saved )?(memory|memories)\b|\bmy (memory|memories|notes) (says?|shows?|notes?|mentions?)\b|\bI remember\b`)

// dropRecital removes the sentences that recite memory: what memory
// already holds is no new memory, and a recall made up after a failed
// read of memory must not become one.
func dropRecital(text string) string {
	if !recitalRE().MatchString(text) {
		return text
	}
	var kept []string
	for _, s := range sentences(text, 200) {
		if !recitalRE().MatchString(s) {
			kept = append(kept, s)
		}
	}
	return strings.Join(kept, " ")
}

// reasoning takes the agent's private reasoning, which the user never saw.
// It is not a finding and not an answer; right after a failure it is the
// agent's own account of the cause, kept beside (never instead of) what
// it then said aloud, and quoted as its reasoning.
func (x *Extractor) reasoning(e sessions.Event) {
	// A Codex reasoning summary opens with a "**Heading**" line: a title,
	// not a sentence of the account.
	text := reasoningTitleRE().ReplaceAllString(sessions.StripCitations(e.Text), "")
	c := x.explainNext
	if c == nil {
		x.laterReasoning(text)
		return
	}
	if c.task != x.current() || c.reasoning != "" || x.expectedFailure(c, text) {
		return
	}
	c.reasoning = explanationOf(text)
}

// laterReasoning keeps a cause the agent found while a failure was still
// open, after it had looked at other things: "the problem is …" several
// reads after the failing run. Only a sentence that gives a cause and
// names the failing command or a distinctive word of its error is taken,
// since thinking is full of "because" about design, and not a guess
// ("the framework typically generates these files"); it is quoted as the
// agent's later reasoning, never as a finding.
func (x *Extractor) laterReasoning(text string) {
	t := x.current()
	if t == nil || !causeRE().MatchString(text) {
		return
	}
	for _, f := range openFailures(t) {
		c := f.failRun
		if c.explanation != "" || c.reasoning != "" {
			continue
		}
		ties := failureTies(c)
		for _, s := range sentences(stripMarkdown(text), 12) {
			if causeRE().MatchString(s) && !guessRE().MatchString(s) && mentionsAny(s, slices.Values(ties)) {
				c.reasoning, c.reasoningLater = textcut.Line(s, 260), true
				return
			}
		}
	}
}

// expectedRE is how the agent says a non-zero exit was the point: a run
// made to see an error message, an unknown command rejected.
var expectedRE = lazyRE(`(?i)\b(as expected|(is|was) expected|expected (error|failure|output|behaviou?r)|(output|error|message) looks (good|right|correct)|looks (good|right|correct)|works (as intended|correctly))\b`)

// expectedFailure settles a failed run the agent's next words call the
// expected result: it is no failure of the work. Only the opening
// sentences count, and not when they also report a problem.
func (x *Extractor) expectedFailure(c *call, text string) bool {
	if c.status != stFailed || c.command == "" {
		return false
	}
	head := strings.Join(sentences(stripMarkdown(text), 2), " ")
	if !expectedRE().MatchString(head) || reportsFailure(head) {
		return false
	}
	t := c.task
	c.status, c.errLine, c.tests = stOK, "", nil
	t.failed--
	if st := t.cmds[c.command]; st != nil && st.fails > 0 {
		st.fails--
		st.errLine = ""
	}
	if f := t.families[c.family]; f != nil && f.failRun == c {
		if f.fails--; f.fails == 0 {
			delete(t.families, c.family)
		}
	}
	return true
}

// causeRE is how a sentence gives a cause.
var causeRE = lazyRE(`(?i)\b(because|the (problem|issue|reason|cause) (is|was)|caused by|root cause|due to|fails? since)\b`)

// tieStop are error-line words too common to tie a sentence to a failure.
var tieStop = wordSet(`error errors failed failure fatal cannot could would should while there which found
command exited status false true undefined expected unable module modules value values object objects
files option options argument arguments`)

// failureTies are the words a sentence about a failed run would use: the
// failing program, and the longer words of its error line.
func failureTies(c *call) []string {
	var out []string
	if n := program.SpokenName(c.command); len(n) >= 3 {
		out = append(out, strings.ToLower(n))
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(c.errLine), func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '.' || r == '-')
	}) {
		w = strings.Trim(w, ".-")
		if len(w) >= 5 && !tieStop()[w] && !isNumber(w) {
			out = append(out, w)
		}
	}
	return out
}

// mentionsAny reports a sentence that holds one of words as a word of its
// own.
func mentionsAny(s string, words iter.Seq[string]) bool {
	for w := range words {
		if sentenceNaming(s, w) != "" {
			return true
		}
	}
	return false
}

var reasoningTitleRE = lazyRE(`(?m)^\s*\*\*[^*\n]+\*\*\s*$`)

// otherAgent takes what a sub-agent said in the thread's own file: its
// findings count as the sub-agent's, and its words right after a failure
// explain it as the agent's own would.
func (x *Extractor) otherAgent(e sessions.Event) {
	t := x.current()
	if t == nil {
		return
	}
	text := sessions.StripCitations(e.Text)
	if c := x.explainNext; c != nil && c.task == t {
		x.explainNext = nil
		c.explanation = explanationOf(text)
	}
	t.findings.addFrom(text, "a sub-agent said", 0)
}

// readsMemory reports a tool call that works on memory itself; the
// readers decide which do (internal/sessions memory.go).
func readsMemory(e sessions.Event) bool { return e.Action == sessions.ActionMemory }

func (x *Extractor) markChange(key string) {
	if len(x.seenChange) > 4096 {
		clear(x.seenChange)
	}
	x.seenChange[key] = true
}
