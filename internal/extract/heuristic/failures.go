package heuristic

import (
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/memctl/memctl/internal/program"
	"github.com/memctl/memctl/internal/textcut"
)

// Failures are tracked per command family (go test, npm run build, git
// push …) within a task. A family stays open from its first failure until
// a run of the same family passes; how it ended decides what the memory
// says:
//
//   - the very same command line, in the same environment, passed with no
//     file changed and no other command run in between: flaky, and said
//     to be only possibly so;
//   - the passing run differs: what differs is the fix and is named (an
//     added option, an escalation of permissions, a changed environment
//     variable), as are the files changed and the commands run in
//     between;
//   - a passing check of the same purpose from another family came after
//     it ("golangci-lint run" fails, "make lint" passes): a substitution;
//   - nothing: the failure is reported as it stands at the end.

// family is an open failure of one command family within a task.
type family struct {
	fails      int
	failRun    *call    // the latest failing run
	missing    bool     // the program is not installed
	edited     []string // files changed since the latest failure
	ranSince   []string // commands the failure's output named that passed since it
	ranOther   bool     // some other command passed since the latest failure
	replacedBy []string // passing checks of the same purpose, other families, since the latest failure
	// earlier are the other error lines of earlier failures, once each:
	// a check that failed several times may have failed for several
	// causes, and the latest line alone would be given to all of them.
	earlier []string
}

// recovery is a failure that a later run of its family fixed.
type recovery struct {
	fail     *call
	pass     *call
	fails    int
	earlier  []string
	edited   []string
	ranSince []string
	ranOther bool
}

// trackFamily folds a settled run into the task's open failures.
func trackFamily(t *task, c *call) {
	failed := c.status == stFailed
	if !failed {
		for name, f := range t.families {
			if name == c.family || f.fails == 0 {
				continue
			}
			switch {
			case c.check && f.failRun.check && c.purpose == f.failRun.purpose:
				if len(f.replacedBy) < 3 && !slices.Contains(f.replacedBy, c.command) {
					f.replacedBy = append(f.replacedBy, c.command)
				}
			case !c.check:
				f.ranOther = true
				if len(f.ranSince) < 2 && !slices.Contains(f.ranSince, c.command) && causeNamed(c.command, f.failRun) {
					f.ranSince = append(f.ranSince, c.command)
				}
			}
		}
	}
	f := t.families[c.family]
	if f != nil && !failed && f.fails > 0 && !slices.Equal(targetsOf(f.failRun.command), targetsOf(c.command)) {
		// Another address fetched, or another path searched, is another
		// target, not the failed one made to work.
		return
	}
	if f == nil {
		if !failed || len(t.families) >= maxFamilies {
			return
		}
		f = &family{}
		t.families[c.family] = f
	}
	if failed {
		if prev := f.failRun; prev != nil && prev.errLine != "" && prev.errLine != c.errLine &&
			!slices.Contains(f.earlier, prev.errLine) && len(f.earlier) < 2 {
			f.earlier = append(f.earlier, prev.errLine)
		}
		f.fails++
		f.failRun = c
		f.missing = program.NotInstalled(c.command, c.exit, c.errLine)
		// What happened "in between" starts again at the latest failure.
		f.edited, f.ranSince, f.replacedBy, f.ranOther = nil, nil, nil, false
		return
	}
	if f.fails > 0 && len(t.recoveries) < maxRecoveries {
		t.recoveries = append(t.recoveries, recovery{fail: f.failRun, pass: c, fails: f.fails, earlier: f.earlier, edited: f.edited, ranSince: f.ranSince, ranOther: f.ranOther})
	}
	delete(t.families, c.family)
}

// maxEditedPerFailure bounds the files remembered as changed while a
// failure was open.
const maxEditedPerFailure = 8

// flaky reports a recovery where nothing visible changed: the same check
// (output filters aside) passed with no edit and no command in between.
func (r recovery) flaky() bool {
	return sameCheck(r.pass.command, r.fail.command) && r.pass.escalated == r.fail.escalated &&
		len(r.edited) == 0 && !r.ranOther
}

// sameCheck reports two command lines that run the same check: they differ
// at most in how their output is filtered ("| tail -20" against "| tail
// -10", "2>&1"), which changes what is shown, not what runs.
func sameCheck(a, b string) bool { return program.WithoutFilters(a) == program.WithoutFilters(b) }

// change names what differed between the failing and the passing run,
// phrased to follow "passed" ("with `--set-upstream origin x` added"); ""
// when the check and its permissions were the same, or when the two runs
// differ too much for a difference to be named as the cause.
func (r recovery) change() string {
	var parts []string
	if r.pass.escalated && !r.fail.escalated {
		parts = append(parts, "when rerun with escalated permissions (outside the sandbox)")
	}
	failCmd, passCmd := program.WithoutFilters(r.fail.command), program.WithoutFilters(r.pass.command)
	if passCmd != failCmd {
		added, dropped := program.ArgDiff(failCmd, passCmd)
		if slices.ContainsFunc(append(slices.Clone(added), dropped...), func(w string) bool { return w == "&&" || w == "||" || w == ";" || w == "|" }) {
			// Commands added to or dropped from a chain: another
			// sequence of steps, not an option of the same one.
			added, dropped = nil, nil
		} else if !namedDiff(added, dropped) && slices.Equal(program.EnvPrefix(failCmd), program.EnvPrefix(passCmd)) {
			// Other paths, another commit message: another run, not
			// a changed way of running it.
			added, dropped = nil, nil
		}
		envA, envB := program.EnvPrefix(failCmd), program.EnvPrefix(passCmd)
		switch {
		case !slices.Equal(envA, envB) && len(added)+len(dropped) <= len(envA)+len(envB):
			parts = append(parts, "with the environment "+code(strings.Join(envB, " ")))
		case len(added) > 0 && len(added) <= 6 && len(dropped) == 0:
			parts = append(parts, "with "+code(strings.Join(added, " "))+" added")
		case len(dropped) > 0 && len(dropped) <= 6 && len(added) == 0:
			parts = append(parts, "without "+code(strings.Join(dropped, " ")))
		case len(added) > 0 && len(added) <= 4 && len(dropped) <= 4:
			parts = append(parts, "with "+code(strings.Join(added, " "))+" instead of "+code(strings.Join(dropped, " ")))
		}
	}
	return strings.Join(parts, " and ")
}

// between says what happened between the failure and the pass that can
// have caused it: the files changed, narrowed to those the failure's
// output names when it names any, and the commands its output named
// ("Run 'mix format' to fix"). Other commands run meanwhile (closing an
// issue, a commit) are no cause.
func (r recovery) between() string {
	var parts []string
	if edited := namedIn(r.edited, r.fail); len(edited) > 0 {
		parts = append(parts, "after changes to "+strings.Join(capped(edited, 3), ", "))
	}
	if len(r.ranSince) > 0 {
		parts = append(parts, "after running "+code(strings.Join(cutLines(r.ranSince, 100), "`, `")))
	}
	return strings.Join(parts, " and ")
}

// namedIn keeps the files the failed call's output or command names, or
// all of them when it names none.
func namedIn(files []string, c *call) []string {
	var named []string
	for _, f := range files {
		if base := path.Base(f); strings.Contains(c.output, base) || strings.Contains(c.command, base) {
			named = append(named, f)
		}
	}
	if len(named) == 0 {
		return files
	}
	return named
}

// namedDiff reports a difference that is a changed way of running the
// same check: options added (with their values) or dropped, or options
// swapped for options.
func namedDiff(added, dropped []string) bool {
	switch {
	case len(added) > 0 && len(dropped) > 0:
		return !slices.ContainsFunc(append(slices.Clone(added), dropped...), func(w string) bool { return !isFlag(w) })
	case len(added) > 0:
		return slices.ContainsFunc(added, isFlag)
	}
	return slices.ContainsFunc(dropped, isFlag)
}

// isFlag reports a command-line option.
func isFlag(w string) bool { return len(w) > 1 && w[0] == '-' }

var urlRE = lazyRE(`[a-z]+://[^\s'"()]+`)

// urlsOf lists the addresses a command line names.
func urlsOf(cmd string) []string { return urlRE().FindAllString(cmd, -1) }

// targetsOf is what a command works on, for telling one target from
// another: the addresses it names and, for a look around, the paths it
// looks in.
func targetsOf(cmd string) []string { return append(urlsOf(cmd), program.LookedIn(cmd)...) }

// causeNamed reports a command that a failure's output points at: the
// output tells to run it ("Run 'mix format' to fix"), or names a file it
// works on ("Unable to create '.git/index.lock'" before "rm -f
// .git/index.lock"), or it changed files itself (a revert, a write).
func causeNamed(cmd string, failed *call) bool {
	if !program.Restores(cmd).Empty() || len(program.FilesChanged(cmd)) > 0 {
		return true // it changed files, as an edit does
	}
	if fam := program.Family(cmd); len(fam) >= 3 && strings.Contains(failed.output, fam) {
		return true
	}
	for _, w := range strings.Fields(cmd) {
		w = strings.Trim(w, `"'`)
		if len(w) >= 4 && !strings.HasPrefix(w, "-") && strings.ContainsAny(w, "/.") && strings.Contains(failed.output, w) {
			return true
		}
	}
	return false
}

// earlierPart quotes the other error lines of a check's earlier failures.
func earlierPart(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	var quoted []string
	for _, l := range lines {
		quoted = append(quoted, code(textcut.Line(l, 120)))
	}
	return "; earlier failures printed " + strings.Join(quoted, " and ")
}

// errPart quotes what a failed call printed: the error line and the
// failing tests it names.
func errPart(c *call) string {
	var parts []string
	if c.errLine != "" {
		parts = append(parts, code(textcut.Line(c.errLine, 160)))
	}
	if len(c.tests) > 0 {
		parts = append(parts, "failing: "+strings.Join(cutLines(c.tests, 80), ", "))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// explained adds the agent's own explanation of a failure, when it gave
// one right after it.
func explained(line string, c *call) string {
	switch {
	case c.explanation != "":
		return strings.TrimSuffix(line, ".") + "; the agent's explanation: " + quote(c.explanation)
	case c.reasoning != "" && c.reasoningLater:
		return strings.TrimSuffix(line, ".") + "; the agent's later reasoning: " + quote(c.reasoning)
	case c.reasoning != "":
		// Its thinking, not a statement to the user: quoted as such.
		return strings.TrimSuffix(line, ".") + "; the agent's reasoning at the time: " + quote(c.reasoning)
	}
	return line
}

// how joins the change and what came in between; "later" when neither
// names a cause.
func (r recovery) how() string {
	h, b := r.change(), r.between()
	switch {
	case h == "" && b == "":
		return "later"
	case h == "":
		return b
	case b == "":
		return h
	}
	return h + ", " + b
}

// failureLine phrases a recovery for "Failures and how to do differently".
func (r recovery) failureLine() string {
	line := r.fail.describe() + " failed " + times(r.fails) + errPart(r.fail) + earlierPart(r.earlier)
	if r.flaky() {
		return line + ", then passed on an identical rerun with nothing changed in between (possibly flaky)."
	}
	return explained(line+"; it passed "+r.how()+".", r.fail)
}

// fixLine phrases a non-flaky recovery as reusable knowledge: what made
// the failing command pass.
func (r recovery) fixLine() string {
	passed := " and passed "
	if r.pass.tally != "" {
		passed = " and passed (" + code(r.pass.tally) + ") "
	}
	return explained(r.fail.describe()+" failed"+errPart(r.fail)+passed+r.how()+".", r.fail)
}

// openFailures lists the task's families still failing at its end, in
// name order.
func openFailures(t *task) []*family {
	names := make([]string, 0, len(t.families))
	for k, f := range t.families {
		if f.fails > 0 {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	out := make([]*family, 0, len(names))
	for _, k := range names {
		out = append(out, t.families[k])
	}
	return out
}

// replacementPhrase names the commands that replaced a failing one.
func replacementPhrase(cmds []string, fs *files) string {
	var wrapper, plain []string
	for _, c := range cmds {
		if names := program.TargetFiles(program.Name(c)); len(names) > 0 && fs.editedAny(names) {
			wrapper = append(wrapper, c)
		} else {
			plain = append(plain, c)
		}
	}
	list := func(l []string) string {
		return "`" + strings.Join(cutLines(l, 100), "` and `") + "`"
	}
	if len(wrapper) > 0 && len(plain) > 0 {
		return list(plain) + " through " + list(wrapper)
	}
	return list(cmds)
}

// openFailureLine phrases a failure no run of its own family fixed.
func openFailureLine(f *family, outcome, final string, fs *files) string {
	run := f.failRun
	if len(f.replacedBy) > 0 {
		used := replacementPhrase(f.replacedBy, fs)
		if f.missing {
			return "For " + run.purpose + ", " + used + " passed instead; " + code(program.Name(run.command)) + " is not installed" + errPart(run) + "."
		}
		return "For " + run.purpose + ", " + used + " passed instead; " + run.describe() + " failed " + times(f.fails) + errPart(run) + "."
	}
	line := run.describe() + " failed " + times(f.fails) + errPart(run) + earlierPart(f.earlier)
	if f.missing {
		line = code(program.Name(run.command)) + " is not installed" + errPart(run)
	}
	// The task reported done (by a check, or by the final answer alone
	// while this failure stood): say what the answer claims about it.
	// A look around that broke (a search of a path that is not there)
	// never stood in the way of the work, so it puts nothing in doubt.
	if !program.Explores(run.command) && (outcome == "success" || reportsCompletion(final) && !reportsFailure(final)) {
		if s := sentenceNaming(final, program.SpokenName(run.command)); s != "" {
			return line + "; the final answer says: " + quote(textcut.Line(s, 220))
		}
		return explained(line+" and no later run passed; the task was still reported done.", run)
	}
	return explained(line+" and no later run passed.", run)
}

// sentenceNaming returns the first sentence of text that names needle as a
// word of its own (case-insensitive), "" when none does: the "cat" of a
// failed "cat > f" is not named by a sentence about "configured" limits.
func sentenceNaming(text, needle string) string {
	if text == "" || needle == "" {
		return ""
	}
	re, err := regexp.Compile(`(?i)(^|[^\w-])` + regexp.QuoteMeta(needle) + `($|[^\w-])`)
	if err != nil {
		return ""
	}
	for _, s := range sentences(text, 20) {
		if re.MatchString(s) {
			return s
		}
	}
	return ""
}
