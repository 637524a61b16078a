package claude

import (
	"strconv"
	"strings"

	"github.com/memctl/memctl/internal/sessions/internal/transcript"
)

// claudeEvents streams a Claude Code session. The held-back assistant text
// becomes Final when the human speaks next or the file ends. A file change
// is only reported after its tool call's result shows it succeeded, and a
// background shell's polls are folded into the command that started it.
func Events(f transcript.File, probs func(transcript.Problem), fn func(transcript.Event) error) error {
	em := transcript.NewEmitter(fn)
	pending := map[string][]transcript.Event{} // call id → file changes awaiting the result
	polls := map[string]string{}               // poll call id → background shell id
	background := map[string]string{}
	err := walkClaude(f.Path, probs, false, func(cl *claudeLine, line int) error {
		for _, p := range claudePieces(cl, line) {
			switch p.Kind {
			case transcript.EventHuman:
				if err := em.EndTurn(true); err != nil {
					return err
				}
			case transcript.EventFileChange:
				if p.CallID != "" {
					if len(pending) > 1024 {
						clear(pending)
					}
					pending[p.CallID] = append(pending[p.CallID], p.Event)
					continue
				}
			case transcript.EventToolCall:
				if p.pollID != "" {
					polls[p.CallID] = p.pollID
					continue
				}
			case transcript.EventToolResult:
				if id, ok := polls[p.CallID]; ok {
					delete(polls, p.CallID)
					ev, done := claudePollResult(p.Event, background[id])
					if !done {
						continue
					}
					delete(background, id)
					p.Event = ev
				} else if id := claudeBackgroundID(p.Output); id != "" && p.Outcome == transcript.OutcomeOK {
					background[id] = p.CallID
					continue
				}
				changes := pending[p.CallID]
				delete(pending, p.CallID)
				if err := em.Emit(p.Event); err != nil {
					return err
				}
				if p.Outcome != transcript.OutcomeOK {
					continue
				}
				for _, fc := range changes {
					fc.Time, fc.Line = p.Time, p.Line
					if err := em.Emit(fc); err != nil {
						return err
					}
				}
				continue
			}
			if err := em.Emit(p.Event); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return em.EndTurn(true)
}

// claudeBackgroundID returns the shell id of a Bash result that says the
// command went to the background.
func claudeBackgroundID(out string) string {
	const marker = "Command running in background with ID: "
	if !strings.HasPrefix(out, marker) {
		return ""
	}
	id := strings.TrimSpace(out[len(marker):])
	if i := strings.IndexAny(id, " \n."); i >= 0 {
		id = id[:i]
	}
	return id
}

var (
	pollStatusRE = transcript.LazyRE(`<status>(\w+)</status>`)
	pollExitRE   = transcript.LazyRE(`<exit_code>(-?\d+)</exit_code>`)
	pollOutRE    = transcript.LazyRE(`(?s)<(stdout|stderr)>(.*?)</(?:stdout|stderr)>`)
)

// claudePollResult turns the result of a BashOutput poll into the result of
// the background command; done is false while the command still runs.
func claudePollResult(poll transcript.Event, callID string) (transcript.Event, bool) {
	m := pollStatusRE().FindStringSubmatch(poll.Output)
	if callID == "" || m == nil || m[1] == "running" {
		return poll, false
	}
	ev := poll
	ev.CallID = callID
	ev.Outcome = transcript.OutcomeUnknown
	if e := pollExitRE().FindStringSubmatch(poll.Output); e != nil {
		if n, err := strconv.Atoi(e[1]); err == nil {
			ev.ExitCode = &n
			ev.Outcome = transcript.OutcomeOK
			if n != 0 {
				ev.Outcome = transcript.OutcomeFailed
			}
		}
	} else if m[1] == "failed" {
		ev.Outcome = transcript.OutcomeFailed
	} else if m[1] == "killed" {
		ev.Outcome = transcript.OutcomeInterrupted
	}
	ev.IsError = ev.Outcome == transcript.OutcomeFailed
	var parts []string
	for _, o := range pollOutRE().FindAllStringSubmatch(poll.Output, -1) {
		parts = append(parts, strings.TrimSpace(o[2]))
	}
	if len(parts) > 0 {
		ev.Output = strings.Join(parts, "\n")
	}
	return ev, true
}
