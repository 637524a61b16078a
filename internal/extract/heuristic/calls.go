package heuristic

import (
	"path"
	"slices"
	"strings"

	"github.com/memctl/memctl/internal/program"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/textcut"
)

// status is how one tool call ended, as the transcript records it.
type status int

const (
	stPending     status = iota // no result yet
	stOK                        // it ran and its exit status (or the tool) says it succeeded
	stFailed                    // it ran and its exit status (or the tool's error flag) says it failed
	stUnknown                   // it ran; no exit status of its own was recorded
	stRejected                  // the user refused it: it did not run
	stDenied                    // the harness refused it: it did not run
	stInterrupted               // the user stopped it
	stCancelled                 // the harness dropped it before it ran (a sibling call failed)
)

// refused reports a call that never ran or was cut short by the user.
func (s status) refused() bool { return s == stRejected || s == stDenied || s == stInterrupted }

// call is one tool call of a task and, once its result arrived, how it
// ended.
type call struct {
	id      string
	task    *task
	action  sessions.Action
	tool    string // the agent's name for it, for display
	target  string // the file a read or an edit works on
	command string // the shell command line; "" for other tools
	reads   bool   // the command only looks around (program.Explores)
	// tryout is set for a program run from a scratch folder (a binary
	// built in /tmp): how it exits says how the try-out went, not how
	// the project's work did.
	tryout    bool
	check     bool
	purpose   string // what a check verifies: test, lint, type-check, build, check
	escalated bool
	status    status
	exit      *int
	errLine   string
	tests     []string // failing tests the output names
	tally     string   // a passing check's count line ("31 tests, 0 failures")
	script    string   // what a passing package script runs, as its runner printed it
	commits   []program.Commit
	seq       int
	// changesBefore is how many file changes the task had made when the
	// call ran: a check verifies only the changes made before it.
	changesBefore int
}

// toolCall records a tool invocation.
func (x *Extractor) toolCall(e sessions.Event) {
	t := x.current()
	if t == nil {
		return
	}
	if e.Action == sessions.ActionMemory {
		// The agent reading its own memory is no part of the work.
		if e.CallID != "" {
			x.dropped[e.CallID] = true
		}
		x.memReads++
		return
	}
	if e.Action != sessions.ActionPlan {
		x.looked = true // updating its own to-do list looks at nothing
	}
	t.touch(e.Time)
	t.calls++
	tool := e.Tool
	if tool == "" {
		tool = "tool"
	}
	c := &call{id: e.CallID, task: t, action: e.Action, tool: tool, escalated: e.Escalated, seq: t.calls, changesBefore: t.files.changes}
	if e.FilePath != "" {
		c.target = x.relPath(x.absPath(e.FilePath))
		if c.action == sessions.ActionRead {
			t.addRead(c.target)
		}
	}
	if cmd := strings.TrimSpace(e.Command); cmd != "" {
		c.command = cmd
		c.reads = program.Explores(cmd)
		if f := program.Core(cmd); !c.reads && len(f) > 0 && strings.Contains(f[0], "/") {
			c.tryout = x.scratch(f[0])
		}
		c.check = !c.reads && !c.tryout && program.IsCheck(cmd)
		if c.check {
			c.purpose = program.Purpose(cmd)
		}
		if c.reads {
			for _, p := range program.FilesRead(cmd) {
				t.addRead(x.relPath(x.absPath(p)))
			}
			t.steps.explore(program.Name(cmd))
		} else {
			t.steps.ran(c)
			x.keyword(program.Family(cmd), 1)
		}
	}
	if e.CallID != "" {
		if len(x.calls) > maxCalls {
			clear(x.calls)
		}
		x.calls[e.CallID] = c
	}
	x.lastCall = c
}

// toolResult settles the call a result belongs to.
func (x *Extractor) toolResult(e sessions.Event) {
	if e.CallID != "" && x.dropped[e.CallID] {
		delete(x.dropped, e.CallID)
		return
	}
	c := x.calls[e.CallID]
	if e.CallID == "" {
		c = x.lastCall
	}
	if c == nil || c.status != stPending {
		return
	}
	delete(x.calls, e.CallID)
	t := c.task
	t.touch(e.Time)
	c.exit = e.ExitCode
	c.status = resultStatus(c, e)
	x.refusal = c.status == stRejected || c.status == stInterrupted
	switch {
	case c.status == stCancelled:
		return // it never ran: neither a failure nor a result
	case c.status.refused():
		t.endedRefused = true
		if len(t.refused) < 6 {
			t.refused = append(t.refused, c)
		}
		if c.command == "" {
			t.steps.ran(c)
		}
		return
	}
	t.endedRefused = false
	switch {
	case c.status == stFailed:
		c.errLine = program.ErrorLine(e.Output)
		c.tests = program.FailingTests(e.Output)
	case c.status == stOK && c.check:
		c.tally, c.script = program.PassTally(e.Output), program.ScriptRan(e.Output)
	}
	if c.command == "" {
		// A read that found no file is a look around; any other tool
		// that failed (a search tool that could not start) is noted.
		if c.status == stFailed && c.action != sessions.ActionRead && len(t.toolFails) < 4 &&
			!slices.ContainsFunc(t.toolFails, func(o *call) bool { return o.describe() == c.describe() && o.errLine == c.errLine }) {
			t.toolFails = append(t.toolFails, c)
		}
		return
	}
	x.ranCommand(t, c, e.Output)
}

// resultStatus settles a call from its result: the reader's outcome, the
// exit status, the tool's error flag. A pipeline's exit status is its last
// stage's: when that stage only reads ("go test ./... | tail -20"), the
// status says nothing of the command, whose outcome is unknown.
func resultStatus(c *call, e sessions.Event) status {
	switch e.Outcome {
	case sessions.OutcomeRejected:
		return stRejected
	case sessions.OutcomeDenied:
		return stDenied
	case sessions.OutcomeInterrupted:
		return stInterrupted
	case sessions.OutcomeCancelled:
		return stCancelled
	}
	failed := e.Outcome == sessions.OutcomeFailed || e.IsError || (e.ExitCode != nil && *e.ExitCode != 0)
	known := failed || e.Outcome == sessions.OutcomeOK || e.ExitCode != nil
	switch {
	case c.command == "" && !failed:
		return stOK // a tool that is not a shell and reported no error
	case !known || c.command != "" && program.HidesExitStatus(c.command):
		return stUnknown
	case failed:
		return stFailed
	}
	return stOK
}

// ranCommand folds a shell command that ran into the task: its counts,
// the files and commits it made, and the pairing of failures and passes.
func (x *Extractor) ranCommand(t *task, c *call, out string) {
	t.ran++
	switch c.status {
	case stFailed:
		t.failed++
		if c.tryout {
			break
		}
		if len(t.failures) < maxTrackedCmds {
			t.failures[c.seq] = c
		}
	case stUnknown:
		t.unknown++
	}
	if c.status != stFailed {
		// What a command that ran did to files and to git, as it names
		// or reports it, whether or not its exit status was recorded.
		for _, p := range program.FilesChanged(c.command) {
			x.changeFile(t, c.id, p.Path, p.Op, "", "")
		}
		x.restore(t, c)
		if w := program.WorktreeAdded(c.command); w != "" && len(x.worktrees) < 8 {
			x.worktrees = append(x.worktrees, x.absPath(w))
		}
		if !c.reads && program.Name(c.command) == "git" && !x.scratch(program.Dir(c.command)) {
			c.commits = program.CommitsReported(out, maxCommits)
			t.addCommits(c.commits)
			if len(c.commits) == 0 && program.ChangesThroughGit(c.command, out) && len(t.gitChanges) < 4 {
				t.gitChanges = appendNew(t.gitChanges, c.command)
			}
		}
	}
	if c.reads {
		t.explore++
	} else if c.status != stUnknown && !c.tryout {
		t.lastCmd = c
		if c.check {
			t.lastCheck = c
			t.checks[program.Family(c.command)] = c
			if c.status == stOK {
				t.negAfter = false
			}
		}
	}
	outcome := map[status]program.Outcome{stOK: program.Passed, stFailed: program.Failed}[c.status]
	if c.tryout {
		outcome = program.Unknown
	}
	errs := c.errLine
	if len(c.tests) > 0 {
		errs += "; failing: " + strings.Join(c.tests, ", ")
	}
	for _, p := range t.pairs.Ran(program.Run{Command: c.command, Outcome: outcome, Escalated: c.escalated, Purpose: c.purpose, Error: errs, Ref: c.seq}) {
		if len(t.fixes) < maxFixes {
			p.Edited = t.edited(p.Edited)
			t.fixes = append(t.fixes, fix{Pair: p, fail: t.failures[p.Last.Ref], pass: c})
		}
	}
}

// restore applies what a command undid (git checkout -- f, git stash …).
func (x *Extractor) restore(t *task, c *call) {
	r := program.Restores(c.command)
	if r.Empty() {
		return
	}
	var names []string
	for _, f := range r.Files {
		names = append(names, x.absPath(f))
	}
	for _, f := range t.files.revert(r, names) {
		t.steps.add("Threw away the changes to " + x.relPath(f) + " with " + code(textcut.Line(c.command, 120)) + ".")
	}
}

// fileChange takes a change the reader saw succeed.
func (x *Extractor) fileChange(e sessions.Event) {
	t := x.current()
	if t == nil || e.FilePath == "" || e.CallID != "" && x.dropped[e.CallID] || sessions.TouchesMemory(e.FilePath) {
		return
	}
	x.changeFile(t, e.CallID, e.FilePath, e.FileOp, e.Old, e.New)
}

// changeFile records one change, once per call and file: the readers and
// the command line may both report it, one path absolute and one not.
func (x *Extractor) changeFile(t *task, id, p, op, old, nw string) {
	if strings.HasPrefix(p, ".git/") || strings.Contains(p, "/.git/") || x.scratch(p) {
		return // git's own bookkeeping, or scratch away from the project
	}
	if id != "" {
		key := id + "\x00" + path.Base(p)
		if x.seenChange[key] {
			return
		}
		if len(x.seenChange) > 4096 {
			clear(x.seenChange)
		}
		x.seenChange[key] = true
	}
	p = x.absPath(p)
	f := t.files.change(p, op, old, nw)
	if f == nil {
		return
	}
	rel := x.relPath(p)
	if line := addedLine(old, nw); line != "" && len(t.lines) < maxTrackedFiles {
		t.lines[rel] = line
	}
	x.keyword(strings.ToLower(path.Base(p)), 2)
	t.addWords(append([]string{strings.ToLower(path.Base(p))}, meaningfulWords(path.Base(p))...))
	t.pairs.Edited(rel)
	if f.undone != "" {
		t.steps.add("Changed " + rel + " back (" + f.undone + ").")
	}
}

// addedLine is the first line an in-place edit put in that was not there
// before: what the edit changed, in the file's own words.
func addedLine(old, nw string) string {
	was := map[string]bool{}
	for _, l := range strings.Split(old, "\n") {
		was[strings.TrimSpace(l)] = true
	}
	for _, l := range strings.Split(nw, "\n") {
		if l = strings.TrimSpace(l); l != "" && !was[l] && strings.Trim(l, "{}()[];,") != "" {
			return l
		}
	}
	return ""
}

// absPath resolves a relative path against the thread's cwd.
func (x *Extractor) absPath(p string) string {
	if p == "" || strings.HasPrefix(p, "/") || !strings.HasPrefix(x.meta.Cwd, "/") || len(p) > 1 && p[1] == ':' {
		return p
	}
	return path.Join(x.meta.Cwd, p)
}

// relPath shows a path relative to the thread's cwd when it lies under it.
func (x *Extractor) relPath(p string) string {
	if cwd := strings.TrimRight(x.meta.Cwd, "/"); cwd != "" && strings.HasPrefix(p, cwd+"/") {
		return p[len(cwd)+1:]
	}
	return p
}

// scratch reports a path no later session of the project will look for: a
// temporary folder or the agent's own state (its plans, its to-do lists).
// The session's folder and a git worktree it added are the project's,
// wherever they are.
func (x *Extractor) scratch(p string) bool {
	if p == "" {
		return false
	}
	p = x.absPath(p)
	for _, root := range append([]string{x.meta.Cwd}, x.worktrees...) {
		if root = strings.TrimRight(root, `/\`); root != "" && (p == root || strings.HasPrefix(p, root+"/") || strings.HasPrefix(p, root+`\`)) {
			return false
		}
	}
	l := strings.ToLower(strings.TrimPrefix(p, "/private"))
	for _, tmp := range []string{"/tmp", "/var/tmp", "/var/folders", `c:\windows\temp`} {
		if l == tmp || strings.HasPrefix(l, tmp+"/") || strings.HasPrefix(l, tmp+`\`) {
			return true
		}
	}
	return strings.Contains(l, `\appdata\local\temp`) || sessions.IsAgentState(p)
}

// describe names a call in prose: its command, else what the tool does
// to which file.
func (c *call) describe() string {
	if c.command != "" {
		return code(textcut.Line(c.command, 100))
	}
	what := map[sessions.Action]string{
		sessions.ActionEdit: "the edit", sessions.ActionRead: "the read", sessions.ActionSearch: "the search",
		sessions.ActionWeb: "the web request", sessions.ActionAgent: "the sub-agent task",
	}[c.action]
	if what == "" {
		what = "the " + code(c.tool) + " call"
	}
	if c.target != "" {
		what += " of " + c.target
	}
	return what
}

// ranText is a call's step: what ran and how the transcript says it ended.
func (c *call) ranText() string {
	verb := "Ran "
	switch {
	case c.command == "":
		return "Tried " + c.describe() + ": " + c.statusText() + "."
	case c.status.refused() && c.status != stInterrupted:
		verb = "Proposed "
	}
	line := verb + code(textcut.Line(c.command, 120))
	if c.escalated {
		line += " with escalated permissions"
	}
	return line + ": " + c.statusText() + "."
}

// statusText says what the transcript showed of a call.
func (c *call) statusText() string {
	exit := ""
	if c.exit != nil {
		exit = ", exit " + itoa(*c.exit)
	}
	switch c.status {
	case stOK:
		s := "ok"
		if c.check {
			s = "passed"
		}
		s += exit
		if c.tally != "" {
			s += " (" + code(c.tally) + ")"
		}
		if len(c.commits) > 0 {
			s += "; made " + commitsText(c.commits)
		}
		return s
	case stFailed:
		s := "failed" + exit
		if c.tryout {
			s = strings.TrimPrefix(exit, ", ")
		}
		if c.errLine != "" {
			s += " — " + code(textcut.Line(c.errLine, 160))
		}
		return s
	case stUnknown:
		if c.exit != nil {
			return "no exit status of its own (the pipeline's last stage exited " + itoa(*c.exit) + ")"
		}
		return "no exit status recorded"
	case stRejected:
		return "rejected by the user, not run"
	case stDenied:
		return "permission not granted, not run"
	case stInterrupted:
		return "interrupted by the user"
	}
	return "no result recorded"
}

// addCommits records commits once each.
func (t *task) addCommits(cs []program.Commit) {
	for _, c := range cs {
		seen := false
		for _, have := range t.commits {
			seen = seen || have.SHA == c.SHA
		}
		if !seen && len(t.commits) < maxCommits {
			t.commits = append(t.commits, c)
		}
	}
}

// commitsText lists commits: commit `1a2b3c4` “subject”, ….
func commitsText(cs []program.Commit) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = code(c.SHA) + " " + quote(textcut.Line(c.Subject, 100))
	}
	noun := "commit "
	if len(cs) > 1 {
		noun = "commits "
	}
	return noun + strings.Join(parts, ", ")
}

func appendNew(list []string, s string) []string {
	for _, have := range list {
		if have == s {
			return list
		}
	}
	return append(list, s)
}
