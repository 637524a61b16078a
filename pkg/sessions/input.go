package sessions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// InputOptions controls Phase 1 input preparation.
type InputOptions struct {
	Version    string              // "v1" or "v2"
	TokenLimit int                 // token budget; 0 means 150000
	Redact     func(string) string // secret redaction (v1: per serialised item, v2: per row); nil = identity
}

// DefaultInputTokenLimit is the budget Codex uses when the model's context
// window is unknown.
const DefaultInputTokenLimit = 150_000

// PrepareInput returns the "rollout contents" Phase 1 puts into its prompt.
//
// v1: the kept, sanitised response items serialised as one JSON array,
// redacted, and cut in the middle to TokenLimit tokens (head and tail halves
// of TokenLimit*4 bytes around "…N tokens truncated…"). The array is
// streamed into a head buffer and a tail ring, so memory is bounded by the
// budget and the longest line, not by the file. Redact runs on each
// serialised item rather than on the whole array; none of the redaction
// patterns can match across the quotes that separate items, so the result
// is the same.
//
// v2: the tiered newest-first selection (human words, final answers, other
// agents, commentary, harness context, tools), rendered in source order
// with "[... response items omitted ...]" lines. The file is read twice:
// the first pass measures rows, the second renders the chosen ones.
func PrepareInput(f File, opts InputOptions) (string, error) {
	limit := opts.TokenLimit
	if limit <= 0 {
		limit = DefaultInputTokenLimit
	}
	redact := opts.Redact
	if redact == nil {
		redact = func(s string) string { return s }
	}
	switch opts.Version {
	case "", "v1":
		return prepareV1(f, limit, redact)
	case "v2":
		return prepareV2(f, limit, redact)
	default:
		return "", fmt.Errorf("unknown memory version %q", opts.Version)
	}
}

// tier orders v2 rows by how much they say about the user.
type tier uint8

const (
	tierHuman tier = iota
	tierFinal
	tierOtherAgent
	tierCommentary
	tierContext
	tierTool
	numTiers
)

var tierLabels = [numTiers]string{"human user", "assistant final", "other agent", "assistant commentary", "harness context", "tool"}

// inputItem is one kept conversation item in Codex's ResponseItem JSON.
type inputItem struct {
	json   []byte
	typ    string
	tier   tier
	callID string
	name   string
	ns     string
}

// walkInputItems streams the kept, sanitised items of a transcript.
func walkInputItems(f File, fn func(*inputItem) error) error {
	probs := func(Problem) {}
	fn = memoryFilter(fn)
	switch f.Kind {
	case KindCodex:
		return codexInputItems(f.Path, probs, fn)
	case KindClaudeCode:
		return claudeInputItems(f.Path, probs, fn)
	case KindJSONL:
		return jsonlInputItems(f.Path, probs, fn)
	}
	return fmt.Errorf("unknown transcript kind %q", f.Kind)
}

// memoryItemTypes are the ResponseItem types Phase 1 keeps.
var memoryItemTypes = map[string]bool{
	"message": true, "local_shell_call": true, "function_call": true, "function_call_output": true,
	"custom_tool_call": true, "custom_tool_call_output": true, "tool_search_call": true,
	"tool_search_output": true, "web_search_call": true, "agent_message": true,
}

func codexInputItems(path string, probs func(Problem), fn func(*inputItem) error) error {
	var it inputItem
	var buf []byte
	return walkCodex(path, probs, false, func(l codexLine) error {
		switch l.typ {
		case "compacted":
			// Codex feeds a local compaction to the extractor as an
			// assistant message with the summary.
			msg := fieldString(l.payload, "message")
			if strings.TrimSpace(msg) == "" {
				return nil
			}
			it = inputItem{typ: "message", tier: tierFinal}
			it.json = assistantMessageJSON(buf[:0], msg, "")
			buf = it.json
			return fn(&it)
		case "response_item":
		default:
			return nil
		}
		p := l.payload
		typ := fieldString(p, "type")
		if !memoryItemTypes[typ] {
			return nil
		}
		it = inputItem{typ: typ}
		var role, phase string
		if typ == "message" {
			role = fieldString(p, "role")
			if role == "developer" {
				return nil
			}
			phase = fieldString(p, "phase")
		}
		if typ == "function_call" || typ == "function_call_output" {
			it.callID = fieldString(p, "call_id")
			it.name = fieldString(p, "name")
			it.ns = fieldString(p, "namespace")
		}
		out, keep, err := sanitizeItem(buf[:0], p, typ, role)
		if err != nil {
			probs(Problem{Path: path, Line: l.line, Err: "response item: " + err.Error()})
			return nil
		}
		if !keep {
			return nil
		}
		buf = out
		it.json = out
		it.tier = codexTier(typ, role, phase, p)
		return fn(&it)
	})
}

// codexTier classifies an item for v2 (Codex's provenance rules).
func codexTier(typ, role, phase string, p []byte) tier {
	switch typ {
	case "agent_message":
		return tierOtherAgent
	case "message":
	default:
		return tierTool
	}
	parts := messageParts(p)
	for _, t := range parts {
		lt := strings.TrimLeft(t, " \t\r\n")
		if strings.HasPrefix(lt, "<subagent_notification>") || isInterAgentEnvelope(lt) {
			return tierOtherAgent
		}
	}
	if role == "user" {
		for _, t := range parts {
			if isInjectedContext(t) {
				return tierContext
			}
		}
		return tierHuman
	}
	if phase == "commentary" {
		return tierCommentary
	}
	return tierFinal
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

// sanitizeItem appends the item as Phase 1 sees it: encrypted content and
// image payloads removed, AGENTS.md and skill fragments dropped from user
// messages (keep=false when nothing remains). Items that need no change
// are copied compactly.
func sanitizeItem(dst, p []byte, typ, role string) ([]byte, bool, error) {
	needs := role == "user" || bytes.Contains(p, []byte(`"encrypted_content"`)) ||
		bytes.Contains(p, []byte(`"input_image"`)) || bytes.Contains(p, []byte(`"input_audio"`))
	if !needs {
		start := len(dst)
		out, ok := fastCompact(dst, p)
		if !ok {
			return dst[:start], false, errBadJSON
		}
		return out, true, nil
	}
	if !json.Valid(p) {
		return dst, false, errBadJSON
	}
	dst = append(dst, '{')
	first := true
	kept := true
	err := eachField(p, func(k string, v []byte) bool {
		switch {
		case k == "encrypted_content":
			return true
		case k == "status" && role == "user":
			return true
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = strconv.AppendQuote(dst, k)
		dst = append(dst, ':')
		switch {
		case k == "content" && typ == "message" && len(v) > 0 && v[0] == '[':
			var n int
			dst, n = appendContent(dst, v, role == "user")
			if n == 0 && role == "user" {
				kept = false
			}
		case k == "output" && len(v) > 0 && v[0] == '[':
			dst, _ = appendContent(dst, v, false)
		default:
			dst = appendCompact(dst, v)
		}
		return true
	})
	if err != nil {
		return dst, false, err
	}
	dst = append(dst, '}')
	return dst, kept, nil
}

// appendContent copies a content-part array, replacing images and audio
// by text placeholders and, for user messages, dropping AGENTS.md and
// skill fragments. It returns the number of parts kept.
func appendContent(dst, arr []byte, user bool) ([]byte, int) {
	dst = append(dst, '[')
	n := 0
	_ = eachElem(arr, func(v []byte) bool {
		part := v
		switch fieldString(v, "type") {
		case "input_image", "image":
			part = []byte(`{"type":"input_text","text":"[image omitted]"}`)
		case "input_audio":
			part = []byte(`{"type":"input_text","text":"[audio omitted]"}`)
		case "input_text":
			if user && isDroppedFragment(fieldString(v, "text")) {
				return true
			}
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = appendCompact(dst, part)
		return true
	})
	return append(dst, ']'), n
}

// isDroppedFragment matches the user-message parts Phase 1 strips: AGENTS.md
// instructions and skill bodies.
func isDroppedFragment(text string) bool {
	l := strings.TrimLeft(text, " \t\r\n")
	r := strings.TrimRight(text, " \t\r\n")
	if hasPrefixFold(l, "# AGENTS.md instructions") && hasSuffixFold(r, "</INSTRUCTIONS>") {
		return true
	}
	return strings.HasPrefix(l, "<skill>") && strings.HasSuffix(r, "</skill>")
}

// fastCompact appends p without the whitespace between JSON tokens. It is
// the hot path of preparing a large transcript, where encoding/json's
// general-purpose state machine was a quarter of the time; it checks only
// what the copy needs (strings terminated, brackets balanced) and reports
// false otherwise, so a broken item is dropped as before.
func fastCompact(dst, p []byte) ([]byte, bool) {
	depth := 0
	inString, escaped := false, false
	start := 0
	flush := func(i int) { dst = append(dst, p[start:i]...) }
	for i := 0; i < len(p); i++ {
		c := p[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			case c < 0x20:
				return dst, false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth < 0 {
				return dst, false
			}
		case ' ', '\t', '\n', '\r':
			flush(i)
			start = i + 1
		}
	}
	if inString || depth != 0 {
		return dst, false
	}
	flush(len(p))
	return dst, true
}

func appendCompact(dst, v []byte) []byte {
	b := bytes.NewBuffer(dst)
	if err := json.Compact(b, v); err != nil {
		return append(dst, "null"...)
	}
	return b.Bytes()
}

func appendJSONString(dst []byte, s string) []byte {
	b, _ := json.Marshal(s)
	return append(dst, b...)
}

func assistantMessageJSON(dst []byte, text, phase string) []byte {
	dst = append(dst, `{"type":"message","role":"assistant","content":[{"type":"output_text","text":`...)
	dst = appendJSONString(dst, text)
	dst = append(dst, "}]"...)
	if phase != "" {
		dst = append(dst, `,"phase":`...)
		dst = appendJSONString(dst, phase)
	}
	return append(dst, '}')
}

func userMessageJSON(dst []byte, text string) []byte {
	dst = append(dst, `{"type":"message","role":"user","content":[{"type":"input_text","text":`...)
	dst = appendJSONString(dst, text)
	return append(dst, "}]}"...)
}

// claudeToolResultMax bounds one Claude Code tool result in the Phase 1
// input; Codex's own tools already cap their outputs.
const claudeToolResultMax = 16 << 10

// claudeInputItems renders a Claude Code session as Codex-shaped items:
// messages, tool_use as function_call, tool_result as function_call_output,
// the compaction summary as an assistant message. Thinking blocks and
// <system-reminder> injections are left out.
func claudeInputItems(path string, probs func(Problem), fn func(*inputItem) error) error {
	var pending *inputItem // assistant text, final unless a tool call follows
	flush := func(final bool) error {
		if pending == nil {
			return nil
		}
		p := pending
		pending = nil
		phase := "commentary"
		p.tier = tierCommentary
		if final {
			phase, p.tier = "final_answer", tierFinal
		}
		p.json = assistantMessageJSON(nil, string(p.json), phase)
		return fn(p)
	}
	err := walkClaude(path, probs, false, func(cl *claudeLine, line int) error {
		for _, pc := range claudePieces(cl, line) {
			var it *inputItem
			switch pc.Kind {
			case EventHuman:
				if err := flush(true); err != nil {
					return err
				}
				it = &inputItem{typ: "message", tier: tierHuman, json: userMessageJSON(nil, pc.Text)}
			case EventContext:
				text := strings.TrimSpace(reminderRE().ReplaceAllString(pc.Text, ""))
				if text == "" {
					continue
				}
				it = &inputItem{typ: "message", tier: tierContext, json: userMessageJSON(nil, text)}
			case EventAssistant:
				if err := flush(false); err != nil {
					return err
				}
				pending = &inputItem{typ: "message", json: []byte(pc.Text)}
				continue
			case EventCompaction:
				if pc.Text == "" {
					continue
				}
				it = &inputItem{typ: "message", tier: tierFinal, json: assistantMessageJSON(nil, pc.Text, "")}
			case EventOtherAgent:
				var b []byte
				b = append(b, `{"type":"agent_message","author":"sub-agent","content":[{"type":"input_text","text":`...)
				b = appendJSONString(b, pc.Text)
				it = &inputItem{typ: "agent_message", tier: tierOtherAgent, json: append(b, "}]}"...)}
			case EventToolCall:
				args := pc.rawInput
				if len(args) == 0 {
					args = []byte("{}")
				}
				var b []byte
				b = append(b, `{"type":"function_call","name":`...)
				b = appendJSONString(b, pc.Tool)
				b = append(b, `,"arguments":`...)
				b = appendJSONString(b, compactJSON(args))
				b = append(b, `,"call_id":`...)
				b = appendJSONString(b, pc.CallID)
				it = &inputItem{typ: "function_call", tier: tierTool, json: append(b, '}'), callID: pc.CallID, name: pc.Tool}
			case EventToolResult:
				var b []byte
				b = append(b, `{"type":"function_call_output","call_id":`...)
				b = appendJSONString(b, pc.CallID)
				b = append(b, `,"output":`...)
				b = appendJSONString(b, shorten(claudeFullResult(pc), claudeToolResultMax))
				it = &inputItem{typ: "function_call_output", tier: tierTool, json: append(b, '}'), callID: pc.CallID}
			default:
				continue
			}
			if it.typ != "message" || it.tier != tierHuman {
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

// jsonlInputItems renders memctl's own format the same way.
func jsonlInputItems(path string, probs func(Problem), fn func(*inputItem) error) error {
	return walkJSONL(path, probs, false, func(l *jsonlLine, line int) error {
		ev, ok := jsonlEvent(l, line)
		if !ok {
			return nil
		}
		var it *inputItem
		switch ev.Kind {
		case EventHuman:
			it = &inputItem{typ: "message", tier: tierHuman, json: userMessageJSON(nil, ev.Text)}
		case EventContext:
			it = &inputItem{typ: "message", tier: tierContext, json: userMessageJSON(nil, ev.Text)}
		case EventAssistant:
			phase, t := "commentary", tierCommentary
			if ev.Final {
				phase, t = "final_answer", tierFinal
			}
			it = &inputItem{typ: "message", tier: t, json: assistantMessageJSON(nil, ev.Text, phase)}
		case EventOtherAgent:
			b := append([]byte(`{"type":"agent_message","author":"agent","content":[{"type":"input_text","text":`), nil...)
			b = appendJSONString(b, ev.Text)
			it = &inputItem{typ: "agent_message", tier: tierOtherAgent, json: append(b, "}]}"...)}
		case EventToolCall:
			args := ev.Input
			if args == "" && ev.Command != "" {
				a, _ := json.Marshal(map[string]string{"command": ev.Command})
				args = string(a)
			}
			b := append([]byte(`{"type":"function_call","name":`), nil...)
			b = appendJSONString(b, ev.Tool)
			b = append(b, `,"arguments":`...)
			b = appendJSONString(b, args)
			b = append(b, `,"call_id":`...)
			b = appendJSONString(b, ev.CallID)
			it = &inputItem{typ: "function_call", tier: tierTool, json: append(b, '}'), callID: ev.CallID, name: ev.Tool}
		case EventToolResult:
			out := ev.Output
			if ev.ExitCode != nil {
				out = fmt.Sprintf("Process exited with code %d\n%s", *ev.ExitCode, out)
			}
			b := append([]byte(`{"type":"function_call_output","call_id":`), nil...)
			b = appendJSONString(b, ev.CallID)
			b = append(b, `,"output":`...)
			b = appendJSONString(b, out)
			it = &inputItem{typ: "function_call_output", tier: tierTool, json: append(b, '}'), callID: ev.CallID}
		case EventCompaction:
			it = &inputItem{typ: "message", tier: tierFinal, json: assistantMessageJSON(nil, ev.Text, "")}
		default:
			return nil
		}
		return fn(it)
	})
}
