package claude

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/memctl/memctl/internal/lazyre"
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
	asks := map[string]bool{} // calls that asked the user questions
	var q queue
	err := walkClaude(f.Path, probs, false, func(cl *claudeLine, line int) error {
		if text, ok := q.deliver(cl); ok {
			// Typed while the agent worked: the user's words, in the
			// middle of a turn that goes on.
			return em.Emit(transcript.Event{Kind: transcript.EventHuman, Text: text, Time: transcript.ParseTime(cl.Timestamp), Line: line})
		}
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
				if p.Tool == askTool {
					asks[p.CallID] = true
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
				if asks[p.CallID] && p.Outcome == transcript.OutcomeOK {
					delete(asks, p.CallID)
					if text := userAnswers(p.Output); text != "" {
						if err := em.Emit(transcript.Event{Kind: transcript.EventHuman, Text: text, Time: p.Time, Line: p.Line}); err != nil {
							return err
						}
					}
				}
				if p.Outcome != transcript.OutcomeOK {
					continue
				}
				for _, fc := range changes {
					fc.Time, fc.Line = p.Time, p.Line
					if fc.FileOp == "write" {
						fc.FileOp = cmp.Or(map[string]string{"create": "add", "update": "update"}[p.wrote], "write")
					}
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
	pollStatusRE = lazyre.New(`<status>(\w+)</status>`)
	pollExitRE   = lazyre.New(`<exit_code>(-?\d+)</exit_code>`)
	pollOutRE    = lazyre.New(`(?s)<(stdout|stderr)>(.*?)</(?:stdout|stderr)>`)
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

// askTool is the tool with which the agent asks the user to choose
// between options; its result holds the user's answers.
const askTool = "AskUserQuestion"

// answerRE reads the answers of its result: `User has answered your
// questions: "question"="answer", …`.
var answerRE = lazyre.New(`"((?:[^"\\]|\\.){1,400}?)"="((?:[^"\\]|\\.){1,300}?)"`)

// userAnswers returns the answers the user picked, one a line: the
// user's own words (the options' labels they chose).
func userAnswers(out string) string {
	var lines []string
	for _, m := range answerRE().FindAllStringSubmatch(out, 8) {
		lines = append(lines, strings.ReplaceAll(m[2], `\"`, `"`))
	}
	return strings.Join(lines, "\n")
}

// queue follows Claude Code's prompt queue, where a message the user types
// while the agent works waits. A queued message reaches the transcript in
// one of three ways: dequeued at the turn's end, it becomes an ordinary
// user line; absorbed into the running turn, newer versions write it as a
// queued_command attachment and older ones only as the queue entry that
// is then removed; taken back to be edited (popAll), it is not sent.
// Notifications of background tasks queue the same way and are the
// harness's, not the user's.
type queue struct {
	waiting []string
	// read counts each absorbed message read from one of its two records
	// (attachment: +1, queue entry: -1), so that the other, whichever
	// comes second, is not read again.
	read map[string]int
}

// deliver returns the user's words a queue or attachment line delivers.
func (q *queue) deliver(cl *claudeLine) (string, bool) {
	switch cl.Type {
	case "attachment":
		a := cl.Attachment
		if a == nil || a.Type != "queued_command" || a.CommandMode != "" && a.CommandMode != "prompt" || a.Origin != nil && a.Origin.Kind != "human" {
			return "", false
		}
		var text string
		for _, b := range claudeBlocks(a.Prompt) {
			if b.Type == "text" {
				text += b.Text
			}
		}
		if text = strings.TrimSpace(text); text == "" {
			return "", false
		}
		if q.read == nil {
			q.read = map[string]int{}
		}
		q.read[text]++
		return text, q.read[text] > 0
	case "queue-operation":
	default:
		return "", false
	}
	switch cl.Operation {
	case "enqueue":
		if len(q.waiting) < 64 {
			q.waiting = append(q.waiting, strings.TrimSpace(transcript.RawString(cl.Content)))
		}
	case "dequeue":
		if len(q.waiting) > 0 {
			q.waiting = q.waiting[1:] // an ordinary user line follows
		}
	case "popAll":
		q.waiting = nil
	case "remove":
		if len(q.waiting) == 0 {
			return "", false
		}
		text := q.waiting[0]
		q.waiting = q.waiting[1:]
		switch {
		case q.read[text] > 0:
			q.read[text]--
		case text != "" && !strings.HasPrefix(text, "<") && !strings.HasPrefix(text, "{") && !strings.HasPrefix(text, "/"):
			// a notification (<task-notification>, a JSON task) or a
			// slash command is not the user's message
			if q.read == nil {
				q.read = map[string]int{}
			}
			q.read[text]--
			return text, true
		}
		return "", false
	}
	return "", false
}
