package claude

import (
	"strings"

	"github.com/memctl/memctl/internal/sessions/internal/transcript"
	"github.com/memctl/memctl/internal/textcut"
)

// claudeToolResultMax bounds one Claude Code tool result in the Phase 1
// input; Codex's own tools already cap their outputs.
const claudeToolResultMax = 16 << 10

// claudeInputItems renders a Claude Code session as Codex-shaped items:
// messages, tool_use as function_call, tool_result as function_call_output,
// the compaction summary as an assistant message. Thinking blocks and
// <system-reminder> injections are left out.
func InputItems(path string, probs func(transcript.Problem), fn func(*transcript.InputItem) error) error {
	var pending *transcript.InputItem // assistant text, final unless a tool call follows
	flush := func(final bool) error {
		if pending == nil {
			return nil
		}
		p := pending
		pending = nil
		phase := "commentary"
		p.Tier = transcript.TierCommentary
		if final {
			phase, p.Tier = "final_answer", transcript.TierFinal
		}
		p.JSON = transcript.AssistantMessageJSON(nil, string(p.JSON), phase)
		return fn(p)
	}
	err := walkClaude(path, probs, false, func(cl *claudeLine, line int) error {
		for _, pc := range claudePieces(cl, line) {
			var it *transcript.InputItem
			switch pc.Kind {
			case transcript.EventHuman:
				if err := flush(true); err != nil {
					return err
				}
				it = &transcript.InputItem{Type: "message", Tier: transcript.TierHuman, JSON: transcript.UserMessageJSON(nil, pc.Text)}
			case transcript.EventContext:
				text := strings.TrimSpace(reminderRE().ReplaceAllString(pc.Text, ""))
				if text == "" {
					continue
				}
				it = &transcript.InputItem{Type: "message", Tier: transcript.TierContext, JSON: transcript.UserMessageJSON(nil, text)}
			case transcript.EventAssistant:
				if err := flush(false); err != nil {
					return err
				}
				pending = &transcript.InputItem{Type: "message", JSON: []byte(pc.Text)}
				continue
			case transcript.EventCompaction:
				if pc.Text == "" {
					continue
				}
				it = &transcript.InputItem{Type: "message", Tier: transcript.TierFinal, JSON: transcript.AssistantMessageJSON(nil, pc.Text, "")}
			case transcript.EventOtherAgent:
				var b []byte
				b = append(b, `{"type":"agent_message","author":"sub-agent","content":[{"type":"input_text","text":`...)
				b = transcript.AppendJSONString(b, pc.Text)
				it = &transcript.InputItem{Type: "agent_message", Tier: transcript.TierOtherAgent, JSON: append(b, "}]}"...)}
			case transcript.EventToolCall:
				args := pc.rawInput
				if len(args) == 0 {
					args = []byte("{}")
				}
				var b []byte
				b = append(b, `{"type":"function_call","name":`...)
				b = transcript.AppendJSONString(b, pc.Tool)
				b = append(b, `,"arguments":`...)
				b = transcript.AppendJSONString(b, transcript.CompactJSON(args))
				b = append(b, `,"call_id":`...)
				b = transcript.AppendJSONString(b, pc.CallID)
				it = &transcript.InputItem{Type: "function_call", Tier: transcript.TierTool, JSON: append(b, '}'), CallID: pc.CallID, Name: pc.Tool}
			case transcript.EventToolResult:
				var b []byte
				b = append(b, `{"type":"function_call_output","call_id":`...)
				b = transcript.AppendJSONString(b, pc.CallID)
				b = append(b, `,"output":`...)
				b = transcript.AppendJSONString(b, textcut.Middle(claudeFullResult(pc), claudeToolResultMax))
				it = &transcript.InputItem{Type: "function_call_output", Tier: transcript.TierTool, JSON: append(b, '}'), CallID: pc.CallID}
			default:
				continue
			}
			if it.Type != "message" || it.Tier != transcript.TierHuman {
				if err := flush(false); err != nil {
					return err
				}
			}
			if err := fn(it); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return flush(true)
}

func claudeFullResult(pc claudePiece) string {
	if pc.IsError {
		return "[error] " + pc.Output
	}
	return pc.Output
}
