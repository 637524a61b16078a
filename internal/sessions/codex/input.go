package codex

import (
	"strings"

	"github.com/memctl/memctl/internal/sessions/internal/transcript"
)

// memoryItemTypes are the ResponseItem types Phase 1 keeps.
var memoryItemTypes = map[string]bool{
	"message": true, "local_shell_call": true, "function_call": true, "function_call_output": true,
	"custom_tool_call": true, "custom_tool_call_output": true, "tool_search_call": true,
	"tool_search_output": true, "web_search_call": true, "agent_message": true,
}

func InputItems(path string, probs func(transcript.Problem), fn func(*transcript.InputItem) error) error {
	var it transcript.InputItem
	var buf []byte
	return walkCodex(path, probs, false, func(l codexLine) error {
		switch l.typ {
		case "compacted":
			// Codex feeds a local compaction to the extractor as an
			// assistant message with the summary.
			msg := transcript.FieldString(l.payload, "message")
			if strings.TrimSpace(msg) == "" {
				return nil
			}
			it = transcript.InputItem{Type: "message", Tier: transcript.TierFinal}
			it.JSON = transcript.AssistantMessageJSON(buf[:0], msg, "")
			buf = it.JSON
			return fn(&it)
		case "response_item":
		default:
			return nil
		}
		p := l.payload
		typ := transcript.FieldString(p, "type")
		if !memoryItemTypes[typ] {
			return nil
		}
		it = transcript.InputItem{Type: typ}
		var role, phase string
		if typ == "message" {
			role = transcript.FieldString(p, "role")
			if role == "developer" {
				return nil
			}
			phase = transcript.FieldString(p, "phase")
		}
		if typ == "function_call" || typ == "function_call_output" {
			it.CallID = transcript.FieldString(p, "call_id")
			it.Name = transcript.FieldString(p, "name")
			it.NS = transcript.FieldString(p, "namespace")
		}
		out, keep, err := transcript.SanitizeItem(buf[:0], p, typ, role)
		if err != nil {
			probs(transcript.Problem{Path: path, Line: l.line, Err: "response item: " + err.Error()})
			return nil
		}
		if !keep {
			return nil
		}
		buf = out
		it.JSON = out
		it.Tier = codexTier(typ, role, phase, p)
		return fn(&it)
	})
}

// codexTier classifies an item for v2 (Codex's provenance rules).
func codexTier(typ, role, phase string, p []byte) transcript.Tier {
	switch typ {
	case "agent_message":
		return transcript.TierOtherAgent
	case "message":
	default:
		return transcript.TierTool
	}
	parts := messageParts(p)
	for _, t := range parts {
		lt := strings.TrimLeft(t, " \t\r\n")
		if strings.HasPrefix(lt, "<subagent_notification>") || isInterAgentEnvelope(lt) {
			return transcript.TierOtherAgent
		}
	}
	if role == "user" {
		for _, t := range parts {
			if transcript.IsInjectedContext(t) {
				return transcript.TierContext
			}
		}
		return transcript.TierHuman
	}
	if phase == "commentary" {
		return transcript.TierCommentary
	}
	return transcript.TierFinal
}

// isInterAgentEnvelope recognises the four-line header multi-agent
// messages carry.
func isInterAgentEnvelope(t string) bool {
	lines := strings.SplitN(t, "\n", 5)
	if len(lines) < 4 {
		return false
	}
	return strings.HasPrefix(lines[0], "Message Type:") && strings.HasPrefix(lines[1], "Task name:") &&
		strings.HasPrefix(lines[2], "Sender:") && strings.HasPrefix(strings.TrimSpace(lines[3]), "Payload:")
}
