package heuristic

import (
	"cmp"
	"slices"

	"github.com/memctl/memctl/internal/program"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/textcut"
)

// outcome triages a task and says why, from the task's own evidence: its last check's exit status, the run of a
// file it changed, the user's complaints, a refusal, whether any answer came. The answer's words never make a
// success (with no check the outcome is uncertain); they only keep a refused request from being one.
func (t *task) outcome() (string, string) {
	last := func(c *call) string { return codeLine(c.command, 80) }
	check, ran, ranIt := t.lastCheck, t.ranChanged(), ""
	if ran != nil { // the changed code itself ran: its exit is evidence about the change, as another check's is not
		ranIt = last(ran) + " ran a file the task changed, after its last change, and " +
			map[status]string{stOK: "passed (exit 0)", stFailed: "failed"}[ran.status]
	}
	refusedEdit := slices.IndexFunc(t.refused, func(c *call) bool { return c.action == sessions.ActionEdit })
	switch {
	case t.verifies(check) && check.status == stFailed && ran != nil && ran.status == stOK:
		return "partial", ranIt + "; the last check " + last(check) + " failed"
	case t.verifies(check) && check.status == stFailed:
		return "fail", "the last check " + last(check) + " failed"
	case t.verifies(check) && !t.negAfter && !t.endedRefused && !refuses(t.final):
		for _, f := range t.open() {
			// The pass answers for its own purpose, not for a push failing after it or a lint still failing.
			if f.Unsettled == 0 && (f.Last.Ref > check.seq || t.failures[f.Last.Ref].purpose != "") {
				return "partial", "the last check " + last(check) + " passed, but " +
					runLine(f.Last.Command, 80) + " failed"
			}
		}
		if !t.exercised(check) {
			before := when(check.changesBefore < t.files.changes, "before the last change")
			return "uncertain", "the last check " + last(check) + " passed (exit 0) " +
				cmp.Or(before, "and it does not run the changed code") + when(ran != nil, "; "+ranIt)
		}
		return "success", "the last check " + last(check) + " passed"
	case t.endedRefused && !t.finalSince:
		return "uncertain", "the session ended on a step the user rejected or interrupted"
	case refusedEdit >= 0 && len(t.files.live()) == 0 && len(t.commits) == 0: // it changed nothing
		return "uncertain", t.refused[refusedEdit].describe() + " did not run and no file was edited"
	case !t.finalSince && (t.ran > 0 || len(t.files.live()) > 0):
		return "partial", "the session ended before a final answer"
	case !t.finalSince && !t.answered:
		return "uncertain", "the session ended before the assistant answered the last message"
	case ran != nil:
		return map[status]string{stOK: "uncertain", stFailed: "fail"}[ran.status], ranIt
	case t.final != "":
		next := when(t.next != "", "; the user's next message: "+userWords(t.next, lineMax))
		return "uncertain", "the assistant answered and no check confirms the result" + next
	}
	return "uncertain", "the session ended without an answer"
}

// refuses reports an answer that says the agent could not or would not do the request, or part of it: in its
// opening sentence, or anywhere it says so of itself ("However, I was unable to upgrade react-dom").
func refuses(final string) bool {
	return final != "" && (failureRE().MatchString(normQuotes(textcut.WholeSentences(final, 0))) ||
		selfFailureRE().MatchString(normQuotes(final)))
}

// ranChanged is the latest run with an exit status, after the last change, of a file the task changed (RunsFile).
func (t *task) ranChanged() *call {
	for _, s := range slices.Backward(t.steps.steps) {
		if c := s.call; c != nil && c.changesBefore == t.files.changes && (c.status == stOK || c.status == stFailed) &&
			slices.ContainsFunc(t.files.live(), func(f *fileRec) bool { return f.named(program.RunsFile(c.command)) }) {
			return c
		}
	}
	return nil
}

// verifies reports a check of the work: not a baseline run before any change of a task that changed files.
func (t *task) verifies(c *call) bool {
	return c != nil && (c.changesBefore > 0 || t.files.changes == 0)
}

// exercised reports a check that tried the task's last change: run after it, and a test or a dry run, or the
// pass that ended a failure of the task (what the task set out to fix); a build or a lint does not run it.
func (t *task) exercised(c *call) bool {
	return t.files.changes == 0 || c.changesBefore == t.files.changes && (c.purpose == "test" || c.purpose == "check" ||
		slices.ContainsFunc(t.fixes, func(f fix) bool { return f.pass == c }))
}

// open lists the task's failures no pass ended, a read's too: a search that found nothing is no failure (stUnknown).
func (t *task) open() []program.Failure {
	return slices.DeleteFunc(t.pairs.Open(), func(f program.Failure) bool { return t.failures[f.Last.Ref] == nil })
}
