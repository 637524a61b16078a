package jsonl

import (
	"encoding/json"
	"fmt"

	"github.com/memctl/memctl/internal/sessions/internal/transcript"
)

// jsonlInputItems renders memctl's own format the same way.
func InputItems(path string, probs func(transcript.Problem), fn func(*transcript.InputItem) error) error {
	return walkJSONL(path, probs, false, func(l *jsonlLine, line int) error {
		ev, ok := jsonlEvent(l, line)
		if !ok {
			return nil
		}
		var it *transcript.InputItem
		switch ev.Kind {
		case transcript.EventHuman:
			it = &transcript.InputItem{Type: "message", Tier: transcript.TierHuman, JSON: transcript.UserMessageJSON(nil, ev.Text)}
		case transcript.EventContext:
			it = &transcript.InputItem{Type: "message", Tier: transcript.TierContext, JSON: transcript.UserMessageJSON(nil, ev.Text)}
		case transcript.EventAssistant:
			phase, t := "commentary", transcript.TierCommentary
			if ev.Final {
				phase, t = "final_answer", transcript.TierFinal
			}
			it = &transcript.InputItem{Type: "message", Tier: t, JSON: transcript.AssistantMessageJSON(nil, ev.Text, phase)}
		case transcript.EventOtherAgent:
			b := append([]byte(`{"type":"agent_message","author":"agent","content":[{"type":"input_text","text":`), nil...)
			b = transcript.AppendJSONString(b, ev.Text)
			it = &transcript.InputItem{Type: "agent_message", Tier: transcript.TierOtherAgent, JSON: append(b, "}]}"...)}
		case transcript.EventToolCall:
			args := ev.Input
			if args == "" && ev.Command != "" {
				a, _ := json.Marshal(map[string]string{"command": ev.Command})
				args = string(a)
			}
			b := append([]byte(`{"type":"function_call","name":`), nil...)
			b = transcript.AppendJSONString(b, ev.Tool)
			b = append(b, `,"arguments":`...)
			b = transcript.AppendJSONString(b, args)
			b = append(b, `,"call_id":`...)
			b = transcript.AppendJSONString(b, ev.CallID)
			it = &transcript.InputItem{Type: "function_call", Tier: transcript.TierTool, JSON: append(b, '}'), CallID: ev.CallID, Name: ev.Tool}
		case transcript.EventToolResult:
			out := ev.Output
			if ev.ExitCode != nil {
				out = fmt.Sprintf("Process exited with code %d\n%s", *ev.ExitCode, out)
			}
			b := append([]byte(`{"type":"function_call_output","call_id":`), nil...)
			b = transcript.AppendJSONString(b, ev.CallID)
			b = append(b, `,"output":`...)
			b = transcript.AppendJSONString(b, out)
			it = &transcript.InputItem{Type: "function_call_output", Tier: transcript.TierTool, JSON: append(b, '}'), CallID: ev.CallID}
		case transcript.EventCompaction:
			it = &transcript.InputItem{Type: "message", Tier: transcript.TierFinal, JSON: transcript.AssistantMessageJSON(nil, ev.Text, "")}
		default:
			return nil
		}
		return fn(it)
	})
}
