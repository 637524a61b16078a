// Package heuristic is memctl's offline Phase 1 extractor: from the normalised events of one
// thread it writes what a model would (a raw memory, a rollout summary, a slug), offline. A memory
// states only the user's own words (task.go, prefs.go), the agent's final answers (answer.go) and
// exit status evidence (calls.go, files.go; pairs by program.Pairer): docs/extractor.md.
package heuristic

import (
	"time"

	"github.com/memctl/memctl/internal/sessions"
)

// Versions of the output.
const (
	V1 = "v1" // raw memory and rollout summary
	V2 = "v2" // rollout summary only, a chronological history

	// Limits: every list kept per task is capped, whatever the transcript's length. Budgets are bytes, under the
	// raw memory's 7,900 and the summary's 9,000 with room for redaction. The last line: a request, a follow-up,
	// a rule, an answer before any tool call.
	maxTasks, maxPrefs, maxCorrections, maxAnswers, maxFixes = 8, 8, 3, 6, 8
	maxTrackedFiles, maxTrackedCmds, maxCalls, maxReads      = 200, 200, 1024, 24
	maxTaskWords, maxKeywords, maxKeywordPool, maxSlugBytes  = 400, 12, 2000, 80
	maxCommits, maxChangedNames, maxChecks, maxFailures      = 8, 12, 4, 6
	rawMemoryBudget, summaryBudget                           = 7500, 8600
	askMax, lineMax, prefMax, uncheckedMax                   = 600, 300, 400, 1500
)

// Result is the extractor's answer, shaped like a model's.
type Result struct {
	RawMemory      string // v1 only
	RolloutSummary string
	Slug           string
}

// Empty reports the no-output answer (nothing worth keeping).
func (r Result) Empty() bool { return r.RolloutSummary == "" }

// Extractor is the offline extractor of one thread (Add each event, then Result once), bounded by the caps
// above; not safe for concurrent use. refusal: the latest result was a refusal the user's next words answer;
// question: what the agent's latest words asked; looked: a tool ran since; moved: the branch may have changed.
type Extractor struct {
	version                     string
	meta                        sessions.Meta
	tasks                       []*task
	humans, memReads            int
	first, last                 time.Time
	kw                          map[string]int
	calls                       map[string]*call  // the calls awaiting their results
	lastCall                    *call             // for results without a call id
	dropped, seenChange, recurs map[string]bool   // calls on memory (their results go too); changes counted; saw
	printed                     map[string]string // a line printed → the family of the command that printed it last
	worktrees                   []string          // folders `git worktree add` made: the project's, even under /tmp
	openings                    []string          // the openings of the user's long messages (Extractor.template)
	said                        [][]string        // the keys of each message's sentences: a rule said again stands
	typed                       *sessions.Event   // the user's latest message, read once all its blocks came
	tail                        *sessions.Event   // the agent's message not marked final, while no event came since
	question                    string
	refusal, looked, moved      bool
}

// New returns an extractor for one thread.
func New(version string, meta sessions.Meta) *Extractor {
	return &Extractor{version: version, meta: meta, kw: map[string]int{}, calls: map[string]*call{},
		dropped: map[string]bool{}, seenChange: map[string]bool{}, recurs: map[string]bool{},
		printed: map[string]string{}}
}

// Add feeds one event.
func (x *Extractor) Add(e sessions.Event) {
	if !e.Time.IsZero() && (x.first.IsZero() || e.Time.Before(x.first)) {
		x.first = e.Time
	}
	if e.Time.After(x.last) {
		x.last = e.Time
	}
	switch read := readers[e.Kind]; {
	case e.Kind == sessions.EventHuman && x.typed != nil && e.Time.Equal(x.typed.Time):
		x.typed.Text += "\n" + e.Text // another block of the same message: an image, a notice, the typed text
	case e.Kind == sessions.EventHuman:
		x.flushTyped()
		x.typed, x.tail = &e, nil
	case read != nil:
		x.flushTyped()
		read(x, e)
		x.tail = map[bool]*sessions.Event{true: &e}[e.Kind == sessions.EventAssistant && !e.Final]
	}
}

// flushTyped reads the user's latest message once all its blocks came.
func (x *Extractor) flushTyped() {
	if e := x.typed; e != nil {
		x.typed = nil
		x.human(*e)
	}
}

// readers read each kind of event the extractor uses but the user's messages, which Add gathers.
var readers = map[sessions.EventKind]func(*Extractor, sessions.Event){
	sessions.EventAssistant: (*Extractor).assistant, sessions.EventToolCall: (*Extractor).toolCall,
	sessions.EventToolResult: (*Extractor).toolResult, sessions.EventFileChange: (*Extractor).fileChange,
	sessions.EventInterrupt: (*Extractor).interrupted,
}

func (x *Extractor) current() *task {
	if len(x.tasks) == 0 {
		return nil
	}
	return x.tasks[len(x.tasks)-1]
}
