// Package heuristic is memctl's offline Phase 1 extractor: it reads the
// normalised events of one thread (internal/sessions) and writes what a
// model would, a raw memory (v1), a rollout summary and a slug, from the
// transcript alone. It is deterministic and makes no network call.
//
// # The core
//
// A memory states what the session shows, and a session shows three
// things; nothing else is inferred.
//
//  1. The user's own words (task.go, prefs.go). Every message the user
//     typed is kept verbatim: the first of a task is its request, the
//     others its follow-ups and corrections, messages queued while the
//     agent worked included (the readers deliver those as human messages
//     too). The sentences that state a standing rule ("always …", "never
//     …", "use X, not Y") are the preference signals.
//  2. The agent's final answer to each message (answer.go): the last text
//     of its turn, in whole sentences, labelled as the agent's, withdrawn
//     when the user's next message rejects it. Its verdicts on runs ("all
//     tests pass", "a false positive") and recitals of memory are left
//     out. Nothing the agent said or thought before its final answer is
//     kept: a first fix later replaced, a refuted guess, a plan's step.
//  3. Exit-status evidence (calls.go, files.go). A call's outcome is its
//     exit status or the tool's own error flag, as the reader decoded it:
//     passed, failed, did not run (rejected, denied, interrupted,
//     cancelled), or unknown when no status was recorded or the status is
//     a filter's at the end of a pipeline. Output text never decides it;
//     for a failure it only chooses the line to quote, the first line of
//     the tool's own error report (program.ErrorLine). A failure and the
//     later pass of the same work are paired by program.Pairer, which
//     lists what ran between them: every command that is not a read and
//     every file edited. A pass with nothing between is possibly flaky.
//     A file changed only when the call that changed it succeeded and
//     nothing undid it later.
//
// From these, the outcome of each task is triaged (outcome.go) and both
// texts are rendered (render.go): Fix and Check items, the final answers,
// the failures no pass ended, the calls that did not run, the user's
// corrections and rules, the commands that changed state, the files and
// commits. Where a text must be shorter, whole items are dropped, the
// least telling first; no sentence is cut.
//
// How programs behave (which commands only read, check or change files,
// which output line states a failure, how failures pair with passes) is
// internal/program's, shared with the stale-evidence code and the regret
// ledger; which agent wrote a transcript is the readers' business.
package heuristic

import (
	"time"

	"github.com/memctl/memctl/internal/sessions"
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
	maxPrefs        = 8
	maxCorrections  = 3
	maxAnswers      = 6
	maxFixes        = 8
	maxTrackedFiles = 200 // distinct files remembered per task
	maxTrackedCmds  = 200 // distinct commands remembered per task
	maxTaskWords    = 400
	maxKeywords     = 12
	maxKeywordPool  = 2000
	maxSlugBytes    = 80
	maxCalls        = 1024 // calls awaiting a result
	maxCommits      = 8
	maxChangedNames = 12
	maxCmdRefs      = 6
	maxChecks       = 4
	maxFailures     = 6
	rawMemoryBudget = 7500 // bytes; under the 7,900-byte cap, with room for redaction
	summaryBudget   = 8600 // bytes; under the 9,000-byte cap, with room for redaction
	askMax          = 600  // the request, as the steps quote it
	lineMax         = 300  // a follow-up, a correction
	prefMax         = 400
	stepAnswerMax   = 400
	uncheckedMax    = 1500 // an answer given before any tool call
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
	version     string
	meta        sessions.Meta
	tasks       []*task
	humans      int
	first, last time.Time
	kw          map[string]int

	calls      map[string]*call // call id → the call awaiting its result
	lastCall   *call            // the latest call, for results without a call id
	dropped    map[string]bool  // calls on memory: their results are dropped too
	seenChange map[string]bool  // call id and file of the changes counted
	memReads   int
	worktrees  []string // folders `git worktree add` made: the project's, even under /tmp

	// refusal is set while the latest tool result was a rejection or an
	// interruption: the user's next words answer it. asked is set while
	// the agent's latest words asked the user something. looked is set
	// once a tool ran since the user last spoke.
	refusal, asked, looked bool
}

// New returns an extractor for one thread.
func New(version string, meta sessions.Meta) *Extractor {
	return &Extractor{version: version, meta: meta, kw: map[string]int{}, calls: map[string]*call{},
		dropped: map[string]bool{}, seenChange: map[string]bool{}}
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
	case sessions.EventAssistant:
		x.assistant(e)
	case sessions.EventToolCall:
		x.toolCall(e)
	case sessions.EventToolResult:
		x.toolResult(e)
	case sessions.EventFileChange:
		x.fileChange(e)
	case sessions.EventInterrupt:
		x.interrupted(e)
	}
}

func (x *Extractor) current() *task {
	if len(x.tasks) == 0 {
		return nil
	}
	return x.tasks[len(x.tasks)-1]
}
