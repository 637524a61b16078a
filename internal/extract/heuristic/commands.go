package heuristic

import (
	"path"
	"strings"

	"github.com/memctl/memctl/internal/program"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/textcut"
)

// call is one tool call of a task and, once its result arrived, how it
// ended.
type call struct {
	id        string
	task      *task
	action    sessions.Action
	tool      string // the agent's name for it, for display
	target    string // the file a read or edit works on, relative to the cwd
	command   string // shell command line; "" for other tools
	escalated bool
	family    string
	explore   bool
	check     bool
	purpose   string // what a check verifies: test, lint, type-check, build, check
	status    status
	exit      *int
	errLine   string
	tests     []string // failing tests the output names
	tally     string   // a passing check's own count line ("31 tests, 0 failures")
	// explanation is what the agent said about the failure right after it;
	// reasoning is what it thought, when it said nothing.
	explanation string
	reasoning   string
	// reasoningLater is set when the reasoning came after the agent had
	// moved on to other calls, not right after the failure.
	reasoningLater bool
	masked         bool // the pipeline exited 0 but the output says the command failed
	// output is the start of what a failed call printed: a later command
	// counts as its fix only when this output names it.
	output string
	// editsBefore is how many file changes the task had made when the call
	// ran: a check "verifies a change" only when some came before it.
	editsBefore int
	// commits are the git commits the command reported making.
	commits []commit
	// seq orders the task's calls: a failure after the last passing check
	// is one that check did not cover.
	seq int
}

// maxKeptOutput bounds the output kept per failed call.
const maxKeptOutput = 4096

// cmdStat counts the runs of one command line in a task, for References.
type cmdStat struct {
	command string
	runs    int
	fails   int
	unknown int
	refused int
	errLine string
	check   bool
	explore bool
	order   int
}

// toolCall records a tool invocation.
func (x *Extractor) toolCall(e sessions.Event) {
	t := x.current()
	if t == nil {
		return
	}
	if readsMemory(e) {
		// The agent reading its own memory is no part of the work.
		if e.CallID != "" {
			if len(x.dropped) > maxCalls {
				clear(x.dropped)
			}
			x.dropped[e.CallID] = true
		}
		x.memReads++
		return
	}
	if e.Action != sessions.ActionPlan {
		// Updating its own to-do list looks at nothing.
		x.looked = true
		t.findings.answerFrom = t.findings.msgs
	}
	t.touch(e.Time)
	t.calls++
	x.explainNext = nil // the agent moved on without a word about the failure
	tool := e.Tool
	if tool == "" {
		tool = "tool"
	}
	t.tools[tool]++
	c := &call{id: e.CallID, task: t, action: e.Action, tool: tool, escalated: e.Escalated, editsBefore: t.files.changes, seq: t.calls}
	if e.FilePath != "" {
		c.target = x.relPath(x.absPath(e.FilePath))
		if c.action == sessions.ActionRead {
			t.addRead(c.target)
		}
	}
	if cmd := strings.TrimSpace(e.Command); cmd != "" {
		c.command = cmd
		c.family = program.Family(cmd)
		c.explore = program.Explores(cmd)
		c.check = !c.explore && program.IsCheck(cmd)
		if c.check {
			c.purpose = program.Purpose(cmd)
		}
		st := t.cmds[cmd]
		if st == nil && len(t.cmds) < maxTrackedCmds {
			t.cmdOrder++
			st = &cmdStat{command: cmd, check: c.check, explore: c.explore, order: t.cmdOrder}
			t.cmds[cmd] = st
		}
		if c.explore {
			for _, p := range program.FilesRead(cmd) {
				t.addRead(x.relPath(x.absPath(p)))
			}
			t.steps.add(step{kind: stepExplore, text: program.Name(cmd)})
		} else {
			t.steps.add(step{kind: stepCommand, call: c})
			if name := program.Name(cmd); c.check {
				x.kw.add(c.family, 1)
			} else if !program.IsBasic(name) {
				x.kw.add(name, 1)
			}
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
	if e.Outcome == sessions.OutcomeCancelled {
		// It never ran: neither a failure nor a result.
		c.status = stCancelled
		return
	}
	t := c.task
	t.touch(e.Time)
	c.exit = e.ExitCode
	c.status = resultStatus(c, e)
	x.refusal = c.status == stRejected || c.status == stInterrupted
	if c.status.refused() {
		t.endedRefused = true
		if len(t.refused) < 6 {
			t.refused = append(t.refused, c)
		}
		if st := t.cmds[c.command]; c.command != "" && st != nil {
			st.refused++
		}
		if c.command == "" {
			t.steps.add(step{kind: stepRefused, call: c})
		}
		return
	}
	t.endedRefused = false
	if c.status == stFailed {
		c.errLine = textcut.Line(program.ErrorLine(e.Output), lineMax)
		c.tests = program.FailingTests(e.Output)
		c.output = textcut.Line(e.Output, maxKeptOutput)
		if c.command != "" {
			x.kw.addErrorWords(c.errLine)
		}
		x.explainNext = c
	}
	if c.status == stOK && c.command != "" {
		if c.check {
			c.tally = program.PassTally(e.Output)
		}
		x.scriptOf(t, c.command, e.Output)
		if w := program.WorktreeAdded(c.command); w != "" && len(x.worktrees) < 8 {
			x.worktrees = append(x.worktrees, x.absPath(w))
		}
		if !x.scratch(program.Dir(c.command)) {
			c.commits = commitsMade(c.command, e.Output)
			t.addCommits(c.commits)
			if len(c.commits) == 0 && program.ChangesThroughGit(c.command, e.Output) {
				t.addGitChange(c.command)
			}
		}
	}
	if c.status == stOK && c.tool == "AskUserQuestion" {
		x.userChoices(t, e.Output)
	}
	if c.command == "" {
		// A read or search that found nothing is looking around, as
		// an rg without a match is: it shows no problem of the project.
		// A lookup tool that could not start at all (Node's "spawn
		// ENOENT") is broken, which the next session needs to know.
		lookup := (c.action == sessions.ActionRead || c.action == sessions.ActionSearch) && !program.SpawnFailed(c.errLine)
		if c.status == stFailed && !lookup && len(t.toolFails) < 4 {
			t.toolFails = append(t.toolFails, c)
		}
		if c.action == sessions.ActionAgent && c.status == stOK {
			x.subagentReport(t, c, e.Output)
		}
		return
	}
	if c.status != stFailed {
		for _, p := range program.FilesChanged(c.command) {
			key := c.id + "\x00" + path.Base(p.Path)
			if !x.seenChange[key] {
				x.markChange(key)
				x.changeFile(t, p.Path, p.Op, "", "")
			}
		}
		x.restore(t, c)
	}
	st := t.cmds[c.command]
	if st != nil {
		st.runs++
		switch c.status {
		case stFailed:
			st.fails++
			st.errLine = c.errLine
		case stUnknown:
			st.unknown++
		}
	}
	t.ran++
	switch c.status {
	case stFailed:
		t.failed++
	case stUnknown:
		t.unknown++
	}
	if c.explore {
		t.explore++
		// A look-around command says little by failing (rg exits 1 on
		// no match), except when the sandbox refused it: then its rerun
		// is a fix worth knowing.
		if (c.status == stFailed && (program.NotPermitted(c.errLine) || brokeRun(c))) || (c.status == stOK && t.families[c.family] != nil) {
			trackFamily(t, c)
		}
		return
	}
	if c.status == stUnknown {
		return // nothing is known about how it ended
	}
	t.lastCmd = c
	if c.check {
		t.lastCheck = c
		t.byPurpose[c.purpose] = c
		if c.status == stOK {
			t.negAfter = false
		}
	}
	trackFamily(t, c)
}

// restore applies what a command undid (git checkout -- f, git stash …) to
// the task's files, once the command is seen to have run.
func (x *Extractor) restore(t *task, c *call) {
	if c.status == stFailed {
		return
	}
	r := program.Restores(c.command)
	if r.Empty() {
		return
	}
	var names []string
	for _, f := range r.Files {
		names = append(names, x.absPath(f))
	}
	for _, f := range t.files.revert(r, names) {
		t.steps.add(step{kind: stepReverted, files: []string{x.relPath(f)}, text: c.command})
	}
}

// absPath resolves a relative path against the thread's cwd so that
// "hello.js" and "/tmp/private/hello.js" count as one file.
func (x *Extractor) absPath(p string) string {
	if p == "" || strings.HasPrefix(p, "/") || x.meta.Cwd == "" || !strings.HasPrefix(x.meta.Cwd, "/") {
		return p
	}
	if len(p) > 1 && p[1] == ':' { // a Windows drive path
		return p
	}
	return path.Join(x.meta.Cwd, p)
}

// scratch reports a path outside the project that no later session will
// look for: a temporary folder or the agent's own state (its plans and
// to-do lists). A repository made in /tmp to try git out, or a binary
// built there, is not the project's; the session's own folder and a git
// worktree the session added are, wherever they are.
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
	return tempDirRE().MatchString(p) || sessions.IsAgentState(p)
}

// tempDirRE matches the temporary folders of Unix, macOS and Windows.
var tempDirRE = lazyRE(`^(/private)?/(tmp|var/tmp|var/folders)(/|$)|(?i)^[a-z]:\\(windows\\temp|users\\[^\\]+\\appdata\\local\\temp)(\\|$)`)

// relPath shows a path relative to the thread's cwd when it lies under it:
// shorter, and still valid the next time someone works in that project.
func (x *Extractor) relPath(p string) string {
	cwd := strings.TrimRight(x.meta.Cwd, "/")
	if cwd != "" && strings.HasPrefix(p, cwd+"/") {
		return p[len(cwd)+1:]
	}
	return p
}

// describe names a call in prose: its command, else what the tool does
// to which file.
func (c *call) describe() string {
	if c.command != "" {
		return code(textcut.Line(c.command, 80))
	}
	what := map[sessions.Action]string{
		sessions.ActionEdit: "the edit", sessions.ActionRead: "the read", sessions.ActionSearch: "the search",
		sessions.ActionWeb: "the web request", sessions.ActionAgent: "the sub-agent task", sessions.ActionPlan: "the plan update",
	}[c.action]
	if what == "" {
		what = "the " + code(c.tool) + " call"
	}
	if c.target != "" {
		what += " of " + c.target
	}
	return what
}

// agentIDLineRE is the harness's trailer on a sub-agent's report.
var agentIDLineRE = lazyRE(`(?m)^agentId: \S+.*$`)

// subagentReport reads what a sub-agent handed back: its findings, or, when
// it ended on a promise ("Let me create the specification") and returned
// nothing else, the fact that it delivered nothing.
func (x *Extractor) subagentReport(t *task, c *call, out string) {
	report := strings.TrimSpace(agentIDLineRE().ReplaceAllString(out, ""))
	ss := sentences(stripMarkdown(report), 40)
	if len(ss) == 0 {
		c.errLine = "no report"
		t.emptyAgents = append(t.emptyAgents, c)
		return
	}
	if len(report) < 400 && planRE().MatchString(ss[len(ss)-1]) {
		c.errLine = textcut.Line(report, 200)
		if len(t.emptyAgents) < 3 {
			t.emptyAgents = append(t.emptyAgents, c)
		}
		return
	}
	t.findings.addFrom(report, "the sub-agent reported", 1)
}

// brokeRun reports a look-around command whose failure is not "nothing
// found" (exit 1) but the run itself breaking: a usage error (exit 2), a
// timeout (124), a missing program (127).
func brokeRun(c *call) bool { return c.exit != nil && *c.exit >= 2 }

// choiceRE reads Claude Code's AskUserQuestion result: `User has answered
// your questions: "question"="answer", …`.
var choiceRE = lazyRE(`"((?:[^"\\]|\\.){3,400}?)"="((?:[^"\\]|\\.){1,300}?)"`)

// userChoices keeps the options the user picked when the agent asked: they
// are the user's decision, in the option's words, and say what was asked,
// so that a memory never takes the agent's other options for the choice.
func (x *Extractor) userChoices(t *task, out string) {
	for _, m := range choiceRE().FindAllStringSubmatch(out, 4) {
		t.steps.add(step{kind: stepChoice, text: m[2], files: []string{m[1]}})
		t.findings.addChoice(m[1], m[2])
	}
}

// scriptOf keeps what a package script that ran clean is made of, in the
// words its runner printed: "npm run ci" is license check, lint, build and
// tests here.
func (x *Extractor) scriptOf(t *task, cmd, out string) {
	runs, ok := program.ScriptRan(cmd, out)
	if !ok || len(t.scripts) >= 3 {
		return
	}
	fam := program.Family(cmd)
	for _, s := range t.scripts {
		if s[0] == fam {
			return
		}
	}
	if strings.ContainsAny(runs, "&|;") { // a script of one program says little
		t.scripts = append(t.scripts, [2]string{fam, runs})
	}
}
