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

// codexEvents streams the normalised conversation of a Codex rollout.
// The human's words come from user_message events when the file has them
// (envelope format); legacy files only have the response items.
func codexEvents(f File, probs func(Problem), fn func(Event) error) error {
	em := &emitter{fn: fn}
	envelope := false
	results := map[string]bool{}     // call ids whose result was emitted
	fileChanges := map[string]bool{} // call ids whose file changes were emitted
	err := walkCodex(f.Path, probs, false, func(l codexLine) error {
		envelope = envelope || !l.bare
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
			envelope = true
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
				if results[id] {
					return nil
				}
				results[id] = true
				ev := base
				ev.Kind = EventToolResult
				ev.CallID = id
				ev.Tool = "exec_command"
				out := fieldString(p, "aggregated_output")
				if out == "" {
					out = fieldString(p, "stdout") + fieldString(p, "stderr")
				}
				ev.Output = shorten(out, eventTextMax)
				if n, ok := rawInt(field(p, "exit_code")); ok {
					ev.ExitCode = &n
					ev.IsError = n != 0
				}
				if fieldString(p, "status") == "failed" || fieldString(p, "status") == "declined" {
					ev.IsError = true
				}
				return em.emit(ev)
			case "patch_apply_end":
				id := fieldString(p, "call_id")
				if fileChanges[id] {
					return nil
				}
				fileChanges[id] = true
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
		case "response_item":
			return codexResponseEvent(em, base, p, envelope, results, fileChanges)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return em.endTurn(false)
}

func codexResponseEvent(em *emitter, base Event, p []byte, envelope bool, results, fileChanges map[string]bool) error {
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
				if role == "user" && !isInjectedContext(part) {
					if envelope {
						continue // the user_message event carries these words
					}
					ev.Kind = EventHuman
					ev.Text = cleanPreview(part)
					if err := em.endTurn(false); err != nil {
						return err
					}
				} else {
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
		ev := base
		ev.Kind = EventToolCall
		ev.CallID = fieldString(p, "call_id")
		ev.Tool = fieldString(p, "name")
		if typ == "local_shell_call" {
			ev.Tool = "local_shell_call"
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
		ev.Input = shorten(input, eventTextMax)
		if err := em.emit(ev); err != nil {
			return err
		}
		if ev.Tool == "apply_patch" && !fileChanges[ev.CallID] {
			paths, ops := patchChanges(input)
			if len(paths) > 0 {
				fileChanges[ev.CallID] = true
			}
			for i := range paths {
				fc := base
				fc.Kind = EventFileChange
				fc.CallID = ev.CallID
				fc.Tool = "apply_patch"
				fc.FilePath = paths[i]
				fc.FileOp = ops[i]
				if err := em.emit(fc); err != nil {
					return err
				}
			}
		}
	case "function_call_output", "custom_tool_call_output":
		id := fieldString(p, "call_id")
		if results[id] && id != "" {
			return nil
		}
		results[id] = true
		ev := base
		ev.Kind = EventToolResult
		ev.CallID = id
		out, code := parseToolOutput(toolOutputText(field(p, "output")))
		ev.Output = shorten(out, eventTextMax)
		ev.ExitCode = code
		ev.IsError = code != nil && *code != 0
		return em.emit(ev)
	case "web_search_call":
		ev := base
		ev.Kind = EventToolCall
		ev.Tool = "web_search"
		ev.Input = compactJSON(field(p, "action"))
		return em.emit(ev)
	case "tool_search_call":
		ev := base
		ev.Kind = EventToolCall
		ev.Tool = "tool_search"
		ev.CallID = fieldString(p, "call_id")
		ev.Input = shorten(compactJSON(field(p, "arguments")), eventTextMax)
		return em.emit(ev)
	}
	return nil
}

// commandFromArgs extracts the shell command of a shell-like function call.
func commandFromArgs(tool, args string) string {
	switch tool {
	case "shell", "container.exec", "shell_command", "exec_command", "local_shell":
	default:
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
			return s
		}
		var argv []string
		if json.Unmarshal(raw, &argv) == nil {
			return shellJoin(argv)
		}
	}
	return ""
}
