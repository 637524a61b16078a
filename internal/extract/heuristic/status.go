package heuristic

import (
	"github.com/memctl/memctl/internal/english"
	"github.com/memctl/memctl/internal/program"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/textcut"
)

// status is how one tool call ended.
type status int

const (
	stPending     status = iota // no result yet
	stOK                        // it ran and succeeded
	stFailed                    // it ran and failed
	stUnknown                   // it ran; the transcript does not say how it ended
	stRejected                  // the user refused it: it did not run
	stDenied                    // the harness refused it: it did not run
	stInterrupted               // the user stopped it
	stCancelled                 // the harness dropped it before it ran (a sibling call failed)
)

// refused reports a call that never ran or was cut short by the user.
func (s status) refused() bool { return s == stRejected || s == stDenied || s == stInterrupted }

// resultStatus settles a call from its result. The transcript's own signal
// comes first (an exit status, is_error, a rejection); the output's words
// decide only where that signal is missing, or where a pipeline hid the
// exit status of the command that failed ("go test ./... | tail").
func resultStatus(c *call, e sessions.Event) status {
	switch e.Outcome {
	case sessions.OutcomeRejected:
		return stRejected
	case sessions.OutcomeDenied:
		return stDenied
	case sessions.OutcomeInterrupted:
		return stInterrupted
	}
	failed := e.Outcome == sessions.OutcomeFailed || e.IsError || (e.ExitCode != nil && *e.ExitCode != 0)
	if failed {
		return stFailed
	}
	known := e.Outcome == sessions.OutcomeOK || e.ExitCode != nil
	if c.command == "" {
		// A tool that is not a shell: no error reported is success.
		return stOK
	}
	words := e.Output
	if len(words) > 64<<10 {
		words = words[:32<<10] + "\n" + words[len(words)-32<<10:]
	}
	if known {
		if program.HidesExitStatus(c.command) && program.OutputSaysFailed(words) {
			c.masked = true
			return stFailed
		}
		return stOK
	}
	switch {
	case program.OutputSaysFailed(words):
		return stFailed
	case program.OutputSaysOK(words):
		return stOK
	}
	return stUnknown
}

// quotedStatus says what the transcript showed, for the timeline.
func (c *call) statusText() string {
	switch c.status {
	case stOK:
		s := "ok"
		if c.check {
			s = "passed"
		}
		if c.exit != nil {
			s += ", exit " + itoa(*c.exit)
		}
		if len(c.commits) > 0 {
			s += "; made " + english.Noun(len(c.commits), "commit", "commits") + " " + commitsText(c.commits)
		}
		return s
	case stFailed:
		s := "failed"
		if c.exit != nil && *c.exit != 0 {
			s += ", exit " + itoa(*c.exit)
		} else if c.masked {
			s += " (its output says so; the pipeline exited 0)"
		}
		if c.errLine != "" {
			s += " — " + code(textcut.Line(c.errLine, 160))
		}
		return s
	case stUnknown:
		return "no exit status recorded"
	case stRejected:
		return "rejected by the user, not run"
	case stDenied:
		return "permission not granted, not run"
	case stInterrupted:
		return "interrupted by the user"
	case stCancelled:
		return "cancelled by the harness, not run"
	}
	return "no result recorded"
}
