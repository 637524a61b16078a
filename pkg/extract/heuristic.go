package extract

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/memctl/memctl/pkg/sessions"
)

// The offline extractor reads the normalised events of one thread and
// writes the same kind of answer a model would: a rollout summary, a slug
// and (v1) a raw memory. It relies only on the structure of the transcript:
// the human's messages, the commands and their exit status, the files
// changed and the final answers.
//
// Task splitting rule: a human message opens a new task when the current
// task already has an assistant answer after its last human message, the
// message has at least two meaningful words, it is not a correction, a
// continuation ("also …", "now …", "what about …", "it still fails") or a
// standing instruction ("from now on …", "always …", "never …"), and it
// shares no meaningful word with the current task (its human words and the
// names of the files it touched). Everything else is a follow-up of the
// current task. After maxTasks tasks, new requests become follow-ups of the
// last one.
//
// Memory stays bounded whatever the transcript length: every list kept per
// task is capped, and the chronological step list keeps its head and a
// ring of its tail.
//
// What goes in which section of a task (the consolidator turns "Preference
// signals" into user preferences and the other two lists into general
// tips, so each must hold only what its name promises):
//
//   - Preference signals: standing instructions about HOW to work, taken
//     from the human's follow-up messages only (see preferenceSignal). The
//     message that opens a task says WHAT to do and never counts.
//   - Reusable knowledge: facts the transcript validated and a future agent
//     can act on: the command of each check purpose (test, lint, …) whose
//     latest run passed, a tool that is missing and the command that took
//     its place, a command that failed before a fix and passed after it.
//     Context (cwd, branch, files touched, the final answer) is not
//     knowledge; it goes to References and the summary's context line.
//   - Failures and how to do differently: each failing command family and
//     how it ended: passed after a fix, replaced by another command for the
//     same purpose, worked around (the task succeeded and the final answer
//     names the failing tool), or still failing.

// Limits on what the extractor keeps and prints.
const (
	maxTasks         = 6
	maxFollowUps     = 6
	maxPrefs         = 6
	maxTrackedFiles  = 200 // distinct files remembered per task
	maxTrackedCmds   = 200 // distinct command records per task
	maxFamilies      = 64
	maxRecoveries    = 5
	maxKeywordPool   = 2000
	maxTaskWords     = 400
	timelineHead     = 8
	timelineTail     = 16
	maxKeywords      = 12
	maxSlugBytes     = 80
	rawMemoryBudget  = 7000 // bytes; the raw memory must stay well under 8 KB
	summaryBudget    = 8000 // bytes; under the v2 9,000-byte cap
	requestMax       = 300
	lineMax          = 200
	finalAnswerMax   = 300
	keywordScanBytes = 4000 // only the head of a long human message feeds keywords
)

// Heuristic runs the offline extractor over a whole thread. It is
// deterministic and makes no network call. A thread without any human
// message yields an empty Output (the no-output path); an unknown version
// does too.
func Heuristic(version string, meta sessions.Meta, events []sessions.Event) Output {
	h := NewHeuristic(version, meta)
	for _, e := range events {
		h.Add(e)
	}
	return h.Output()
}

// HeuristicExtractor is the streaming form of Heuristic: feed it events in
// transcript order with Add, then call Output once. Its memory use is
// bounded by the caps above, not by the transcript length. It is not safe
// for concurrent use.
type HeuristicExtractor struct {
	version string
	meta    sessions.Meta

	tasks   []*task
	humans  int
	first   time.Time
	last    time.Time
	keys    map[string]int // keyword pool for the whole thread
	keyRank map[string]int // first-seen order, used for nothing but stable output on equal scores

	calls      map[string]*cmdRecord // call id → command record awaiting a result
	sessionCmd map[string]*cmdRecord // unified-exec session id → the command running in it
	lastCall   *cmdRecord            // the most recent command, for results without a call id
	lastCallID string
	seenChange map[string]bool // call id + path of file changes already counted
	subagents  int
}

// NewHeuristic returns an extractor for one thread.
func NewHeuristic(version string, meta sessions.Meta) *HeuristicExtractor {
	return &HeuristicExtractor{
		version:    version,
		meta:       meta,
		keys:       map[string]int{},
		keyRank:    map[string]int{},
		calls:      map[string]*cmdRecord{},
		sessionCmd: map[string]*cmdRecord{},
		seenChange: map[string]bool{},
	}
}

// task is what the extractor keeps about one request of the human.
type task struct {
	request    string
	followUps  []string
	prefs      []string
	negative   bool // the human's latest message in the task said it did not work
	answered   bool // assistant text came after the latest human message
	finalSince bool // a final answer came after the latest human message
	final      string
	words      map[string]bool
	files      map[string]*fileRec
	fileOrder  int
	cmds       map[string]*cmdRecord
	cmdCount   int
	failed     int
	explore    int
	tools      map[string]int
	families   map[string]*family
	recoveries []string
	validators []string              // non-check commands that failed, then passed after a fix
	byPurpose  map[string]*cmdRecord // latest settled check run per purpose
	toolErrs   []string              // failed non-shell tool calls (permission refusals, bad edits)
	lastCheck  *cmdRecord            // latest test/build command with a known status
	lastCmd    *cmdRecord            // latest non-exploratory command with a known status
	negAfter   bool                  // negative feedback came after the last passing check
	steps      timeline
	start, end time.Time
}

type fileRec struct {
	path    string
	ops     []string
	touches int
	order   int
}

type cmdRecord struct {
	tool    string // set for non-shell tool calls, whose command is ""
	target  string // the file a non-shell tool call works on
	command string
	family  string
	explore bool
	check   bool
	purpose string // what a check verifies: test, lint, type-check, build, check
	task    *task
	status  int // statusPending, statusOK, statusFail
	exit    *int
	errLine string
	runs    int
	fails   int
}

const (
	statusPending = iota
	statusOK
	statusFail
)

// family is an open failure of one command family within a task: it
// stays until a run of the same family passes.
type family struct {
	fails      int
	failCmd    string
	errLine    string
	missing    bool     // the command's program is not installed (exit 127, "command not found")
	purpose    string   // check purpose of the failing command, "" when it is no check
	editedSo   []string // files edited since the first failure
	ranSince   []string // non-check commands that succeeded since the first failure
	replacedBy []string // passing checks of the same purpose, other families, since the last failure
}

// Add feeds one event.
func (h *HeuristicExtractor) Add(e sessions.Event) {
	if !e.Time.IsZero() {
		if h.first.IsZero() || e.Time.Before(h.first) {
			h.first = e.Time
		}
		if e.Time.After(h.last) {
			h.last = e.Time
		}
	}
	switch e.Kind {
	case sessions.EventHuman:
		h.human(e)
	case sessions.EventAssistant:
		t := h.current()
		if t == nil {
			return
		}
		text := oneLine(e.Text)
		if text == "" {
			return
		}
		t.touch(e.Time)
		t.answered = true
		if e.Final {
			t.finalSince = true
			if text != t.final {
				// Some transcripts carry the final answer twice (message
				// item and turn-complete event); print it once.
				t.steps.add(step{kind: stepAnswer, text: shorten(text, 160)})
			}
			t.final = text
		}
	case sessions.EventToolCall:
		h.toolCall(e)
	case sessions.EventToolResult:
		h.toolResult(e)
	case sessions.EventFileChange:
		t := h.current()
		if t == nil || e.FilePath == "" {
			return
		}
		id := e.CallID
		if id == "" {
			id = h.lastCallID
		}
		key := changeKey(id, e.FilePath)
		if h.seenChange[key] {
			return
		}
		h.markChange(key)
		h.fileChange(t, e.FilePath, e.FileOp)
	case sessions.EventOtherAgent:
		h.subagents++
	}
}

// changeKey identifies a file change by call and base name: the readers
// and the tool input may spell the same path absolute or relative.
func changeKey(callID, p string) string {
	return callID + "\x00" + path.Base(p)
}

func (h *HeuristicExtractor) markChange(key string) {
	if len(h.seenChange) > 4096 {
		clear(h.seenChange)
	}
	h.seenChange[key] = true
}

func (h *HeuristicExtractor) current() *task {
	if len(h.tasks) == 0 {
		return nil
	}
	return h.tasks[len(h.tasks)-1]
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

// human handles one message of the human: a new task, a follow-up, a
// correction, a preference.
func (h *HeuristicExtractor) human(e sessions.Event) {
	text := cleanHuman(e.Text)
	if text == "" {
		return
	}
	h.humans++
	words := topicWords(meaningfulWords(text))
	negative := isNegative(text)
	cur := h.current()
	followUp := false
	if cur == nil || h.startsNewTask(cur, text, words, negative) {
		cur = &task{
			request:   shorten(text, requestMax),
			words:     map[string]bool{},
			files:     map[string]*fileRec{},
			cmds:      map[string]*cmdRecord{},
			tools:     map[string]int{},
			families:  map[string]*family{},
			byPurpose: map[string]*cmdRecord{},
		}
		h.tasks = append(h.tasks, cur)
		cur.steps.add(step{kind: stepAsk, text: shorten(text, lineMax)})
		h.addKeywords(words, 2)
	} else {
		followUp = true
		if len(cur.followUps) < maxFollowUps {
			cur.followUps = append(cur.followUps, shorten(text, lineMax))
		}
		kind := stepFollowUp
		if negative {
			kind = stepCorrection
		}
		cur.steps.add(step{kind: kind, text: shorten(text, lineMax)})
		h.addKeywords(words, 1)
		cur.negative = negative
		// A complaint stays open until the human moves on without one.
		cur.negAfter = negative
	}
	cur.touch(e.Time)
	cur.answered = false
	cur.finalSince = false
	cur.addWords(words)
	// The message that opens a task is the request itself, never a
	// preference; only what the human adds afterwards can say how to work.
	if !followUp {
		return
	}
	if p := preferenceSignal(text, negative); p != "" && len(cur.prefs) < maxPrefs {
		cur.prefs = append(cur.prefs, p)
	}
}

var continuationRE = regexp.MustCompile(`(?i)^(also|and|now|then|but|still|ok|okay|great|thanks|thank you|it|it's|its|that|this|these|those|same|again|what about|how about|tell me more|more|why|yes|no|nope|wait|instead|actually|hmm|plus|next|continue|go on|do it|try|i think|i believe|looks like|seems|don'?t|do not|please don'?t)\b`)

// standingStartRE matches a message that opens with a standing
// instruction: it says how to go on working, so it never opens a task (and
// thereby stays eligible as a preference).
var standingStartRE = regexp.MustCompile(`(?i)^(from now on|going forward|from here on|in (the )?future|always|never|avoid|prefer|please use|stop \w+ing)\b`)

func (h *HeuristicExtractor) startsNewTask(cur *task, text string, words []string, negative bool) bool {
	if len(h.tasks) >= maxTasks || !cur.answered || negative || len(words) < 2 {
		return false
	}
	if continuationRE.MatchString(text) || standingStartRE.MatchString(text) {
		return false
	}
	for _, w := range words {
		if cur.words[w] {
			return false
		}
	}
	// Related forms ("track", "tracking", "conversationId") count as shared.
	for _, w := range words {
		for tw := range cur.words {
			if relatedWords(w, tw) {
				return false
			}
		}
	}
	return true
}

// relatedWords reports whether one word starts with the other and the
// shorter has at least four letters.
func relatedWords(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	return len(a) >= 4 && strings.HasPrefix(b, a)
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

// toolCall records a tool invocation: its command, the files it changes.
func (h *HeuristicExtractor) toolCall(e sessions.Event) {
	t := h.current()
	if t == nil {
		return
	}
	t.touch(e.Time)
	tool := e.Tool
	if tool == "" {
		tool = "tool"
	}
	h.lastCallID = e.CallID

	// Polling a running unified-exec session: its results belong to the
	// command that opened the session.
	if e.Command == "" && strings.Contains(e.Input, `"session_id"`) {
		sid := jsonField(e.Input, "session_id")
		if rec := h.sessionCmd[sid]; rec != nil && e.CallID != "" {
			h.calls[e.CallID] = rec
		}
		if sid != "" {
			return
		}
	}
	t.tools[tool]++

	for _, fc := range filesFromTool(tool, e.Input) {
		key := changeKey(e.CallID, fc.path)
		if h.seenChange[key] {
			continue
		}
		h.markChange(key)
		h.fileChange(t, fc.path, fc.op)
	}

	cmd := strings.TrimSpace(e.Command)
	if cmd == "" {
		// Remember the call so an error result can be reported.
		if e.CallID != "" {
			if len(h.calls) > 1024 {
				clear(h.calls)
			}
			target := ""
			if fs := filesFromTool(tool, e.Input); len(fs) > 0 {
				target = h.relPath(h.absPath(fs[0].path))
			}
			h.calls[e.CallID] = &cmdRecord{tool: tool, target: target, task: t}
		}
		return
	}
	cmd = unwrapShell(cmd)
	for _, p := range filesFromShell(cmd) {
		key := changeKey(e.CallID, p.path)
		if !h.seenChange[key] {
			h.markChange(key)
			h.fileChange(t, p.path, p.op)
		}
	}
	rec := t.cmds[cmd]
	if rec == nil {
		if len(t.cmds) >= maxTrackedCmds {
			// Past the cap, count the run without remembering a new record.
			t.cmdCount++
			return
		}
		rec = &cmdRecord{command: cmd, family: commandFamily(cmd), task: t}
		rec.explore = isExploration(cmd)
		rec.check = !rec.explore && isCheck(cmd)
		if rec.check {
			rec.purpose = checkPurpose(cmd)
		}
		t.cmds[cmd] = rec
	}
	// A fresh run of the same command starts undecided again.
	run := &cmdRecord{command: rec.command, family: rec.family, explore: rec.explore, check: rec.check, purpose: rec.purpose, task: t}
	rec.runs++
	t.cmdCount++
	if rec.explore {
		t.explore++
		t.steps.add(step{kind: stepExplore, text: firstWord(cmd)})
	} else {
		t.steps.add(step{kind: stepCommand, rec: run})
		if name := firstWord(cmd); !rec.check && !basicCmds[name] {
			h.addKeyword(name, 1)
		} else if rec.check {
			h.addKeyword(rec.family, 1)
		}
	}
	if e.CallID != "" {
		if len(h.calls) > 1024 {
			clear(h.calls)
		}
		h.calls[e.CallID] = run
	}
	h.lastCall = run
}

var sessionRE = regexp.MustCompile(`Process running with session ID (\d+)`)

// toolResult settles the status of the command a result belongs to.
func (h *HeuristicExtractor) toolResult(e sessions.Event) {
	run := h.calls[e.CallID]
	if e.CallID == "" {
		run = h.lastCall
	}
	if run == nil {
		return
	}
	if m := sessionRE.FindStringSubmatch(e.Output); m != nil && e.ExitCode == nil && !e.IsError {
		// Still running: a later poll of this session carries the status.
		if len(h.sessionCmd) > 256 {
			clear(h.sessionCmd)
		}
		h.sessionCmd[m[1]] = run
		return
	}
	if run.status != statusPending {
		return
	}
	t := run.task
	if run.command == "" {
		run.status = statusOK
		if e.IsError && len(t.toolErrs) < 3 {
			run.status = statusFail
			line := "`" + run.tool + "`"
			if run.target != "" {
				line += " on " + run.target
			}
			line += " failed: " + quoteCode(errorLine(e.Output)) + "; check why before retrying the same call."
			t.toolErrs = append(t.toolErrs, line)
		}
		return
	}
	t.touch(e.Time)
	run.exit = e.ExitCode
	failed := e.IsError || (e.ExitCode != nil && *e.ExitCode != 0)
	rec := t.cmds[run.command]
	if failed {
		run.status = statusFail
		run.errLine = errorLine(e.Output)
		if rec != nil {
			rec.fails++
			rec.errLine = run.errLine
		}
		h.addErrorKeywords(run.errLine)
	} else {
		run.status = statusOK
	}
	if run.explore {
		return
	}
	if failed {
		t.failed++
	}
	t.lastCmd = run
	if run.check {
		t.lastCheck = run
		t.byPurpose[run.purpose] = run
		if !failed {
			t.negAfter = false
		}
	}
	h.trackFamily(t, run, failed)
}

// trackFamily remembers failures of a command family (go test, npm run
// build …) and how each one ended. Three endings are recognised here:
//
//   - a later run of the same family passes: "failed N times, then passed
//     after changes to …" (recoveries, written now);
//   - a passing check of the same purpose from another family comes after
//     the failure ("golangci-lint run" fails, "make lint" passes): the
//     family remembers its replacement and stays open, so the digest can
//     phrase it as a substitution;
//   - nothing: the digest reports the failure as open (or as worked around
//     when the task succeeded and the final answer names the tool).
func (h *HeuristicExtractor) trackFamily(t *task, run *cmdRecord, failed bool) {
	if !failed {
		for name, f := range t.families {
			if name == run.family || f.fails == 0 {
				continue
			}
			switch {
			case run.check && run.purpose == f.purpose:
				if len(f.replacedBy) < 3 && !slices.Contains(f.replacedBy, run.command) {
					f.replacedBy = append(f.replacedBy, run.command)
				}
			case !run.check && len(f.ranSince) < 2 && !slices.Contains(f.ranSince, run.command):
				f.ranSince = append(f.ranSince, run.command)
			}
		}
	}
	f := t.families[run.family]
	if f == nil {
		if !failed || len(t.families) >= maxFamilies {
			return
		}
		f = &family{purpose: run.purpose}
		t.families[run.family] = f
	}
	if failed {
		f.fails++
		f.failCmd = run.command
		f.errLine = run.errLine
		f.missing = isMissingTool(run)
		// A replacement only counts when it passes after the latest failure.
		f.replacedBy = nil
		return
	}
	if f.fails > 0 && len(t.recoveries) < maxRecoveries {
		t.recoveries = append(t.recoveries, recoveryLine(f, run))
		if !run.check && len(t.validators) < 3 && !slices.Contains(t.validators, run.command) {
			t.validators = append(t.validators, run.command)
		}
	}
	delete(t.families, run.family)
}

// recoveryLine phrases a failure that a later run of the same family fixed.
// It names the passing command only when it differs from the failing one,
// and says what happened in between: file edits, else successful commands.
func recoveryLine(f *family, run *cmdRecord) string {
	var b strings.Builder
	fmt.Fprintf(&b, "`%s` failed %s", shorten(f.failCmd, 120), times(f.fails))
	if f.errLine != "" {
		fmt.Fprintf(&b, " (%s)", quoteCode(shorten(f.errLine, 160)))
	}
	b.WriteString(", then ")
	if run.command != f.failCmd {
		fmt.Fprintf(&b, "`%s` ", shorten(run.command, 120))
	}
	b.WriteString("passed")
	switch {
	case len(f.editedSo) > 0:
		b.WriteString(" after changes to " + strings.Join(f.editedSo, ", "))
	case len(f.ranSince) > 0:
		b.WriteString(" after running `" + strings.Join(shortenAll(f.ranSince, 100), "`, `") + "`")
	default:
		b.WriteString(" on a rerun with nothing changed in between (flaky?)")
	}
	b.WriteString("; rerun it after similar changes before calling the task done.")
	return b.String()
}

func times(n int) string {
	if n == 1 {
		return "once"
	}
	return strconv.Itoa(n) + " times"
}

func shortenAll(list []string, max int) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = shorten(s, max)
	}
	return out
}

// notInstalledRE matches what shells print when a program does not exist.
var notInstalledRE = regexp.MustCompile(`(?i)command not found|is not recognized as an internal or external command|: not found\b|no such file or directory`)

// isMissingTool reports a failed run whose program is not installed: exit
// status 127, or a "not found" message that names the program itself
// (so "cat: x.txt: No such file or directory" does not count).
func isMissingTool(run *cmdRecord) bool {
	tool := firstWord(run.command)
	if tool == "" {
		return false
	}
	if run.exit != nil && *run.exit == 127 {
		return true
	}
	return notInstalledRE.MatchString(run.errLine) && strings.Contains(run.errLine, tool)
}

// fileChange counts one change of a file in task t.
func (h *HeuristicExtractor) fileChange(t *task, p, op string) {
	p = h.absPath(p)
	op = normalizeOp(op)
	f := t.files[p]
	if f == nil {
		if len(t.files) >= maxTrackedFiles {
			return
		}
		t.fileOrder++
		f = &fileRec{path: p, order: t.fileOrder}
		t.files[p] = f
		if op == "write" {
			op = "add"
		}
	} else if op == "write" {
		op = "update"
	}
	f.touches++
	if !slices.Contains(f.ops, op) {
		f.ops = append(f.ops, op)
	}
	base := path.Base(p)
	h.addKeyword(strings.ToLower(base), 2)
	t.addWords(append([]string{strings.ToLower(base)}, topicWords(nameParts(p))...))
	rel := h.relPath(p)
	for _, fam := range t.families {
		if fam.fails > 0 && len(fam.editedSo) < 3 && !slices.Contains(fam.editedSo, rel) {
			fam.editedSo = append(fam.editedSo, rel)
		}
	}
	t.steps.add(step{kind: stepFiles, op: op, files: []string{h.relPath(p)}})
}

func normalizeOp(op string) string {
	switch strings.ToLower(op) {
	case "add", "create", "created", "new":
		return "add"
	case "delete", "deleted", "remove", "removed":
		return "delete"
	case "write":
		return "write"
	default:
		return "update"
	}
}

// absPath resolves a relative path against the thread's cwd so that
// "hello.js" and "/tmp/private/hello.js" count as one file.
func (h *HeuristicExtractor) absPath(p string) string {
	if p == "" || strings.HasPrefix(p, "/") || h.meta.Cwd == "" || !strings.HasPrefix(h.meta.Cwd, "/") {
		return p
	}
	if len(p) > 1 && p[1] == ':' { // a Windows drive path
		return p
	}
	return path.Join(h.meta.Cwd, p)
}

// relPath shows a path relative to the thread's cwd when it lies under it:
// shorter, and still valid the next time someone works in that project.
func (h *HeuristicExtractor) relPath(p string) string {
	cwd := strings.TrimRight(h.meta.Cwd, "/")
	if cwd != "" && strings.HasPrefix(p, cwd+"/") {
		return p[len(cwd)+1:]
	}
	return p
}

// ---------------------------------------------------------------------------
// Keywords

func (h *HeuristicExtractor) addKeywords(words []string, weight int) {
	for _, w := range words {
		if len(w) >= 3 {
			h.addKeyword(w, weight)
		}
	}
}

func (h *HeuristicExtractor) addKeyword(w string, weight int) {
	w = strings.TrimSpace(w)
	if w == "" || stopWords[w] {
		return
	}
	if _, ok := h.keys[w]; !ok {
		if len(h.keys) >= maxKeywordPool {
			return
		}
		h.keyRank[w] = len(h.keyRank)
	}
	h.keys[w] += weight
}

var errorIdentRE = regexp.MustCompile(`\b([A-Z][A-Za-z]*(?:Error|Exception)|E[0-9]{3,5}|TS[0-9]{4}|ENOENT|EACCES|EADDRINUSE|ECONNREFUSED|SIGSEGV)\b`)

func (h *HeuristicExtractor) addErrorKeywords(line string) {
	for _, m := range errorIdentRE.FindAllString(line, 3) {
		h.addKeyword(m, 2)
	}
}

// keywords returns the best keywords: highest score first, ties broken
// alphabetically so the output never depends on map order.
func (h *HeuristicExtractor) keywords(n int) []string {
	type kv struct {
		k string
		v int
	}
	all := make([]kv, 0, len(h.keys))
	for k, v := range h.keys {
		all = append(all, kv{k, v})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].v != all[j].v {
			return all[i].v > all[j].v
		}
		return all[i].k < all[j].k
	})
	var out []string
	for _, e := range all {
		if len(out) == n {
			break
		}
		out = append(out, e.k)
	}
	return out
}

// ---------------------------------------------------------------------------
// Rendering

// Output renders what was gathered. Call it once, after the last event.
func (h *HeuristicExtractor) Output() Output {
	if checkVersion(h.version) != nil || len(h.tasks) == 0 || h.humans == 0 {
		return Output{}
	}
	d := h.digest()
	slug := h.slug(d)
	out := Output{RolloutSlug: &slug}
	for _, items := range []int{6, 4, 3, 2, 1} {
		out.RolloutSummary = h.renderSummary(d, items)
		if len(out.RolloutSummary) <= summaryBudget {
			break
		}
	}
	out.RolloutSummary = truncateMiddle(out.RolloutSummary, summaryBudget)
	if h.version == V1 {
		for _, items := range []int{6, 4, 3, 2, 1} {
			out.RawMemory = h.renderRawMemory(d, items)
			if len(out.RawMemory) <= rawMemoryBudget {
				break
			}
		}
		out.RawMemory = truncateMiddle(out.RawMemory, rawMemoryBudget)
	}
	return out
}

// taskDigest is a task reduced to the lists both renderings print.
type taskDigest struct {
	name       string
	final      string
	score      int // how much work the task holds; picks the main task
	outcome    string
	reason     string
	prefs      []string
	steps      []string
	failures   []string
	knowledge  []string
	references []string
	files      []*fileRec
}

type digest struct {
	project  string
	cwd      string
	keywords []string
	tasks    []taskDigest
	commands int
	failed   int
	files    int
}

func (h *HeuristicExtractor) digest() digest {
	d := digest{project: h.project(), cwd: h.meta.Cwd, keywords: h.keywords(maxKeywords)}
	if d.cwd == "" {
		d.cwd = "unknown"
	}
	for _, t := range h.tasks {
		td := taskDigest{name: shorten(t.request, 100), prefs: t.prefs, final: t.final}
		td.score = t.cmdCount - t.explore + 2*len(t.files) + len(t.followUps) + len(t.prefs)
		td.outcome, td.reason = t.outcome()
		td.files = t.sortedFiles()
		d.commands += t.cmdCount
		d.failed += t.failed
		d.files += len(t.files)

		td.steps = t.steps.render()
		if len(t.tools) > 0 {
			td.steps = append(td.steps, "Tools used: "+toolList(t.tools)+".")
		}

		td.failures = append(td.failures, t.recoveries...)
		td.failures = append(td.failures, t.toolErrs...)
		open := sortedFamilies(t.families)
		for _, fam := range open {
			td.failures = append(td.failures, openFailure(fam, td.outcome, t.final, t.files))
		}
		if t.negAfter && len(t.recoveries) == 0 {
			td.failures = append(td.failures, "The user reported that the result did not work; check their complaint before repeating the same approach.")
		}

		td.knowledge = knowledge(t, open)
		td.references = h.references(t, td.files)
		d.tasks = append(d.tasks, td)
	}
	return d
}

// outcome triages a task: failing last checks or unanswered complaints
// mean fail, a passing last check means success, and a final answer that
// reports completion counts as success only when nothing contradicts it.
func (t *task) outcome() (string, string) {
	switch {
	case t.lastCheck != nil && t.lastCheck.status == statusFail:
		return "fail", fmt.Sprintf("the last check `%s` failed", shorten(t.lastCheck.command, 80))
	case t.lastCheck != nil && !t.negAfter && t.lastCheck.status == statusOK:
		return "success", fmt.Sprintf("the last check `%s` passed", shorten(t.lastCheck.command, 80))
	case t.negative && !t.finalSince:
		return "fail", "the user said it did not work and nothing shows it was fixed"
	case t.final != "" && reportsFailure(t.final):
		return "partial", "the final answer reports that part of the work could not be done"
	case t.negAfter:
		return "uncertain", "the user reported a problem and no check confirms the fix"
	case !t.finalSince && (t.cmdCount > 0 || len(t.files) > 0):
		return "partial", "the session ended before a final answer"
	case !t.finalSince && !t.answered:
		return "uncertain", "the session ended before the assistant answered the last message"
	case t.lastCmd != nil && t.lastCmd.status == statusFail:
		return "partial", fmt.Sprintf("the last command `%s` failed", shorten(t.lastCmd.command, 80))
	case reportsCompletion(t.final):
		return "success", "the final answer reports the work as done and nothing contradicts it"
	case t.final != "":
		return "uncertain", "the assistant answered but nothing confirms the result"
	case t.cmdCount > 0 || len(t.files) > 0:
		return "partial", "the session ended before a final answer"
	}
	return "uncertain", "the session ended without an answer"
}

func (t *task) sortedFiles() []*fileRec {
	fs := make([]*fileRec, 0, len(t.files))
	for _, f := range t.files {
		fs = append(fs, f)
	}
	sort.Slice(fs, func(i, j int) bool {
		if fs[i].touches != fs[j].touches {
			return fs[i].touches > fs[j].touches
		}
		return fs[i].order < fs[j].order
	})
	return fs
}

func sortedFamilies(m map[string]*family) []*family {
	keys := make([]string, 0, len(m))
	for k, f := range m {
		if f.fails > 0 {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := make([]*family, 0, len(keys))
	for _, k := range keys {
		out = append(out, m[k])
	}
	return out
}

// openFailure phrases a failure no run of its own family fixed:
//
//   - replaced: a passing check of the same purpose came after it
//     ("`golangci-lint` is not installed (command not found); used `go vet
//     ./...` through `make lint` instead");
//   - worked around: the task succeeded and the final answer names the
//     failing tool, so the answer's sentence explains what was done;
//   - side issue: the task succeeded without the command passing;
//   - open: otherwise the next attempt starts from this error.
func openFailure(f *family, outcome, final string, files map[string]*fileRec) string {
	cmd := "`" + shorten(f.failCmd, 120) + "`"
	why := ""
	if f.errLine != "" {
		why = quoteCode(shorten(f.errLine, 160))
	}
	if len(f.replacedBy) > 0 {
		used := replacementPhrase(f.replacedBy, files)
		if f.missing {
			return fmt.Sprintf("`%s` is not installed (command not found); used %s instead.", firstWord(f.failCmd), used)
		}
		line := cmd + " failed " + times(f.fails)
		if why != "" {
			line += " (" + why + ")"
		}
		return line + "; used " + used + " instead for " + f.purpose + ", which passed."
	}
	failed := cmd + " failed " + times(f.fails)
	if f.missing {
		failed = "`" + firstWord(f.failCmd) + "` is not installed (" + cmd + ": command not found)"
	} else if why != "" {
		failed += " (" + why + ")"
	}
	if outcome == "success" {
		if s := sentenceNaming(final, toolNeedle(f.failCmd)); s != "" {
			return failed + " and the task succeeded without it: " + quote(shorten(s, 220))
		}
		return failed + " and was never rerun successfully; the task succeeded anyway, so check whether it matters before relying on it."
	}
	if f.missing {
		return failed + "; install it or find the project's own command for this step before retrying."
	}
	line := cmd + " still failed at the end"
	if why != "" {
		line += " with " + why
	}
	return line + "; start the next attempt from this error."
}

// wrapperFiles maps a task runner to the files that define its targets. A
// runner target that passed next to a plain command counts as running that
// command ("`go vet ./...` through `make lint`") only when the task edited
// the runner's file, i.e. the agent wired the two together.
var wrapperFiles = map[string][]string{
	"make": {"Makefile", "makefile", "GNUmakefile"}, "just": {"justfile", "Justfile", ".justfile"},
	"task": {"Taskfile.yml", "Taskfile.yaml"}, "npm": {"package.json"}, "yarn": {"package.json"},
	"pnpm": {"package.json"}, "bun": {"package.json"},
}

// replacementPhrase names the commands that replaced a failing one.
func replacementPhrase(cmds []string, files map[string]*fileRec) string {
	var wrapper, plain []string
	for _, c := range cmds {
		if names := wrapperFiles[firstWord(c)]; len(names) > 0 && editedAny(files, names) {
			wrapper = append(wrapper, c)
		} else {
			plain = append(plain, c)
		}
	}
	code := func(list []string) string {
		return "`" + strings.Join(shortenAll(list, 100), "` and `") + "`"
	}
	if len(wrapper) > 0 && len(plain) > 0 {
		return code(plain) + " through " + code(wrapper)
	}
	return code(cmds)
}

func editedAny(files map[string]*fileRec, names []string) bool {
	for _, f := range files {
		if slices.Contains(names, path.Base(f.path)) {
			return true
		}
	}
	return false
}

// toolNeedle is the text a final answer would use to name a failing
// command: its program ("golangci-lint"), or its family when the program is
// a multiplexer whose bare name says nothing ("npm run lint", not "npm").
func toolNeedle(cmd string) string {
	tool := firstWord(cmd)
	if multiplexers[tool] || tool == "python" || tool == "python3" || len(tool) < 3 {
		return commandFamily(cmd)
	}
	return tool
}

// sentenceNaming returns the first sentence of text that mentions needle
// (case-insensitive), "" when none does.
func sentenceNaming(text, needle string) string {
	if text == "" || needle == "" {
		return ""
	}
	low := strings.ToLower(needle)
	for _, s := range sentences(text) {
		if strings.Contains(strings.ToLower(s), low) {
			return s
		}
	}
	return ""
}

// targetedFlags select part of a test suite by name.
var targetedFlags = map[string]bool{"-run": true, "-k": true, "-t": true, "--grep": true, "-g": true,
	"--testNamePattern": true, "-m": true, "--filter": true}

// targeted reports a check run narrowed to some tests or files, which must
// not be passed off as the project's command: a name filter flag, or an
// argument naming a file ("src/a.test.ts", "tests/test_x.py").
func targeted(cmd string) bool {
	for i, w := range commandCore(cmd) {
		if i == 0 || strings.ContainsAny(w, "|;&") {
			continue
		}
		if targetedFlags[w] {
			return true
		}
		base := path.Base(strings.Trim(w, `'"`))
		if !strings.HasPrefix(w, "-") && strings.Contains(base, ".") && !strings.HasPrefix(base, ".") {
			return true
		}
	}
	return false
}

// purposeOrder fixes the order of knowledge lines about working checks.
var purposeOrder = []string{"test", "lint", "type-check", "build", "check"}

// maxKnowledge caps the knowledge lines of one task.
const maxKnowledge = 5

// knowledge lists the validated facts of a task (see the rules at the top
// of the file). open holds the task's failing families still open at the
// end; those with a replacement yield a substitution fact, which also
// stands for their purpose's working command.
func knowledge(t *task, open []*family) []string {
	var out []string
	covered := map[string]bool{}
	for _, f := range open {
		if len(f.replacedBy) == 0 || len(out) >= maxKnowledge {
			continue
		}
		used := replacementPhrase(f.replacedBy, t.files)
		if f.missing {
			out = append(out, fmt.Sprintf("`%s` is not installed here; %s is the %s step that works.", firstWord(f.failCmd), used, f.purpose))
		} else {
			out = append(out, fmt.Sprintf("For %s, %s passes here where `%s` failed.", f.purpose, used, shorten(f.failCmd, 100)))
		}
		covered[f.purpose] = true
	}
	for _, p := range purposeOrder {
		run := t.byPurpose[p]
		if run == nil || run.status != statusOK || covered[p] || len(out) >= maxKnowledge {
			continue
		}
		switch {
		case targeted(run.command):
			out = append(out, fmt.Sprintf("`%s` passes (a targeted %s run, not the whole suite).", shorten(run.command, 160), p))
		case p == "check":
			out = append(out, fmt.Sprintf("`%s` passes and is a working check for this project.", shorten(run.command, 160)))
		default:
			out = append(out, fmt.Sprintf("`%s` passes and is the project's %s command.", shorten(run.command, 160), p))
		}
	}
	for _, c := range t.validators {
		if len(out) >= maxKnowledge {
			break
		}
		out = append(out, fmt.Sprintf("`%s` is the check for this kind of change (it failed before the fix and passed after it).", shorten(c, 160)))
	}
	return out
}

func (h *HeuristicExtractor) references(t *task, files []*fileRec) []string {
	var out []string
	for _, rec := range sortedCmds(t.cmds) {
		if rec.explore || (!rec.check && rec.fails == 0) {
			continue
		}
		line := "`" + shorten(rec.command, 160) + "`"
		switch {
		case rec.fails > 0 && rec.errLine != "":
			line += fmt.Sprintf(" (ran %d×, failed %d×; error: %s)", rec.runs, rec.fails, quoteCode(shorten(rec.errLine, 160)))
		case rec.fails > 0:
			line += fmt.Sprintf(" (ran %d×, failed %d×)", rec.runs, rec.fails)
		default:
			line += fmt.Sprintf(" (ran %d×)", rec.runs)
		}
		out = append(out, line)
		if len(out) == 6 {
			break
		}
	}
	for _, rec := range sortedCmds(t.cmds) {
		if len(out) >= 8 {
			break
		}
		if !rec.explore && !rec.check && rec.fails == 0 {
			out = append(out, "`"+shorten(rec.command, 160)+"`")
		}
	}
	for i, f := range files {
		if i == 10 {
			out = append(out, fmt.Sprintf("… and %d more files", len(files)-10))
			break
		}
		out = append(out, fmt.Sprintf("%s (%s)", f.path, strings.Join(f.ops, ", ")))
	}
	return out
}

// sortedCmds orders command records by how often they ran, then by text.
func sortedCmds(m map[string]*cmdRecord) []*cmdRecord {
	out := make([]*cmdRecord, 0, len(m))
	for _, r := range m {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].fails != out[j].fails {
			return out[i].fails > out[j].fails
		}
		if out[i].runs != out[j].runs {
			return out[i].runs > out[j].runs
		}
		return out[i].command < out[j].command
	})
	return out
}

func toolList(m map[string]int) string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if m[names[i]] != m[names[j]] {
			return m[names[i]] > m[names[j]]
		}
		return names[i] < names[j]
	})
	if len(names) > 8 {
		names = names[:8]
	}
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s ×%d", n, m[n])
	}
	return strings.Join(parts, ", ")
}

func (h *HeuristicExtractor) project() string {
	if r := strings.TrimSuffix(strings.TrimRight(h.meta.GitRemote, "/"), ".git"); r != "" {
		if i := strings.LastIndexAny(r, "/:"); i >= 0 && i < len(r)-1 {
			return r[i+1:]
		}
	}
	if c := strings.TrimRight(h.meta.Cwd, "/"); c != "" {
		return path.Base(c)
	}
	return "unknown"
}

var kindNames = map[sessions.Kind]string{
	sessions.KindCodex:      "Codex CLI",
	sessions.KindClaudeCode: "Claude Code",
	sessions.KindJSONL:      "JSONL",
}

func (h *HeuristicExtractor) context(d digest) string {
	var b strings.Builder
	b.WriteString("Rollout context: ")
	kind := kindNames[h.meta.Kind]
	if kind == "" {
		kind = "Agent"
	}
	b.WriteString(kind + " session")
	if h.meta.ID != "" {
		b.WriteString(" `" + h.meta.ID + "`")
	}
	if h.meta.Cwd != "" {
		b.WriteString(" in `" + h.meta.Cwd + "`")
	}
	b.WriteString(" (project " + d.project)
	if h.meta.GitBranch != "" {
		b.WriteString(", branch `" + h.meta.GitBranch + "`")
	}
	b.WriteString(")")
	start, end := h.meta.CreatedAt, h.meta.UpdatedAt
	if start.IsZero() {
		start = h.first
	}
	if end.IsZero() {
		end = h.last
	}
	if !start.IsZero() {
		from := start.UTC().Format("2006-01-02 15:04")
		b.WriteString(", " + from)
		if to := end.UTC().Format("2006-01-02 15:04"); !end.IsZero() && to != from {
			b.WriteString(" to " + to)
		}
		b.WriteString(" UTC")
	}
	if h.meta.Source != "" {
		b.WriteString(", source " + h.meta.Source)
	}
	if h.meta.Model != "" {
		b.WriteString(", model " + h.meta.Model)
	}
	fmt.Fprintf(&b, ". The human sent %s; the agent ran %s (%d failed) and changed %s.",
		plural(h.humans, "message"), plural(d.commands, "command"), d.failed, plural(d.files, "file"))
	if h.subagents > 0 {
		fmt.Fprintf(&b, " Sub-agents exchanged %s.", plural(h.subagents, "message"))
	}
	b.WriteString(" Summary written by memctl's offline heuristic extractor from the transcript's structure.")
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// main picks the task the thread is about: the first one, unless a later
// task holds clearly more work (a "show tools" warm-up before the real job).
func (d digest) main() int {
	best := 0
	for i, t := range d.tasks {
		if t.score > d.tasks[best].score {
			best = i
		}
	}
	return best
}

func (h *HeuristicExtractor) title(d digest) string {
	t := d.tasks[d.main()]
	title := t.name
	if len(d.tasks) > 1 {
		title += " (and " + plural(len(d.tasks)-1, "more task") + ")"
	}
	return "# " + title + " in " + d.project
}

func (h *HeuristicExtractor) renderSummary(d digest, items int) string {
	var b strings.Builder
	b.WriteString(h.title(d) + "\n\n")
	b.WriteString(h.context(d) + "\n")
	for i, t := range d.tasks {
		fmt.Fprintf(&b, "\n## Task %d: %s\n\n", i+1, t.name)
		fmt.Fprintf(&b, "Outcome: %s (%s)\n", t.outcome, t.reason)
		if h.version == V2 {
			writeList(&b, "What happened, in order:", t.steps, items*3, false)
			writeList(&b, "What the user asked for in this task (their words, not general preferences):", t.prefs, items, false)
		} else {
			writeList(&b, "Preference signals:", t.prefs, items, false)
			writeList(&b, "Key steps:", t.steps, items*3, false)
		}
		writeList(&b, "Failures and how to do differently:", t.failures, items, false)
		writeList(&b, "Reusable knowledge:", t.knowledge, items, false)
		writeList(&b, "References:", t.references, items+2, true)
	}
	return b.String()
}

func (h *HeuristicExtractor) renderRawMemory(d digest, items int) string {
	var b strings.Builder
	first := d.tasks[d.main()]
	desc := first.name + " — outcome " + first.outcome
	if len(first.files) > 0 {
		desc += fmt.Sprintf("; changed %s", plural(len(first.files), "file"))
	}
	if len(d.tasks) > 1 {
		desc += "; " + plural(len(d.tasks)-1, "more task") + " in the same session"
	}
	b.WriteString("---\n")
	b.WriteString("description: " + oneLine(desc) + "\n")
	b.WriteString("task: " + first.name + "\n")
	b.WriteString("task_group: " + d.project + "\n")
	b.WriteString("task_outcome: " + first.outcome + "\n")
	b.WriteString("cwd: " + d.cwd + "\n")
	b.WriteString("keywords: " + strings.Join(d.keywords, ", ") + "\n")
	b.WriteString("---\n")
	for i, t := range d.tasks {
		fmt.Fprintf(&b, "\n### Task %d: %s\n", i+1, t.name)
		b.WriteString("task: " + t.name + "\n")
		b.WriteString("task_group: " + d.project + "\n")
		b.WriteString("task_outcome: " + t.outcome + "\n")
		writeList(&b, "Preference signals:", t.prefs, items, false)
		writeList(&b, "Reusable knowledge:", t.knowledge, items, false)
		writeList(&b, "Failures and how to do differently:", t.failures, items, false)
		refs := t.references
		maxRefs := items + 2
		if t.final != "" {
			// The raw memory has no key steps, so the result is kept as
			// evidence here, inside the cap so that it is never cut.
			at := min(len(refs), maxRefs)
			refs = slices.Insert(slices.Clone(refs), at, "Final answer: "+quote(shorten(t.final, finalAnswerMax)))
			maxRefs++
		}
		writeList(&b, "References:", refs, maxRefs, false)
	}
	return b.String()
}

// writeList prints a titled list, "- none" when empty, at most max items.
func writeList(b *strings.Builder, title string, items []string, max int, numbered bool) {
	b.WriteString("\n" + title + "\n")
	if len(items) == 0 {
		b.WriteString("- none\n")
		return
	}
	for i, it := range items {
		if i == max {
			fmt.Fprintf(b, "- … %d more\n", len(items)-max)
			break
		}
		if numbered {
			fmt.Fprintf(b, "%d. %s\n", i+1, it)
		} else {
			b.WriteString("- " + it + "\n")
		}
	}
}

// slug names the thread after the first request's meaningful words, in the
// order the human wrote them; the keywords fill in when there are too few.
func (h *HeuristicExtractor) slug(d digest) string {
	words := meaningfulWords(h.tasks[d.main()].request)
	var parts []string
	seen := map[string]bool{}
	add := func(w string) {
		w = slugPart(w)
		if w == "" || seen[w] || len(parts) >= 5 {
			return
		}
		seen[w] = true
		parts = append(parts, w)
	}
	for _, w := range words {
		add(w)
	}
	if len(parts) < 3 {
		for _, k := range h.keywords(maxKeywords) {
			add(k)
		}
	}
	s := strings.Join(parts, "-")
	for len(s) > maxSlugBytes {
		i := strings.LastIndexByte(s[:maxSlugBytes], '-')
		if i <= 0 {
			s = s[:maxSlugBytes]
			break
		}
		s = s[:i]
	}
	return s
}

func slugPart(w string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(w) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		case r == '-' || r == '.' || r == '/':
			b.WriteByte('-')
		}
	}
	return strings.Trim(b.String(), "-_")
}

// ---------------------------------------------------------------------------
// Timeline: the chronological steps of a task, with repeats folded and
// the middle dropped when a task is long.

type stepKind int

const (
	stepAsk stepKind = iota
	stepFollowUp
	stepCorrection
	stepCommand
	stepExplore
	stepFiles
	stepAnswer
)

type step struct {
	kind  stepKind
	text  string
	rec   *cmdRecord
	op    string
	files []string
	count int
	names []string // exploration: distinct command names
}

type timeline struct {
	head    []step
	tail    []step // ring buffer of the latest steps
	next    int    // next write position in tail once full
	dropped int
}

func (tl *timeline) lastStep() *step {
	if len(tl.tail) > 0 {
		i := tl.next - 1
		if len(tl.tail) < timelineTail {
			i = len(tl.tail) - 1
		} else if i < 0 {
			i = len(tl.tail) - 1
		}
		return &tl.tail[i]
	}
	if len(tl.head) > 0 {
		return &tl.head[len(tl.head)-1]
	}
	return nil
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
	if len(tl.head) < timelineHead {
		tl.head = append(tl.head, s)
		return
	}
	if len(tl.tail) < timelineTail {
		tl.tail = append(tl.tail, s)
		return
	}
	tl.tail[tl.next] = s
	tl.next = (tl.next + 1) % timelineTail
	tl.dropped++
}

func (tl *timeline) steps() []step {
	out := slices.Clone(tl.head)
	if len(tl.tail) < timelineTail {
		return append(out, tl.tail...)
	}
	out = append(out, tl.tail[tl.next:]...)
	return append(out, tl.tail[:tl.next]...)
}

// render prints the steps; runs of the same command with the same result
// fold into one line. Statuses are read now, after every result arrived.
func (tl *timeline) render() []string {
	var out []string
	var prev *step
	for i, s := range tl.steps() {
		if i == len(tl.head) && tl.dropped > 0 {
			out = append(out, fmt.Sprintf("… %d steps omitted …", tl.dropped))
			prev = nil
		}
		if s.kind == stepCommand && prev != nil && prev.kind == stepCommand && sameRun(prev.rec, s.rec) {
			prev.count++
			out[len(out)-1] = prev.render()
			continue
		}
		out = append(out, s.render())
		prev = &s
	}
	return out
}

func sameRun(a, b *cmdRecord) bool {
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
		return fmt.Sprintf("Explored with %s (%s).", plural(s.count, "read-only command"), strings.Join(s.names, ", "))
	case stepFiles:
		verb := map[string]string{"add": "Created", "delete": "Deleted", "update": "Edited"}[s.op]
		if verb == "" {
			verb = "Changed"
		}
		line := verb + " " + strings.Join(s.files, ", ")
		if s.count > 1 {
			line += fmt.Sprintf(" and %d more", s.count-1)
		}
		return line + "."
	case stepAnswer:
		return "The assistant answered: " + quote(s.text)
	case stepCommand:
		r := s.rec
		line := "Ran `" + shorten(r.command, 160) + "`"
		if s.count > 1 {
			line += fmt.Sprintf(" (%d times in a row)", s.count)
		}
		switch r.status {
		case statusOK:
			if r.exit != nil {
				line += fmt.Sprintf(": exit %d", *r.exit)
			} else {
				line += ": ok"
			}
		case statusFail:
			if r.exit != nil {
				line += fmt.Sprintf(": failed, exit %d", *r.exit)
			} else {
				line += ": failed"
			}
			if r.errLine != "" {
				line += " — " + quoteCode(shorten(r.errLine, 160))
			}
		default:
			line += ": status unknown"
		}
		return line + "."
	}
	return s.text
}

// ---------------------------------------------------------------------------
// Text helpers

var (
	tagBlockRE = regexp.MustCompile(`(?s)<(system-reminder|local-command-stdout|local-command-stderr|command-message)>.*?</(system-reminder|local-command-stdout|local-command-stderr|command-message)>`)
	tagRE      = regexp.MustCompile(`</?(command-name|command-args|command-contents)>`)
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

// cleanHuman strips harness wrappers from a human message and folds it to
// one line; it returns "" when nothing the human typed remains.
func cleanHuman(s string) string {
	t := normQuotes(strings.TrimSpace(s))
	low := strings.ToLower(t)
	for _, p := range harnessPrefixes {
		if strings.HasPrefix(low, p) {
			return ""
		}
	}
	t = tagBlockRE.ReplaceAllString(t, " ")
	t = tagRE.ReplaceAllString(t, " ")
	return oneLine(t)
}

// normQuotes turns typographic apostrophes into ASCII ones so "don’t"
// matches the same rules as "don't".
func normQuotes(s string) string {
	return strings.NewReplacer("\u2019", "'", "\u2018", "'").Replace(s)
}

// oneLine folds all whitespace runs into single spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// shorten folds s to one line and cuts it to at most max bytes on a rune
// boundary, marking the cut with an ellipsis.
func shorten(s string, max int) string {
	s = oneLine(s)
	if len(s) <= max {
		return s
	}
	cut := max - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	// Never cut a redaction marker in half: a reader must still see that
	// a secret was there.
	if i := strings.LastIndex(s[:cut], "["); i >= 0 && strings.HasPrefix(s[i:], redactedMarker) && i+len(redactedMarker) > cut {
		cut = i
	}
	return strings.TrimRight(s[:cut], " ") + "…"
}

// redactedMarker is what the redactor (pkg/redact Token) leaves in place
// of a secret. The extractor only ever sees redacted text; it keeps the
// marker whole and never tries to recover what stood there.
const redactedMarker = "[REDACTED_SECRET]"

func quote(s string) string { return "\u201c" + s + "\u201d" }

// quoteCode wraps s in backticks, using a double fence when s has one.
func quoteCode(s string) string {
	if strings.Contains(s, "`") {
		return "`` " + s + " ``"
	}
	return "`" + s + "`"
}

// meaningfulWords lowercases text and returns its words that are not stop
// words, in order, without duplicates. File names split into their parts
// ("hello.py" gives "hello" and "py") so they match later mentions.
func meaningfulWords(text string) []string {
	if len(text) > keywordScanBytes {
		text = text[:keywordScanBytes]
	}
	var out []string
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '\'')
	}) {
		f = strings.TrimSuffix(strings.Trim(f, "'_"), "'s")
		if strings.Contains(f, "'") {
			continue // contractions never name a topic
		}
		if len(f) < 2 || len(f) > 40 || stopWords[f] || isNumber(f) || seen[f] {
			continue
		}
		seen[f] = true
		out = append(out, f)
	}
	return out
}

func nameParts(p string) []string {
	return meaningfulWords(path.Base(p))
}

func isNumber(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

var negativeRE = regexp.MustCompile(`(?i)(\b(doesn'?t|does not|don'?t|didn'?t|did not|isn'?t|is not|not|still not|never) work|\bnot working\b|\bstill (fail|failing|broken|crash|crashing|getting|seeing|see|wrong|doesn'?t|does not|not)\b|\b(is|are|was|it's|that's|looks|still|all|everything) (wrong|broken)\b|\brevert\b|\bundo\b|^(no|nope)\b|that'?s not|that is not|\bit'?s not\b|\bnot what i)`)

func isNegative(s string) bool { return negativeRE.MatchString(s) }

// Preference rule. A preference is a standing instruction about HOW to
// work, not WHAT to do, and it only ever comes from a follow-up message (the
// caller never passes the message that opens a task). A sentence of the
// follow-up counts when it carries one of these markers:
//
//   - rule: "always …", "from now on …", "going forward …", "every time …";
//   - ban: "never …", or "don't …", "do not …", "avoid …", "no need to …",
//     "stop …ing" at the start of a clause ("no, don't …", "please don't …");
//   - alternative: "prefer …", "… instead", "rather than …", "use X" at the
//     start of a clause ("please use X", "Use the su directive").
//
// Questions never count. A correction (a follow-up pushing back on the
// agent's work) is marked as such, but "it still fails" alone is no
// preference: the failures list already carries it.
var (
	prefRuleRE = regexp.MustCompile(`(?i)\b(always|from now on|going forward|from here on|every time|each time|in (the )?future)\b`)
	prefBanRE  = regexp.MustCompile(`(?i)\bnever\b|(^|[,;:(\x{2014}\x{2013}-]\s*|\b(please|and|but|so|just|also|then|no|ok|okay)\s+)(don'?t|do not|avoid|no need to|stop \w+ing)\b`)
	prefAltRE  = regexp.MustCompile(`(?i)\b(prefer|preferably|instead|rather than)\b|(^|[,;:(\x{2014}\x{2013}-]\s*|\b(please|just|and|but|then|only|always)\s+)use\b`)
)

// preferenceSignal turns a follow-up message into an evidence → implication
// bullet when it states a preference (see the rule above); "" otherwise.
func preferenceSignal(text string, correction bool) string {
	var picked []string
	var rule, ban, alt bool
	for _, s := range sentences(text) {
		if strings.HasSuffix(s, "?") {
			continue
		}
		r, b, a := prefRuleRE.MatchString(s), prefBanRE.MatchString(s), prefAltRE.MatchString(s)
		if r || b || a {
			// Markers are matched per sentence: "^use" must see the
			// sentence start, not a point inside the joined evidence.
			rule, ban, alt = rule || r, ban || b, alt || a
			picked = append(picked, s)
			if len(picked) == 2 {
				break
			}
		}
	}
	if !rule && !ban && !alt {
		return ""
	}
	ev := quote(shorten(strings.Join(picked, " "), 220))
	if correction {
		ev += " (correcting the agent's work)"
	}
	switch {
	case alt && ban:
		return ev + " -> use the alternative the user named, not the one they ruled out, in similar work."
	case alt:
		return ev + " -> use the alternative the user named in similar work."
	case ban:
		return ev + " -> avoid this in similar work unless the user asks otherwise."
	default:
		return ev + " -> treat this as a standing requirement for work in this project."
	}
}

// sentences splits s after ".", "!", "?" or ";" followed by a space (or
// the end), so "hello.py" or "v1.2" stay whole.
func sentences(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s) && len(out) < 20; i++ {
		switch s[i] {
		case '.', '!', '?', ';', '\n':
			if i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\n' {
				if seg := strings.TrimSpace(s[start : i+1]); seg != "" {
					out = append(out, seg)
				}
				start = i + 1
			}
		}
	}
	if seg := strings.TrimSpace(s[start:]); seg != "" && len(out) < 20 {
		out = append(out, seg)
	}
	return out
}

var (
	completionRE = regexp.MustCompile(`(?i)\b(done|created|fixed|implemented|added|updated|completed|deleted|removed|renamed|refactored|all tests pass|tests pass|now passes|successfully|i'?ve|has been|have been|is ready|are ready|finished|resolved|wrote|written)\b`)
	failureRE    = regexp.MustCompile(`(?i)\b(couldn'?t|could not|unable to|not able to|failed to|still fail|still failing|blocked|can'?t|cannot|did not work|didn'?t work)\b`)
)

func reportsCompletion(s string) bool { return s != "" && completionRE.MatchString(normQuotes(s)) }
func reportsFailure(s string) bool    { return s != "" && failureRE.MatchString(normQuotes(s)) }

// errorLine picks the most telling line of a failed command's output: the
// first line naming an error, a failure, a panic or a missing thing, else
// the last non-empty line. Harness wrapper lines are skipped.
func errorLine(out string) string {
	best, bestScore, last := "", 0, ""
	n := 0
	for line := range strings.Lines(out) {
		n++
		if n > 400 {
			break
		}
		l := strings.TrimSpace(line)
		if l == "" || isWrapperLine(l) {
			continue
		}
		last = l
		if sc := errorScore(l); sc > bestScore {
			best, bestScore = l, sc
		}
	}
	if best == "" {
		best = last
	}
	return shorten(best, lineMax)
}

var wrapperPrefixes = []string{"Chunk ID:", "Wall time:", "Process exited with code", "Process running with session", "Original token count:", "Output:", "Exit code", "Total output lines:"}

func isWrapperLine(l string) bool {
	for _, p := range wrapperPrefixes {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

var errorWords = []struct {
	re    *regexp.Regexp
	score int
}{
	// file:line: positions (compilers, test assertions) and named errors.
	{regexp.MustCompile(`\w\.\w+:\d+:|\b[A-Za-z]*(Error|Exception)\b|\berror(\[\w+\])?:|\bERROR\b|\bpanic:|\bfatal\b|\bFATAL\b`), 3},
	{regexp.MustCompile(`(?i)not found|no such file|denied|undefined|cannot|can't|unable to|\bfailed\b|\bfailure\b|refused|timed out|segmentation fault|not recognized|unexpected|^--- FAIL|\bERR!`), 2},
	{regexp.MustCompile(`(?i)\berror\b|\bexpected\b|\bwarning\b|\binvalid\b|\bmissing\b|\bFAIL\b`), 1},
}

func errorScore(l string) int {
	for _, w := range errorWords {
		if w.re.MatchString(l) {
			return w.score
		}
	}
	return 0
}

// unwrapShell drops a "bash -lc '…'" style wrapper so the command reads as
// the user would type it.
func unwrapShell(cmd string) string {
	for _, sh := range []string{"bash -lc ", "bash -c ", "zsh -lc ", "zsh -c ", "sh -c ", "/bin/bash -lc ", "/bin/bash -c ", "/bin/zsh -lc ", "/bin/zsh -c ", "/bin/sh -c "} {
		if rest, ok := strings.CutPrefix(cmd, sh); ok {
			rest = strings.TrimSpace(rest)
			if len(rest) >= 2 && (rest[0] == '\'' || rest[0] == '"') && rest[len(rest)-1] == rest[0] {
				rest = rest[1 : len(rest)-1]
			}
			return rest
		}
	}
	return cmd
}

// commandCore drops what does not say what a command does: leading
// "cd dir &&", environment assignments, sudo, time, timeout N.
func commandCore(cmd string) []string {
	if i := strings.LastIndex(cmd, "&& "); i >= 0 && strings.HasPrefix(strings.TrimSpace(cmd), "cd ") {
		cmd = cmd[i+3:]
	}
	f := strings.Fields(cmd)
	for len(f) > 0 {
		switch {
		case strings.Contains(f[0], "=") && !strings.HasPrefix(f[0], "-"):
			f = f[1:]
		case f[0] == "sudo" || f[0] == "time" || f[0] == "env" || f[0] == "nice":
			f = f[1:]
		case f[0] == "timeout" && len(f) > 1:
			f = f[2:]
		default:
			return f
		}
	}
	return f
}

var multiplexers = map[string]bool{
	"go": true, "npm": true, "yarn": true, "pnpm": true, "bun": true, "npx": true, "cargo": true,
	"make": true, "git": true, "docker": true, "uv": true, "poetry": true, "dotnet": true,
	"mvn": true, "gradle": true, "./gradlew": true, "kubectl": true, "terraform": true, "pip": true,
	"bundle": true, "mix": true, "swift": true, "deno": true, "just": true, "task": true, "nx": true,
}

// commandFamily names what a command does, e.g. "go test" or "pytest", so
// that "go test ./..." and "go test ./pkg/x -run Foo" count as retries of
// one another.
func commandFamily(cmd string) string {
	f := commandCore(cmd)
	if len(f) == 0 {
		return cmd
	}
	name := path.Base(f[0])
	if (name == "python" || name == "python3") && len(f) > 2 && f[1] == "-m" {
		return name + " -m " + f[2]
	}
	if multiplexers[f[0]] && len(f) > 1 {
		sub := f[1]
		if sub == "run" && len(f) > 2 && (name == "npm" || name == "yarn" || name == "pnpm" || name == "bun" || name == "uv" || name == "poetry") {
			return name + " run " + f[2]
		}
		if !strings.HasPrefix(sub, "-") {
			return name + " " + sub
		}
	}
	return name
}

func firstWord(cmd string) string {
	f := commandCore(cmd)
	if len(f) == 0 {
		return ""
	}
	return path.Base(f[0])
}

var readOnly = map[string]bool{
	"ls": true, "cat": true, "sed": true, "rg": true, "grep": true, "find": true, "head": true,
	"tail": true, "pwd": true, "wc": true, "tree": true, "echo": true, "which": true, "file": true,
	"stat": true, "less": true, "nl": true, "fd": true, "du": true, "df": true, "printenv": true,
	"type": true, "jq": true, "awk": true, "sort": true, "uniq": true, "diff": true, "whoami": true,
	"date": true, "uname": true, "realpath": true, "readlink": true, "basename": true, "dirname": true,
}

// basicCmds are shell utilities too common to tell one task from another.
var basicCmds = map[string]bool{"rm": true, "mv": true, "cp": true, "mkdir": true, "touch": true, "chmod": true,
	"cd": true, "sed": true, "ln": true, "rmdir": true, "kill": true, "sleep": true, "true": true, "export": true}

var readOnlyGit = map[string]bool{"status": true, "diff": true, "log": true, "show": true, "branch": true, "blame": true, "rev-parse": true, "ls-files": true, "remote": true}

// isExploration reports commands that only look around. Their exit status
// says little (rg exits 1 on no match) so they never count as failures.
func isExploration(cmd string) bool {
	f := commandCore(cmd)
	if len(f) == 0 {
		return false
	}
	name := path.Base(f[0])
	if name == "sed" && slices.ContainsFunc(f, func(a string) bool { return strings.HasPrefix(a, "-i") }) {
		return false
	}
	if name == "git" {
		return len(f) > 1 && readOnlyGit[f[1]]
	}
	return readOnly[name]
}

var checkWords = map[string]bool{
	"test": true, "tests": true, "pytest": true, "jest": true, "vitest": true, "mocha": true, "build": true,
	"compile": true, "vet": true, "lint": true, "check": true, "typecheck": true, "tsc": true, "mypy": true,
	"ruff": true, "eslint": true, "clippy": true, "ctest": true, "rspec": true, "phpunit": true, "make": true,
	"tox": true, "nox": true, "golangci": true, "staticcheck": true, "pyright": true, "verify": true,
}

// purposeWords sort check commands by what they verify, so that two
// different commands for the same job count as alternatives: "golangci-lint
// run", "go vet" and "make lint" are all lint.
var purposeWords = map[string]string{
	"test": "test", "tests": "test", "pytest": "test", "jest": "test", "vitest": "test", "mocha": "test",
	"rspec": "test", "phpunit": "test", "ctest": "test", "tox": "test", "nox": "test", "unittest": "test",
	"lint": "lint", "vet": "lint", "eslint": "lint", "ruff": "lint", "clippy": "lint", "golangci": "lint",
	"staticcheck": "lint", "flake8": "lint", "pylint": "lint", "shellcheck": "lint",
	"tsc": "type-check", "mypy": "type-check", "pyright": "type-check", "typecheck": "type-check",
	"build": "build", "compile": "build", "make": "build",
}

// checkPurpose names what a check command verifies (test, lint,
// type-check, build), "check" when its words say nothing more. The most
// specific purpose wins: "make lint" is lint, a bare "make" is build.
func checkPurpose(cmd string) string {
	found := map[string]bool{}
	for _, part := range checkParts(cmd) {
		if p := purposeWords[part]; p != "" {
			found[p] = true
		}
	}
	for _, p := range purposeOrder {
		if found[p] {
			return p
		}
	}
	return "check"
}

// checkParts splits the first words of a command (before any pipe or
// chain) into lowercase alphanumeric parts: "golangci-lint run" gives
// golangci, lint, run.
func checkParts(cmd string) []string {
	var out []string
	for i, w := range commandCore(cmd) {
		if i > 3 || strings.ContainsAny(w, "|;&") {
			break
		}
		out = append(out, strings.FieldsFunc(strings.ToLower(path.Base(w)), func(r rune) bool {
			return !(unicode.IsLetter(r) || unicode.IsDigit(r))
		})...)
	}
	return out
}

// isCheck reports commands whose success says the work is right: tests,
// builds, linters, type checkers.
func isCheck(cmd string) bool {
	return slices.ContainsFunc(checkParts(cmd), func(p string) bool { return checkWords[p] })
}

type pathOp struct{ path, op string }

var patchHeaderRE = regexp.MustCompile(`\*\*\* (Add|Update|Delete) File: ([^\n\r\\"]+)`)

var editTools = map[string]string{
	"write": "write", "create_file": "add", "write_file": "write", "notebookedit": "update",
	"edit": "update", "multiedit": "update", "edit_file": "update", "str_replace_editor": "update",
	"str_replace_based_edit_tool": "update", "replace": "update", "search_replace": "update",
}

// filesFromTool finds the files an editing tool call changes: Claude
// Code's Write/Edit family, generic file tools, and apply_patch bodies.
func filesFromTool(tool, input string) []pathOp {
	name := strings.ToLower(tool)
	if i := strings.LastIndex(name, "__"); i >= 0 {
		name = name[i+2:]
	}
	if name == "apply_patch" || strings.Contains(input, "*** Begin Patch") {
		var out []pathOp
		for _, m := range patchHeaderRE.FindAllStringSubmatch(input, 50) {
			out = append(out, pathOp{strings.TrimSpace(m[2]), strings.ToLower(m[1])})
		}
		return out
	}
	op, ok := editTools[name]
	if !ok {
		return nil
	}
	// Decode only the fields that matter: Write inputs carry whole files.
	var args struct {
		FilePath     string `json:"file_path"`
		Path         string `json:"path"`
		NotebookPath string `json:"notebook_path"`
		Filename     string `json:"filename"`
		TargetFile   string `json:"target_file"`
		Command      string `json:"command"`
	}
	if json.Unmarshal([]byte(input), &args) != nil {
		return nil
	}
	for _, p := range []string{args.FilePath, args.Path, args.NotebookPath, args.Filename, args.TargetFile} {
		if p == "" {
			continue
		}
		if name == "str_replace_based_edit_tool" || name == "str_replace_editor" {
			switch args.Command {
			case "create":
				op = "add"
			case "view":
				return nil
			}
		}
		return []pathOp{{p, op}}
	}
	return nil
}

// filesFromShell recognises the simplest file-changing shell commands
// (rm, touch) when they name plain paths.
func filesFromShell(cmd string) []pathOp {
	if strings.ContainsAny(cmd, "|;&><*?$`") {
		return nil
	}
	f := commandCore(cmd)
	if len(f) < 2 {
		return nil
	}
	op := ""
	switch f[0] {
	case "sed":
		if slices.ContainsFunc(f, func(a string) bool { return strings.HasPrefix(a, "-i") }) {
			if last := f[len(f)-1]; !strings.HasPrefix(last, "-") && len(f) > 2 {
				return []pathOp{{strings.Trim(last, `'"`), "update"}}
			}
		}
		return nil
	case "rm":
		op = "delete"
	case "touch":
		op = "add"
	case "git":
		if f[1] == "rm" {
			op, f = "delete", f[1:]
		}
	}
	if op == "" {
		return nil
	}
	var out []pathOp
	for _, a := range f[1:] {
		if strings.HasPrefix(a, "-") || len(out) == 10 {
			continue
		}
		out = append(out, pathOp{strings.Trim(a, `'"`), op})
	}
	return out
}

// jsonField reads one top-level field of a JSON object as a string
// (numbers are formatted); "" when absent or not JSON.
func jsonField(input, key string) string {
	if !strings.HasPrefix(strings.TrimSpace(input), "{") {
		return ""
	}
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(input), &m) != nil {
		return ""
	}
	raw, ok := m[key]
	if !ok {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// weakWords are verbs of requests ("fix X", "add Y"): fine in a slug, but
// they neither identify a topic nor tie two requests together.
var weakWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`add adds added create creates created fix fixes fixed fail fails failed failing
update updates updated delete deletes deleted remove removes removed change changes changed run runs ran
write writes wrote implement implemented check checks work works working do done
always never instead prefer rather avoid`) {
		m[w] = true
	}
	return m
}()

// topicWords drops the weak words from a word list.
func topicWords(words []string) []string {
	var out []string
	for _, w := range words {
		if !weakWords[w] {
			out = append(out, w)
		}
	}
	return out
}

// stopWords are words that say nothing about a task: English function
// words and the filler of requests to an assistant.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
a about above after again against all also am an and any are aren't as at be because been before
being below between both but by can can't cannot could couldn't did didn't do does doesn't doing
don't down during each few for from further had hadn't has hasn't have haven't having he her here
hers herself him himself his how i i'd i'll i'm i've if in into is isn't it it's its itself let's
lets me more most mustn't my myself no nor not of off on once only or other ought our ours
ourselves out over own same shan't she should shouldn't so some such than that that's the their
theirs them themselves then there there's these they this those through to too under until up
very was wasn't we we're were weren't what what's when where which while who whom why will with
won't would wouldn't you you'd you'll you're you've your yours yourself yourselves
please pls thanks thank ok okay hi hey yes yeah sure just now also like want need needs
make makes let get got go going use using used can could would should might may must will shall
one two thing things something anything everything stuff way bit lot really actually maybe
still again new file files code help try see look looks seem seems know think way well good
there's here's it's let's give show tell me us our via per etc ie eg within without into onto
don doesn didn isn wasn aren won shouldn couldn wouldn ll ve re
`) {
		m[w] = true
	}
	return m
}()
