package sessions

import (
	"encoding/json"
	"strings"
)

// emitter holds back the latest assistant message so it can be marked
// Final once the turn is seen to end (task_complete for Codex, the next
// human message or the end of file for Claude Code).
type emitter struct {
	fn      func(Event) error
	pending *Event
	err     error
}

func (e *emitter) emit(ev Event) error {
	if e.err != nil {
		return e.err
	}
	if e.pending != nil {
		p := *e.pending
		e.pending = nil
		if e.err = e.fn(p); e.err != nil {
			return e.err
		}
	}
	if ev.Kind == EventAssistant && !ev.Final {
		e.pending = &ev
		return nil
	}
	e.err = e.fn(ev)
	return e.err
}

// endTurn flushes the held-back assistant message, marked final.
func (e *emitter) endTurn(final bool) error {
	if e.err != nil || e.pending == nil {
		return e.err
	}
	p := *e.pending
	e.pending = nil
	p.Final = p.Final || final
	e.err = e.fn(p)
	return e.err
}

// codexState is what the Codex reader remembers across lines to turn the
// rollout's items into one result per call and file changes that only
// count once they applied.
type codexState struct {
	em          *emitter
	envelope    bool
	results     map[string]bool    // call ids whose result was emitted
	fileChanges map[string]bool    // call ids whose file changes were emitted
	pending     map[string][]Event // apply_patch call id → changes awaiting the result
	sessions    map[string]string  // unified-exec session id → the call that opened it
	polls       map[string]string  // write_stdin call id → session id it polls
}

func (st *codexState) bound() {
	// Caps keep a pathological rollout from growing these without end.
	for _, m := range []map[string]bool{st.results, st.fileChanges} {
		if len(m) > 8192 {
			clear(m)
		}
	}
	if len(st.pending) > 1024 {
		clear(st.pending)
	}
	if len(st.sessions) > 1024 {
		clear(st.sessions)
	}
	if len(st.polls) > 1024 {
		clear(st.polls)
	}
}

// codexEvents streams the normalised conversation of a Codex rollout.
// The human's words come from user_message events when the file has them
// (envelope format); legacy files only have the response items.
//
// Unified exec: a command that outlives its first wait answers "Process
// running with session ID N"; write_stdin calls then poll session N. The
// polls are not reported as calls of their own: the first output that
// carries an exit status (a poll's, or exec_command_end's) becomes the
// result of the command that opened the session.
func codexEvents(f File, probs func(Problem), fn func(Event) error) error {
	st := &codexState{em: &emitter{fn: fn}, results: map[string]bool{}, fileChanges: map[string]bool{},
		pending: map[string][]Event{}, sessions: map[string]string{}, polls: map[string]string{}}
	em := st.em
	err := walkCodex(f.Path, probs, false, func(l codexLine) error {
		st.envelope = st.envelope || !l.bare
		st.bound()
		t := parseTime(l.ts)
		base := Event{Time: t, Line: l.line}
		p := l.payload
		switch l.typ {
		case "compacted":
			ev := base
			ev.Kind = EventCompaction
			ev.Text = fieldString(p, "message")
			return em.emit(ev)
		case "inter_agent_communication":
			ev := base
			ev.Kind = EventOtherAgent
			ev.Text = strings.Join(messageParts(p), "\n")
			if ev.Text == "" {
				ev.Text = fieldString(p, "content")
			}
			return em.emit(ev)
		case "event_msg":
			st.envelope = true
			return st.eventMsg(base, p)
		case "response_item":
			return st.responseItem(base, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return em.endTurn(false)
}

func (st *codexState) eventMsg(base Event, p []byte) error {
	em := st.em
	switch fieldString(p, "type") {
	case "user_message":
		ev := base
		ev.Kind = EventHuman
		ev.Text = cleanPreview(fieldString(p, "message"))
		if err := em.endTurn(false); err != nil {
			return err
		}
		return em.emit(ev)
	case "item_completed":
		if text, ok := userMessageItem(field(p, "item")); ok {
			ev := base
			ev.Kind = EventHuman
			ev.Text = cleanPreview(text)
			return em.emit(ev)
		}
	case "turn_aborted":
		if r := fieldString(p, "reason"); r == "interrupted" || r == "" {
			ev := base
			ev.Kind = EventInterrupt
			ev.Text = "turn aborted: interrupted"
			if err := em.endTurn(false); err != nil {
				return err
			}
			return em.emit(ev)
		}
	case "task_complete":
		if em.pending != nil {
			return em.endTurn(true)
		}
		if last := fieldString(p, "last_agent_message"); last != "" {
			ev := base
			ev.Kind = EventAssistant
			ev.Text = last
			ev.Final = true
			return em.emit(ev)
		}
	case "exec_command_end":
		id := fieldString(p, "call_id")
		if st.results[id] {
			return nil
		}
		st.results[id] = true
		ev := base
		ev.Kind = EventToolResult
		ev.CallID = id
		ev.Tool = "exec_command"
		out := fieldString(p, "aggregated_output")
		if out == "" {
			out = fieldString(p, "stdout") + fieldString(p, "stderr")
		}
		ev.Output = shorten(out, eventTextMax)
		ev.Outcome = OutcomeUnknown
		if n, ok := rawInt(field(p, "exit_code")); ok {
			ev.ExitCode = &n
			ev.Outcome = OutcomeOK
			if n != 0 {
				ev.Outcome = OutcomeFailed
			}
		}
		switch fieldString(p, "status") {
		case "failed":
			ev.Outcome = OutcomeFailed
		case "declined":
			ev.Outcome = OutcomeRejected
		}
		ev.IsError = ev.Outcome == OutcomeFailed
		return em.emit(ev)
	case "patch_apply_end":
		id := fieldString(p, "call_id")
		if st.fileChanges[id] {
			return nil
		}
		st.fileChanges[id] = true
		delete(st.pending, id)
		if string(field(p, "success")) == "false" {
			return nil
		}
		var ferr error
		_ = eachField(field(p, "changes"), func(path string, ch []byte) bool {
			ev := base
			ev.Kind = EventFileChange
			ev.CallID = id
			ev.Tool = "apply_patch"
			ev.FilePath = path
			ev.FileOp = fieldString(ch, "type")
			if mv := fieldString(ch, "move_path"); mv != "" {
				ev.FilePath = mv
			}
			ferr = em.emit(ev)
			return ferr == nil
		})
		return ferr
	}
	return nil
}

func (st *codexState) responseItem(base Event, p []byte) error {
	em := st.em
	switch typ := fieldString(p, "type"); typ {
	case "message":
		role := fieldString(p, "role")
		parts := messageParts(p)
		switch role {
		case "assistant":
			ev := base
			ev.Kind = EventAssistant
			ev.Text = strings.Join(parts, "\n")
			ev.Final = fieldString(p, "phase") == "final_answer"
			if strings.TrimSpace(ev.Text) == "" {
				return nil
			}
			return em.emit(ev)
		case "user", "developer", "system":
			for _, part := range parts {
				ev := base
				switch {
				case role == "user" && strings.HasPrefix(strings.TrimSpace(part), "<turn_aborted>"):
					if st.envelope {
						continue // the turn_aborted event carries it
					}
					ev.Kind = EventInterrupt
					ev.Text = part
				case role == "user" && !isInjectedContext(part):
					if st.envelope {
						continue // the user_message event carries these words
					}
					ev.Kind = EventHuman
					ev.Text = cleanPreview(part)
					if err := em.endTurn(false); err != nil {
						return err
					}
				default:
					ev.Kind = EventContext
					ev.Text = part
				}
				if err := em.emit(ev); err != nil {
					return err
				}
			}
		}
	case "agent_message":
		ev := base
		ev.Kind = EventOtherAgent
		ev.Text = strings.Join(messageParts(p), "\n")
		return em.emit(ev)
	case "function_call", "custom_tool_call", "local_shell_call":
		return st.toolCall(base, p, typ)
	case "function_call_output", "custom_tool_call_output":
		return st.toolOutput(base, p)
	case "web_search_call":
		ev := base
		ev.Kind = EventToolCall
		ev.Tool = "web_search"
		ev.Action = ActionWeb
		ev.Input = compactJSON(field(p, "action"))
		return em.emit(ev)
	case "tool_search_call":
		ev := base
		ev.Kind = EventToolCall
		ev.Tool = "tool_search"
		ev.Action = ActionSearch
		ev.CallID = fieldString(p, "call_id")
		ev.Input = shorten(compactJSON(field(p, "arguments")), eventTextMax)
		return em.emit(ev)
	}
	return nil
}

func (st *codexState) toolCall(base Event, p []byte, typ string) error {
	em := st.em
	ev := base
	ev.Kind = EventToolCall
	ev.CallID = fieldString(p, "call_id")
	ev.Tool = fieldString(p, "name")
	if typ == "local_shell_call" {
		ev.Tool = "local_shell_call"
		ev.Action = ActionShell
		var argv []string
		_ = json.Unmarshal(field(field(p, "action"), "command"), &argv)
		ev.Command = shellJoin(argv)
		ev.Input = shorten(compactJSON(field(p, "action")), eventTextMax)
		return em.emit(ev)
	}
	var input string
	if typ == "function_call" {
		input = fieldString(p, "arguments")
		ev.Command = commandFromArgs(ev.Tool, input)
	} else {
		input = fieldString(p, "input")
	}
	if sid := codexPollSession(ev.Tool, input); sid != "" {
		// A poll of a running command: not a call of its own.
		st.polls[ev.CallID] = sid
		return nil
	}
	ev.Action = codexAction(ev.Tool, fieldString(p, "namespace"))
	if ev.Action == ActionShell {
		ev.Escalated = codexEscalated(input)
	}
	ev.Input = shorten(input, eventTextMax)
	if ev.Action == ActionEdit && !st.fileChanges[ev.CallID] {
		changes := editChanges(ev.Tool, input)
		for i := range changes {
			changes[i].Time, changes[i].Line = base.Time, base.Line
			changes[i].CallID, changes[i].Tool = ev.CallID, ev.Tool
		}
		if len(changes) == 1 {
			ev.FilePath = changes[0].FilePath
		}
		if len(changes) > 0 && ev.CallID != "" {
			st.pending[ev.CallID] = changes
		}
	}
	return em.emit(ev)
}

func (st *codexState) toolOutput(base Event, p []byte) error {
	em := st.em
	id := fieldString(p, "call_id")
	raw := toolOutputText(field(p, "output"))
	out, code := parseToolOutput(raw)
	if sid, ok := st.polls[id]; ok {
		// The output of a poll: it settles the command that opened the
		// session once it carries an exit status.
		delete(st.polls, id)
		orig := st.sessions[sid]
		if orig == "" || code == nil || st.results[orig] {
			return nil
		}
		delete(st.sessions, sid)
		id = orig
	} else if sid := codexRunningSession(out); sid != "" && code == nil {
		st.sessions[sid] = id
		return nil // still running: a poll or exec_command_end carries the result
	}
	if st.results[id] && id != "" {
		return nil
	}
	st.results[id] = true
	ev := base
	ev.Kind = EventToolResult
	ev.CallID = id
	body := codexExecBody(out)
	ev.Output = shorten(body, eventTextMax)
	ev.ExitCode = code
	ev.Outcome = codexOutcome(body, code)
	changes, hasPending := st.pending[id]
	delete(st.pending, id)
	if hasPending && ev.Outcome == OutcomeUnknown {
		// apply_patch answers in words when it has no exit status.
		ev.Outcome = OutcomeOK
		if codexPatchFailed(body) {
			ev.Outcome = OutcomeFailed
		}
	}
	ev.IsError = ev.Outcome == OutcomeFailed
	if err := em.emit(ev); err != nil {
		return err
	}
	if !hasPending || st.fileChanges[id] {
		return nil
	}
	if ev.Outcome == OutcomeFailed || ev.Outcome == OutcomeRejected || ev.Outcome == OutcomeInterrupted ||
		ev.Outcome == OutcomeDenied || codexPatchFailed(body) {
		return nil
	}
	st.fileChanges[id] = true
	for _, fc := range changes {
		fc.Time, fc.Line = base.Time, base.Line
		if err := em.emit(fc); err != nil {
			return err
		}
	}
	return nil
}

// codexOutcome reads the outcome of a tool output: its exit status when it
// has one, else the harness's own words for a refused or aborted call.
func codexOutcome(body string, code *int) Outcome {
	t := strings.TrimSpace(body)
	switch {
	case strings.HasPrefix(t, "exec command rejected by user"), strings.HasPrefix(t, "patch rejected by user"),
		strings.HasPrefix(t, "rejected by user"):
		return OutcomeRejected
	case t == "aborted" || strings.HasPrefix(t, "aborted by user"):
		return OutcomeInterrupted
	case code != nil && *code != 0:
		return OutcomeFailed
	case code != nil:
		return OutcomeOK
	}
	return OutcomeUnknown
}

// commandFromArgs extracts the shell command of a shell-like function call.
func commandFromArgs(tool, args string) string {
	if !isCodexShellTool(tool) {
		return ""
	}
	var a struct {
		Command json.RawMessage `json:"command"`
		Cmd     json.RawMessage `json:"cmd"`
	}
	if json.Unmarshal([]byte(args), &a) != nil {
		return ""
	}
	for _, raw := range []json.RawMessage{a.Command, a.Cmd} {
		if len(raw) == 0 {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return unwrapShell(s)
		}
		var argv []string
		if json.Unmarshal(raw, &argv) == nil {
			return shellJoin(argv)
		}
	}
	return ""
}
