package codex

import (
	"cmp"
	"encoding/json"
	"strings"

	"github.com/memctl/memctl/internal/sessions/internal/transcript"
	"github.com/memctl/memctl/internal/textcut"
)

// codexState is what the Codex reader remembers across lines to turn the
// rollout's items into one result per call and file changes that only
// count once they applied.
type codexState struct {
	em          *transcript.Emitter
	envelope    bool
	results     map[string]bool               // call ids whose result was emitted
	fileChanges map[string]bool               // call ids whose file changes were emitted
	pending     map[string][]transcript.Event // apply_patch call id → changes awaiting the result
	sessions    map[string]string             // unified-exec session id → the call that opened it
	polls       map[string]string             // write_stdin call id → session id it polls
	mcp         map[string]bool               // call ids of MCP tool calls
	// marksTurns is set once the rollout marked the end of a turn
	// (task_complete) or its final answer (phase). Older rollouts mark
	// neither: there a turn ends when the model answers without calling a
	// tool, so the answer still held back when the user speaks again, or
	// when the file ends, is that turn's final one.
	marksTurns bool
}

// endTurn ends the turn on the user's next words or the end of the file.
func (st *codexState) endTurn() error { return st.em.EndTurn(!st.marksTurns) }

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
	if len(st.mcp) > 1024 {
		clear(st.mcp)
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
func Events(f transcript.File, probs func(transcript.Problem), fn func(transcript.Event) error) error {
	st := &codexState{em: transcript.NewEmitter(fn), results: map[string]bool{}, fileChanges: map[string]bool{},
		pending: map[string][]transcript.Event{}, sessions: map[string]string{}, polls: map[string]string{}, mcp: map[string]bool{}}
	em := st.em
	err := walkCodex(f.Path, probs, false, func(l codexLine) error {
		st.envelope = st.envelope || !l.bare
		st.bound()
		t := transcript.ParseTime(l.ts)
		base := transcript.Event{Time: t, Line: l.line}
		p := l.payload
		switch l.typ {
		case "compacted":
			ev := base
			ev.Kind = transcript.EventCompaction
			ev.Text = transcript.FieldString(p, "message")
			return em.Emit(ev)
		case "inter_agent_communication":
			ev := base
			ev.Kind = transcript.EventOtherAgent
			ev.Text = strings.Join(messageParts(p), "\n")
			if ev.Text == "" {
				ev.Text = transcript.FieldString(p, "content")
			}
			return em.Emit(ev)
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
	return st.endTurn()
}

func (st *codexState) eventMsg(base transcript.Event, p []byte) error {
	em := st.em
	switch transcript.FieldString(p, "type") {
	case "user_message":
		ev := base
		ev.Kind = transcript.EventHuman
		ev.Text = transcript.CleanPreview(transcript.FieldString(p, "message"))
		if err := st.endTurn(); err != nil {
			return err
		}
		return em.Emit(ev)
	case "item_completed":
		if text, ok := userMessageItem(transcript.Field(p, "item")); ok {
			ev := base
			ev.Kind = transcript.EventHuman
			ev.Text = transcript.CleanPreview(text)
			return em.Emit(ev)
		}
	case "turn_aborted":
		if r := transcript.FieldString(p, "reason"); r == "interrupted" || r == "" {
			ev := base
			ev.Kind = transcript.EventInterrupt
			ev.Text = "turn aborted: interrupted"
			if err := em.EndTurn(false); err != nil {
				return err
			}
			return em.Emit(ev)
		}
	case "task_complete":
		st.marksTurns = true
		if em.Pending() {
			return em.EndTurn(true)
		}
		if last := transcript.FieldString(p, "last_agent_message"); last != "" {
			ev := base
			ev.Kind = transcript.EventAssistant
			ev.Text = last
			ev.Final = true
			return em.Emit(ev)
		}
	case "exec_command_end":
		ev, first := st.firstResult(base, p)
		if !first {
			return nil
		}
		ev.Tool = "exec_command"
		out := transcript.FieldString(p, "aggregated_output")
		if out == "" {
			out = transcript.FieldString(p, "stdout") + transcript.FieldString(p, "stderr")
		}
		body, deniedCode, denied := codexSandboxDenial(out)
		ev.Output = textcut.Middle(body, transcript.EventTextMax) // the command's words, not the harness's report around them
		ev.Outcome = transcript.OutcomeUnknown
		if n, ok := transcript.RawInt(transcript.Field(p, "exit_code")); ok {
			ev.ExitCode = &n
			ev.Outcome = transcript.OutcomeOK
			if n != 0 {
				ev.Outcome = transcript.OutcomeFailed
			}
		}
		if denied {
			ev.ExitCode, ev.Outcome = cmp.Or(deniedCode, ev.ExitCode), transcript.OutcomeFailed
		}
		switch transcript.FieldString(p, "status") {
		case "failed":
			ev.Outcome = transcript.OutcomeFailed
		case "declined":
			ev.Outcome = transcript.OutcomeRejected
			if codexHarnessDenied(strings.TrimSpace(out)) {
				ev.Outcome = transcript.OutcomeFailed // no person declined it: a policy did
			}
		}
		ev.IsError = ev.Outcome == transcript.OutcomeFailed
		return em.Emit(ev)
	case "mcp_tool_call_end":
		ev, first := st.firstResult(base, p)
		if !first {
			return nil
		}
		ev.Tool = transcript.FieldString(transcript.Field(p, "invocation"), "tool")
		ev.Output, ev.Outcome = mcpResult(transcript.Field(p, "result"))
		ev.Output = textcut.Middle(ev.Output, transcript.EventTextMax)
		ev.IsError = ev.Outcome == transcript.OutcomeFailed
		return em.Emit(ev)
	case "patch_apply_end":
		id := transcript.FieldString(p, "call_id")
		if st.fileChanges[id] {
			return nil
		}
		st.fileChanges[id] = true
		pending := st.pending[id]
		delete(st.pending, id)
		if string(transcript.Field(p, "success")) == "false" {
			return nil
		}
		var ferr error
		_ = transcript.EachField(transcript.Field(p, "changes"), func(path string, ch []byte) bool {
			ev := base
			ev.Kind = transcript.EventFileChange
			ev.CallID = id
			ev.Tool = "apply_patch"
			ev.FilePath = path
			ev.FileOp = transcript.FieldString(ch, "type")
			if mv := transcript.FieldString(ch, "move_path"); mv != "" {
				gone := ev // the file left its old name
				gone.FileOp = "delete"
				if ferr = em.Emit(gone); ferr != nil {
					return false
				}
				ev.FilePath = mv
			}
			for _, pc := range pending {
				if pc.FileOp == "update" && ev.FileOp != "update" && samePatchPath(ev.FilePath, pc.FilePath) {
					// The patch deleted the file and added it again: the
					// event keeps one of the two; it was rewritten.
					ev.FileOp = "update"
				}
			}
			if ev.FileOp == "update" {
				ev.Old, ev.New = transcript.DiffOldNew(transcript.FieldString(ch, "unified_diff"))
				for _, pc := range pending { // no diff recorded: the patch's own hunk
					if ev.Old+ev.New == "" && samePatchPath(ev.FilePath, pc.FilePath) {
						ev.Old, ev.New = pc.Old, pc.New
					}
				}
			}
			ferr = em.Emit(ev)
			return ferr == nil
		})
		return ferr
	}
	return nil
}

// firstResult starts the result of the call an end event names; first
// is false when that call's result was already read.
func (st *codexState) firstResult(base transcript.Event, p []byte) (ev transcript.Event, first bool) {
	id := transcript.FieldString(p, "call_id")
	if st.results[id] {
		return base, false
	}
	st.results[id] = true
	ev = base
	ev.Kind = transcript.EventToolResult
	ev.CallID = id
	return ev, true
}

func (st *codexState) responseItem(base transcript.Event, p []byte) error {
	em := st.em
	switch typ := transcript.FieldString(p, "type"); typ {
	case "message":
		role := transcript.FieldString(p, "role")
		parts := messageParts(p)
		switch role {
		case "assistant":
			ev := base
			ev.Kind = transcript.EventAssistant
			ev.Text = strings.Join(parts, "\n")
			phase := transcript.FieldString(p, "phase")
			st.marksTurns = st.marksTurns || phase != ""
			ev.Final = phase == "final_answer"
			if strings.TrimSpace(ev.Text) == "" {
				return nil
			}
			return em.Emit(ev)
		case "user", "developer", "system":
			for _, part := range parts {
				ev := base
				switch {
				case role == "user" && strings.HasPrefix(strings.TrimSpace(part), "<turn_aborted>"):
					if st.envelope {
						continue // the turn_aborted event carries it
					}
					ev.Kind = transcript.EventInterrupt
					ev.Text = part
				case role == "user" && !transcript.IsInjectedContext(part):
					if st.envelope {
						continue // the user_message event carries these words
					}
					ev.Kind = transcript.EventHuman
					ev.Text = transcript.CleanPreview(part)
					if err := st.endTurn(); err != nil {
						return err
					}
				default:
					ev.Kind = transcript.EventContext
					ev.Text = part
				}
				if err := em.Emit(ev); err != nil {
					return err
				}
			}
		}
	case "reasoning":
		// The summary Codex keeps of the model's reasoning (its content is
		// usually encrypted); "**Heading**" lines are the summary's titles.
		var parts []string
		_ = transcript.EachElem(transcript.Field(p, "summary"), func(v []byte) bool {
			if t := strings.TrimSpace(transcript.FieldString(v, "text")); t != "" {
				parts = append(parts, t)
			}
			return true
		})
		if len(parts) == 0 {
			return nil
		}
		ev := base
		ev.Kind = transcript.EventReasoning
		ev.Text = strings.Join(parts, "\n\n")
		return em.Emit(ev)
	case "agent_message":
		ev := base
		ev.Kind = transcript.EventOtherAgent
		ev.Text = strings.Join(messageParts(p), "\n")
		return em.Emit(ev)
	case "function_call", "custom_tool_call", "local_shell_call":
		return st.toolCall(base, p, typ)
	case "function_call_output", "custom_tool_call_output":
		return st.toolOutput(base, p)
	case "web_search_call":
		ev := base
		ev.Kind = transcript.EventToolCall
		ev.Tool = "web_search"
		ev.Action = transcript.ActionWeb
		ev.Input = transcript.CompactJSON(transcript.Field(p, "action"))
		return em.Emit(ev)
	case "tool_search_call":
		ev := base
		ev.Kind = transcript.EventToolCall
		ev.Tool = "tool_search"
		ev.Action = transcript.ActionSearch
		ev.CallID = transcript.FieldString(p, "call_id")
		ev.Input = textcut.Middle(transcript.CompactJSON(transcript.Field(p, "arguments")), transcript.EventTextMax)
		return em.Emit(ev)
	}
	return nil
}

func (st *codexState) toolCall(base transcript.Event, p []byte, typ string) error {
	em := st.em
	ev := base
	ev.Kind = transcript.EventToolCall
	ev.CallID = transcript.FieldString(p, "call_id")
	ev.Tool = transcript.FieldString(p, "name")
	if typ == "local_shell_call" {
		ev.Tool = "local_shell_call"
		ev.Action = transcript.ActionShell
		var argv []string
		_ = json.Unmarshal(transcript.Field(transcript.Field(p, "action"), "command"), &argv)
		ev.Command = transcript.ShellJoin(argv)
		ev.Input = textcut.Middle(transcript.CompactJSON(transcript.Field(p, "action")), transcript.EventTextMax)
		return em.Emit(ev)
	}
	var input string
	if typ == "function_call" {
		input = transcript.FieldString(p, "arguments")
		ev.Command = commandFromArgs(ev.Tool, input)
	} else {
		input = transcript.FieldString(p, "input")
	}
	if sid := codexPollSession(ev.Tool, input); sid != "" {
		// A poll of a running command: not a call of its own.
		st.polls[ev.CallID] = sid
		return nil
	}
	ev.Action = ActionOf(ev.Tool, transcript.FieldString(p, "namespace"))
	if isMCPTool(ev.Tool, transcript.FieldString(p, "namespace")) && ev.CallID != "" {
		st.mcp[ev.CallID] = true
	}
	if ev.Action == transcript.ActionShell {
		ev.Escalated = codexEscalated(input)
		if patch := shellPatch(ev.Command); patch != "" {
			// apply_patch reached through the shell edits files as
			// the tool does: it is an edit, not a command that ran.
			ev.Action, ev.Tool, ev.Command, input = transcript.ActionEdit, "apply_patch", "", patch
		}
	}
	ev.Input = textcut.Middle(input, transcript.EventTextMax)
	if ev.Action == transcript.ActionEdit && !st.fileChanges[ev.CallID] {
		changes := transcript.EditChanges(ev.Tool, input)
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
	return em.Emit(ev)
}

func (st *codexState) toolOutput(base transcript.Event, p []byte) error {
	em := st.em
	id := transcript.FieldString(p, "call_id")
	output := transcript.Field(p, "output")
	raw := transcript.ToolOutputText(output)
	out, code := transcript.ParseToolOutput(raw)
	denied := false
	if code == nil {
		out, code = codexSandboxFailure(out)
	}
	if code == nil {
		out, code, denied = codexSandboxDenial(out)
	}
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
	} else if sid := cmp.Or(codexRunningSession(out), codexJSONSession(raw)); sid != "" && code == nil {
		st.sessions[sid] = id
		return nil // still running: a poll or exec_command_end carries the result
	}
	if st.results[id] && id != "" {
		return nil
	}
	st.results[id] = true
	ev := base
	ev.Kind = transcript.EventToolResult
	ev.CallID = id
	body := codexExecBody(out)
	ev.Output = textcut.Middle(body, transcript.EventTextMax)
	ev.ExitCode = code
	ev.Outcome = codexOutcome(body, code)
	switch {
	case denied:
		ev.Outcome = transcript.OutcomeFailed // the sandbox stopped it: it did not do its work
	case ev.Outcome != transcript.OutcomeUnknown:
	case string(transcript.Field(output, "success")) == "false":
		ev.Outcome = transcript.OutcomeFailed // {"content":…,"success":false}
	case st.mcp[id]:
		ev.Output, ev.Outcome = mcpOutput(raw)
		ev.Output = textcut.Middle(ev.Output, transcript.EventTextMax)
	}
	delete(st.mcp, id)
	changes, hasPending := st.pending[id]
	delete(st.pending, id)
	if hasPending && ev.Outcome == transcript.OutcomeUnknown {
		// apply_patch answers in words when it has no exit status.
		ev.Outcome = transcript.OutcomeOK
		if codexPatchFailed(body) {
			ev.Outcome = transcript.OutcomeFailed
		}
	}
	ev.IsError = ev.Outcome == transcript.OutcomeFailed
	if err := em.Emit(ev); err != nil {
		return err
	}
	if !hasPending || st.fileChanges[id] {
		return nil
	}
	if ev.Outcome == transcript.OutcomeFailed || ev.Outcome == transcript.OutcomeRejected || ev.Outcome == transcript.OutcomeInterrupted ||
		ev.Outcome == transcript.OutcomeDenied || codexPatchFailed(body) {
		return nil
	}
	st.fileChanges[id] = true
	for _, fc := range changes {
		fc.Time, fc.Line = base.Time, base.Line
		if err := em.Emit(fc); err != nil {
			return err
		}
	}
	return nil
}

// codexOutcome reads the outcome of a tool output: its exit status when it
// has one, else the harness's own words for a refused, aborted or failed
// call ("failed in sandbox: …"). A call a policy refused did not run and
// did not do its work: a failure, its error the policy's words. An
// "execution error" (it could not start the command, in a folder that is
// not there) says nothing of the command.
func codexOutcome(body string, code *int) transcript.Outcome {
	t := strings.TrimSpace(body)
	switch {
	case strings.HasPrefix(t, "exec command rejected by user"), strings.HasPrefix(t, "patch rejected by user"),
		strings.HasPrefix(t, "rejected by user"):
		return transcript.OutcomeRejected
	case code == nil && codexHarnessDenied(t): // the words are the harness's only when no command ran
		return transcript.OutcomeFailed
	case t == "aborted" || strings.HasPrefix(t, "aborted by user"):
		return transcript.OutcomeInterrupted
	case code != nil && *code != 0, strings.HasPrefix(t, "failed in sandbox"):
		return transcript.OutcomeFailed // the sandbox's failure has no exit status
	case code != nil:
		return transcript.OutcomeOK
	}
	return transcript.OutcomeUnknown
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
			return transcript.UnwrapShell(s)
		}
		var argv []string
		if json.Unmarshal(raw, &argv) == nil {
			return transcript.ShellJoin(argv)
		}
	}
	return ""
}

// samePatchPath reports whether a path of patch_apply_end (absolute) is
// the path the patch names (often relative to the working folder).
func samePatchPath(path, inPatch string) bool {
	return path == inPatch || strings.HasSuffix(path, "/"+inPatch)
}
