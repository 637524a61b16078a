package heuristic

import (
	"cmp"
	"path"
	"slices"
	"strings"

	"github.com/memctl/memctl/internal/english"
	"github.com/memctl/memctl/internal/program"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/textcut"
)

// status is how a call ended: by its exit status or error flag, unknown without one of its own, or not run.
type status int

const stPending, stOK, stFailed, stUnknown status = 0, 1, 2, 3
const stRejected, stDenied, stInterrupted, stCancelled status = 4, 5, 6, 7

// call is one tool call of a task and how it ended. A tryout runs a program from a scratch folder: its exit says
// how the try-out went. A failed call of a tool not a shell is passedLater once the same call (same input)
// succeeded; between is what ran after it until then, no read.
type call struct {
	id, tool, target, command, purpose, input    string
	task                                         *task
	action                                       sessions.Action
	reads, tryout, check, escalated, passedLater bool
	status                                       status
	exit                                         *int
	errLine, tally, script, out                  string   // a failure's error line, output; a pass's count line, script
	tests, between                               []string // the failing tests the output names; between
	commits                                      []program.Commit
	seq, changesBefore                           int // changesBefore: the task's file changes when it ran
}

func (x *Extractor) toolCall(e sessions.Event) {
	t := x.current()
	if t == nil {
		return
	}
	if e.Action == sessions.ActionMemory { // reading its own memory is no part of the work
		x.dropped[e.CallID], x.memReads = e.CallID != "", x.memReads+1
		return
	}
	x.looked = x.looked || e.Action != sessions.ActionPlan // its own to-do list looks at nothing
	t.calls++
	c := &call{id: e.CallID, tool: cmp.Or(e.Tool, "tool"), input: e.Input, task: t, action: e.Action,
		escalated: e.Escalated, seq: t.calls, changesBefore: t.files.changes, target: x.relPath(x.absPath(e.FilePath))}
	if c.command = strings.TrimSpace(e.Command); c.command != "" {
		c.reads = program.Explores(c.command)
		f := program.Core(c.command)
		for i, w := range f { // it runs or works on a scratch file, not one its output is sent to
			redirected := strings.Contains(w, ">") || i > 0 && strings.HasSuffix(f[i-1], ">")
			c.tryout = c.tryout || !c.reads && !redirected && x.scratch(w)
		}
		c.check = !c.reads && !c.tryout && program.IsCheck(c.command)
		c.purpose = when(c.check, program.Purpose(c.command))
		if !c.reads { // a read is a step once it ended (toolResult)
			t.steps.push(step{call: c})
			x.keyword(program.Family(c.command), 1)
			t.addWords(meaningfulWords(program.Family(c.command))) // a complaint may name what ran
		}
	}
	if len(x.calls) > maxCalls {
		clear(x.calls)
	}
	x.calls[e.CallID], x.lastCall = c, c
}

func (x *Extractor) toolResult(e sessions.Event) {
	if x.dropped[e.CallID] {
		delete(x.dropped, e.CallID)
		return
	}
	c := map[bool]*call{false: x.calls[e.CallID], true: x.lastCall}[e.CallID == ""] // no id: the last call
	if c == nil || c.status != stPending {
		return
	}
	delete(x.calls, e.CallID)
	t := c.task
	c.exit, c.status = e.ExitCode, resultStatus(c, e)
	if c.status == stFailed { // exit 1 with nothing printed, or a read's with nothing to quote (a harness's own
		c.out = e.Output[:min(len(e.Output), 1<<16)] // "exit code 1" line aside), is an answer: none, no, not found
		c.errLine, c.tests = x.errorLine(c), program.FailingTests(e.Output)
		one, search := c.exit != nil && *c.exit == 1, program.EndsInSearch(c.command) // no code: a search's is 1
		c.status = map[bool]status{true: stUnknown, false: stFailed}[strings.TrimSpace(c.out) == "" &&
			(one || c.exit == nil && search) || one && c.errLine == "" && (c.reads || search)]
	}
	x.refusal = c.status == stRejected || c.status == stInterrupted
	switch {
	case c.status == stCancelled:
		return // it never ran: neither a failure nor a result
	case c.status == stRejected || c.status == stDenied || c.status == stInterrupted:
		t.endedRefused = true
		t.refused = capped(append(t.refused, c), 6)
		if c.command == "" {
			t.steps.push(step{call: c})
		}
		return
	case c.status == stOK && (c.check || program.GoesOnAfterFailure(c.command)): // an exit 0 its output contradicts
		// ("error: …", a traceback's "KeyError: …", from a command before the last) is no pass, nor a failure
		c.tally, c.script = when(c.check, textcut.Line(program.PassTally(e.Output), 80)), program.ScriptRan(e.Output)
		l := when(c.tally == "", program.ErrorLine(c.command, e.Output)) // a runner's tally says its tests passed
		head := strings.ToLower(strings.SplitAfter(l, ":")[0])
		c.errLine = when(head == "fatal:" || head == "panic:" || strings.HasSuffix(head, "error:"), l)
	}
	if c.reads && c.status == stFailed { // a read that failed is a step of its own, never one of the look around
		t.steps.push(step{call: c})
	} else if c.reads {
		t.steps.explore(program.Name(c.command))
	}
	if c.command != "" && !c.reads && c.status != stUnknown { // what a look around printed may be a log's lines
		x.saw(e.Output, program.Family(c.command), c.status == stOK)
	}
	t.endedRefused = false
	if c.status != stFailed && (c.exit == nil || *c.exit == 0) { // a read that failed, or found none, read nothing
		read := append(program.FilesRead(when(c.reads, c.command)), when(c.action == sessions.ActionRead, c.target))
		for _, p := range read {
			if p = x.relPath(x.absPath(p)); p != "" && len(t.reads) < maxReads && !slices.Contains(t.reads, p) &&
				!sessions.IsAgentFile(p) {
				t.reads = append(t.reads, p)
			}
		}
	}
	if c.command != "" {
		x.ranCommand(t, c, e.Output)
	} else if c.action == sessions.ActionAgent || c.action == sessions.ActionOther { // it may have changed anything
		t.pairs.Ran(program.Run{Command: c.tool, Ref: c.seq})
	}
	for _, f := range t.toolFails { // a failed tool call stays open until the same call, with the same input, succeeds
		same := c.command == "" && c.status == stOK && c.describe() == f.describe() // the same action on the same file
		f.passedLater = f.passedLater || same && c.tool == f.tool && c.input == f.input
		if !f.passedLater && !c.reads {
			f.between = appendNew(f.between, cmp.Or(when(len(f.between) < 8, c.describe()), "others"))
		}
	}
	told := func(o *call) bool { return o.describe() == c.describe() && o.errLine == c.errLine }
	// A failed call of a tool not a shell, once; a read that found nothing only looked around.
	if c.command == "" && c.status == stFailed && c.action != sessions.ActionRead && len(t.toolFails) < 4 &&
		!slices.ContainsFunc(t.toolFails, told) {
		t.toolFails = append(t.toolFails, c)
	}
}

// errorLine picks a failure's error line from the lines that do not recur and do not echo the command: a
// banner or a warning that a passing run or another command printed too is not the failure's.
func (x *Extractor) errorLine(c *call) string {
	out := slices.DeleteFunc(strings.SplitAfter(c.out, "\n"), func(l string) bool {
		l = strings.TrimSpace(l)
		return x.recurs[l] || strings.Contains(l, " ") && strings.HasSuffix(c.command, strings.TrimLeft(l, "$>+# "))
	})
	return program.ErrorLine(c.command, strings.Join(out, ""))
}

// saw notes the lines a run printed: they recur once a passing run or a second family of command printed
// them (Result picks the error lines again once every run is known).
func (x *Extractor) saw(out, family string, passed bool) {
	for l := range strings.Lines(out) {
		if l = strings.TrimSpace(l); len(l) >= 8 && len(x.printed) < 8192 {
			f, ok := x.printed[l]
			x.printed[l], x.recurs[l] = family, x.recurs[l] || passed || ok && f != family
		}
	}
}

// resultStatus settles a call: failed by its exit status or error flag; unknown when not the work's (x | tail).
func resultStatus(c *call, e sessions.Event) status {
	if st, ok := map[sessions.Outcome]status{sessions.OutcomeRejected: stRejected, sessions.OutcomeDenied: stDenied,
		sessions.OutcomeInterrupted: stInterrupted, sessions.OutcomeCancelled: stCancelled}[e.Outcome]; ok {
		return st
	}
	switch {
	case e.Outcome == sessions.OutcomeFailed || e.IsError || e.ExitCode != nil && *e.ExitCode != 0:
		return stFailed // the line's own failure, whatever part of it failed
	case c.command > "" && (e.Outcome != sessions.OutcomeOK && e.ExitCode == nil || program.HidesExitStatus(c.command)):
		return stUnknown // a tool not a shell that reported no error passed
	}
	return stOK
}

// ranCommand folds a command that ran into the task: counts, files and commits, failures and passes.
func (x *Extractor) ranCommand(t *task, c *call, out string) {
	t.ran++
	switch c.status {
	case stUnknown:
		t.unknown++
	case stFailed:
		if t.failed++; !c.tryout && len(t.failures) < maxTrackedCmds {
			t.failures[c.seq] = c
		}
	}
	if c.status != stFailed { // what it did to files and git, status recorded or not
		for _, p := range program.FilesChanged(c.command) {
			x.changeFile(t, c.id, p.Path, p.Op, "", "")
		}
		r := program.Restores(c.command) // what it undid (git checkout -- f, git stash …)
		x.moved = x.moved || r.Branch
		for i, f := range r.Files {
			r.Files[i] = x.absPath(f)
		}
		for _, f := range t.files.revert(r) {
			t.steps.add("Threw away the changes to "+x.relPath(f)+" with "+codeLine(c.command, 120)+".", 3)
		}
		if w := program.WorktreeAdded(c.command); w != "" && len(x.worktrees) < 8 {
			x.worktrees = append(x.worktrees, x.absPath(w))
		}
		if !c.reads && program.Name(c.command) == "git" && !x.scratch(program.Dir(c.command)) {
			c.commits = program.CommitsReported(out, maxCommits)
			for _, cm := range c.commits {
				known := slices.ContainsFunc(t.commits, func(h program.Commit) bool { return h.SHA == cm.SHA })
				if !known && len(t.commits) < maxCommits {
					t.commits = append(t.commits, cm)
				}
			}
		}
	}
	if c.reads {
		t.explore++
	} else if !c.tryout {
		if c.check && (c.status == stFailed || c.status == stOK && c.errLine == "") {
			t.lastCheck, t.checks[program.Family(c.command)] = c, c
			for _, a := range t.answers { // the check it followed fails, nothing changed: it was wrong
				a.withdrawn = a.withdrawn || c.status == stFailed && a.changes == t.files.changes && a.check != nil &&
					a.check.status == stOK && program.Family(a.check.command) == program.Family(c.command)
			}
			t.negAfter = t.negAfter && c.status != stOK
		} else if c.check && t.lastCheck != nil && program.Family(c.command) == program.Family(t.lastCheck.command) {
			t.lastCheck = nil // rerun with no status: how the check stands is not known
		}
	}
	if c.reads && c.status == stUnknown && c.exit != nil { // a read found nothing (exit 1): a status of its own
		return
	}
	outcome := map[status]program.Outcome{stOK: program.Passed, stFailed: program.Failed}[c.status]
	if c.tryout || c.status == stOK && c.errLine != "" {
		outcome = program.Unknown
	}
	run := program.Run{Command: c.command, Outcome: outcome, Escalated: c.escalated, Ref: c.seq, Error: c.errLine}
	for _, p := range t.pairs.Ran(run) {
		if len(t.fixes) < maxFixes {
			p.Edited = slices.Clone(p.Edited) // with the line the latest edit put in: a.go (`return x`)
			for i, f := range p.Edited {
				p.Edited[i] = f + when(t.lines[f] != "", " ("+codeLine(t.lines[f], 100)+")")
			}
			t.fixes = append(t.fixes, fix{Pair: p, fail: t.failures[p.Last.Ref], pass: c})
		}
	}
}

// fileChange takes a change the reader saw succeed.
func (x *Extractor) fileChange(e sessions.Event) {
	if t := x.current(); t != nil && e.FilePath != "" && !x.dropped[e.CallID] && !sessions.TouchesMemory(e.FilePath) {
		x.changeFile(t, e.CallID, e.FilePath, e.FileOp, e.Old, e.New)
	}
}

// changeFile records one change once per call and file, which the reader and the command line may both report.
func (x *Extractor) changeFile(t *task, id, p, op, old, nw string) {
	key := id + "\x00" + path.Base(p)
	if strings.HasPrefix(p, ".git/") || strings.Contains(p, "/.git/") || x.scratch(p) ||
		id != "" && x.seenChange[key] {
		return // git's own bookkeeping, scratch away from the project, or told already
	}
	if len(x.seenChange) > 4096 {
		clear(x.seenChange)
	}
	x.seenChange[key] = id != ""
	if a := x.absPath(p); strings.HasPrefix(op, "moved to ") && t.files.m[a] == nil && moveFolder(x.tasks, t, a, op) {
		return // a folder, no file of its own
	}
	f := t.files.change(x.absPath(p), op, old, nw)
	if f == nil {
		return
	}
	goneAgain(x.tasks, f)
	rel, base := x.relPath(f.path), strings.ToLower(path.Base(p))
	if line := addedLine(old, nw); line != "" && len(t.lines) < maxTrackedFiles {
		t.lines[rel] = line
	}
	x.keyword(base, 2)
	t.addWords(append([]string{base}, meaningfulWords(base)...))
	t.pairs.Edited(rel)
	if f.undone != "" {
		t.steps.add("Changed "+rel+" back ("+f.undone+").", 0)
	}
}

// addedLine is the first line an edit put in that was not there before.
func addedLine(old, nw string) string {
	was := map[string]bool{}
	for _, l := range strings.Split(old, "\n") {
		was[strings.TrimSpace(l)] = true
	}
	for _, l := range strings.Split(nw, "\n") {
		if l = strings.TrimSpace(l); !was[l] && strings.Trim(l, "{}()[];,") != "" {
			return l
		}
	}
	return ""
}

// absPath resolves a relative path against the thread's cwd; relPath shows a path relative to it when it lies under it.
func (x *Extractor) absPath(p string) string {
	if p == "" || strings.HasPrefix(p, "/") || !strings.HasPrefix(x.meta.Cwd, "/") || len(p) > 1 && p[1] == ':' {
		return p
	}
	return path.Join(x.meta.Cwd, p)
}

func (x *Extractor) relPath(p string) string {
	if cwd := strings.TrimRight(x.meta.Cwd, "/"); cwd != "" && strings.HasPrefix(p, cwd+"/") {
		return p[len(cwd)+1:]
	}
	return p
}

// scratch reports a path no later session will look for: a temporary folder or the agent's own state, unless
// under the session's folder or a worktree it added.
func (x *Extractor) scratch(p string) bool {
	p = x.absPath(p) // "" is none: under no folder
	under := func(p, d string) bool { return p == d || strings.HasPrefix(p, d+"/") || strings.HasPrefix(p, d+`\`) }
	for _, root := range append([]string{x.meta.Cwd}, x.worktrees...) {
		if root = strings.TrimRight(root, `/\`); root != "" && under(p, root) {
			return false
		}
	}
	l := strings.ToLower(strings.TrimPrefix(p, "/private"))
	temp := func(dir string) bool { return under(l, dir) }
	return slices.ContainsFunc([]string{"/tmp", "/var/tmp", "/var/folders", `c:\windows\temp`}, temp) ||
		strings.Contains(l, `\appdata\local\temp`) || sessions.IsAgentState(p)
}

// describe names a call: its command, else what the tool does to a file.
func (c *call) describe() string {
	if c.command != "" {
		return codeLine(c.command, 100)
	}
	what := map[sessions.Action]string{sessions.ActionEdit: "the edit", sessions.ActionRead: "the read",
		sessions.ActionSearch: "the search", sessions.ActionWeb: "the web request",
		sessions.ActionAgent: "the sub-agent task"}
	return cmp.Or(what[c.action], "the "+code(c.tool)+" call") + when(c.target != "", " of "+c.target)
}

// ranText is a call's step: what ran, and how it ended.
func (c *call) ranText() string {
	line := "Tried " + c.describe()
	if c.command != "" {
		line = map[bool]string{true: "Proposed ", false: "Ran "}[c.status == stRejected || c.status == stDenied] +
			cmp.Or(when(c.status == stFailed, runLine(c.command, 120)), codeLine(c.command, 120))
	}
	line += when(c.escalated, " with escalated permissions")
	exit := when(c.exit != nil, ", exit "+itoa(*cmp.Or(c.exit, new(int)))) // cmp.Or: no nil dereference
	switch c.status {
	case stOK:
		line += ": " + cmp.Or(when(c.errLine != "", "no error status"), when(c.check, "passed"), "ok") + exit +
			when(c.tally != "", " ("+code(c.tally)+")") + when(c.errLine != "", "; its output says: "+code(c.errLine))
	case stFailed:
		if line += ": failed" + exit; c.tryout {
			line = strings.Replace(line, ": failed, ", ": ", 1)
		}
		line += when(c.errLine != "", " — "+codeLine(c.errLine, 160))
	default:
		line += cmp.Or(map[status]string{stUnknown: ": no exit status of its own",
			stRejected: ": rejected by the user, not run", stDenied: ": permission not granted, not run",
			stInterrupted: ": interrupted by the user"}[c.status], ": no result recorded")
	}
	return line + when(len(c.commits) > 0,
		"; made "+english.Count(len(c.commits), "commit", "commits")+" "+commitsText(c.commits)) + "."
}

// commitsText lists commits: `1a2b3c4` “subject”, ….
func commitsText(cs []program.Commit) (s string) {
	for i, c := range cs {
		s += when(i > 0, ", ") + code(c.SHA) + " " + quote(textcut.Line(c.Subject, 100))
	}
	return s
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
