package heuristic

import (
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/textcut"
)

var (
	completionRE = lazyRE(`(?i)\b(done|created|fixed|implemented|added|updated|completed|deleted|removed|renamed|refactored|all tests pass|tests pass|now passes|successfully|i'?ve|has been|have been|is ready|are ready|finished|resolved|wrote|written)\b`)
	failureRE    = lazyRE(`(?i)\b(couldn'?t|could not|unable to|not able to|failed to|still fail|still failing|blocked|can'?t|cannot|did not work|didn'?t work)\b`)
)

func reportsCompletion(s string) bool { return s != "" && completionRE().MatchString(normQuotes(s)) }
func reportsFailure(s string) bool    { return s != "" && failureRE().MatchString(normQuotes(s)) }

// outcome triages a task (success, partial, uncertain, fail) and says why,
// from the strongest evidence down: the last check's exit status, the
// user's own complaints, a refusal or interruption the session ended on,
// then what the final answer reports.
func (t *task) outcome() (string, string) {
	switch {
	case t.lastCheck != nil && t.lastCheck.status == stFailed:
		return "fail", "the last check " + code(textcut.Line(t.lastCheck.command, 80)) + " failed"
	case t.lastCheck != nil && !t.negAfter && t.lastCheck.status == stOK && !t.endedRefused:
		last := code(textcut.Line(t.lastCheck.command, 80))
		if f := uncoveredFailure(t); f != nil {
			// The passing check speaks for what it verifies, not for a
			// push that failed after it or a lint run that still fails.
			when := ""
			if f.failRun.seq > t.lastCheck.seq {
				when = " after it"
			}
			return "partial", "the last check " + last + " passed, but " + failedWhat(f) + " failed" + when + " and no later run passed"
		}
		return "success", "the last check " + last + " passed"
	case t.negative && !t.finalSince:
		return "fail", "the user said it did not work and nothing shows it was fixed"
	case t.endedRefused && !t.finalSince:
		return "uncertain", "the session ended on a step the user rejected or interrupted"
	case t.refusedEdit() != nil && t.changedNothing():
		c := t.refusedEdit()
		why := c.describe() + " was " + map[status]string{stRejected: "rejected by the user", stDenied: "not permitted",
			stInterrupted: "interrupted by the user"}[c.status] + " and no file changed"
		if reportsCompletion(t.final) || reportsFailure(t.final) {
			return "fail", why
		}
		return "uncertain", why
	case t.final != "" && reportsFailure(t.final):
		return "partial", "the final answer reports that part of the work could not be done"
	case t.negAfter:
		return "uncertain", "the user reported a problem and no check confirms the fix"
	case !t.finalSince && (t.ran > 0 || len(t.files.live()) > 0):
		return "partial", "the session ended before a final answer"
	case !t.finalSince && !t.answered:
		return "uncertain", "the session ended before the assistant answered the last message"
	case t.lastCmd != nil && t.lastCmd.status == stFailed:
		return "partial", "the last command " + code(textcut.Line(t.lastCmd.command, 80)) + " failed"
	case reportsCompletion(t.final):
		if f := unresolvedFailure(t); f != nil {
			// Only the agent's word says it worked, and the transcript
			// says something did not: a claim, not a result.
			return "uncertain", "the final answer reports the work as done, but " + failedWhat(f) + " failed and no later run passed"
		}
		return "success", "the final answer reports the work as done and nothing contradicts it"
	case t.final != "":
		return "uncertain", "the assistant answered but nothing confirms the result"
	}
	return "uncertain", "the session ended without an answer"
}

// refusedEdit returns the first edit of the task that did not run.
func (t *task) refusedEdit() *call {
	for _, c := range t.refused {
		if c.action == sessions.ActionEdit {
			return c
		}
	}
	return nil
}

// unresolvedFailure returns the first command family still failing at the
// task's end that no passing check of the same purpose stood in for.
func unresolvedFailure(t *task) *family {
	for _, f := range openFailures(t) {
		if len(f.replacedBy) == 0 {
			return f
		}
	}
	return nil
}

// uncoveredFailure returns an unresolved failure that the last passing
// check does not answer for: one that came after it, or a failed check of
// another purpose (lint still failing when the tests passed).
func uncoveredFailure(t *task) *family {
	for _, f := range openFailures(t) {
		if len(f.replacedBy) == 0 && (f.failRun.seq > t.lastCheck.seq || f.failRun.check) {
			return f
		}
	}
	return nil
}

// failedWhat names a failed run for an outcome reason: its command line,
// or the tool call it was.
func failedWhat(f *family) string {
	if f.failRun.command != "" {
		return code(textcut.Line(f.failRun.command, 80))
	}
	return f.failRun.describe()
}
