// Input items: one kept conversation item in Codex's ResponseItem JSON,
// the shape every reader renders for the Phase 1 model input.
package transcript

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// tier orders v2 rows by how much they say about the user.
type Tier uint8

const (
	TierHuman Tier = iota
	TierFinal
	TierOtherAgent
	TierCommentary
	TierContext
	TierTool
	NumTiers
)

var TierLabels = [NumTiers]string{"human user", "assistant final", "other agent", "assistant commentary", "harness context", "tool"}

// inputItem is one kept conversation item in Codex's ResponseItem JSON.
type InputItem struct {
	JSON   []byte
	Type   string
	Tier   Tier
	CallID string
	Name   string
	NS     string
}

// sanitizeItem appends the item as Phase 1 sees it: encrypted content and
// image payloads removed, AGENTS.md and skill fragments dropped from user
// messages (keep=false when nothing remains). Items that need no change
// are copied compactly.
func SanitizeItem(dst, p []byte, typ, role string) ([]byte, bool, error) {
	needs := role == "user" || bytes.Contains(p, []byte(`"encrypted_content"`)) ||
		bytes.Contains(p, []byte(`"input_image"`)) || bytes.Contains(p, []byte(`"input_audio"`))
	if !needs {
		start := len(dst)
		out, ok := FastCompact(dst, p)
		if !ok {
			return dst[:start], false, ErrBadJSON
		}
		return out, true, nil
	}
	if !json.Valid(p) {
		return dst, false, ErrBadJSON
	}
	dst = append(dst, '{')
	first := true
	kept := true
	err := EachField(p, func(k string, v []byte) bool {
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
			dst = AppendCompact(dst, v)
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
	_ = EachElem(arr, func(v []byte) bool {
		part := v
		switch FieldString(v, "type") {
		case "input_image", "image":
			part = []byte(`{"type":"input_text","text":"[image omitted]"}`)
		case "input_audio":
			part = []byte(`{"type":"input_text","text":"[audio omitted]"}`)
		case "input_text":
			if user && isDroppedFragment(FieldString(v, "text")) {
				return true
			}
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = AppendCompact(dst, part)
		return true
	})
	return append(dst, ']'), n
}

// isDroppedFragment matches the user-message parts Phase 1 strips: AGENTS.md
// instructions and skill bodies.
func isDroppedFragment(text string) bool {
	l := strings.TrimLeft(text, " \t\r\n")
	r := strings.TrimRight(text, " \t\r\n")
	if HasPrefixFold(l, "# AGENTS.md instructions") && HasSuffixFold(r, "</INSTRUCTIONS>") {
		return true
	}
	return strings.HasPrefix(l, "<skill>") && strings.HasSuffix(r, "</skill>")
}

// fastCompact appends p without the whitespace between JSON tokens. It is
// the hot path of preparing a large transcript, where encoding/json's
// general-purpose state machine was a quarter of the time; it checks only
// what the copy needs (strings terminated, brackets balanced) and reports
// false otherwise, so a broken item is dropped as before.
func FastCompact(dst, p []byte) ([]byte, bool) {
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

func AppendCompact(dst, v []byte) []byte {
	b := bytes.NewBuffer(dst)
	if err := json.Compact(b, v); err != nil {
		return append(dst, "null"...)
	}
	return b.Bytes()
}

func AppendJSONString(dst []byte, s string) []byte {
	b, _ := json.Marshal(s)
	return append(dst, b...)
}

func AssistantMessageJSON(dst []byte, text, phase string) []byte {
	dst = append(dst, `{"type":"message","role":"assistant","content":[{"type":"output_text","text":`...)
	dst = AppendJSONString(dst, text)
	dst = append(dst, "}]"...)
	if phase != "" {
		dst = append(dst, `,"phase":`...)
		dst = AppendJSONString(dst, phase)
	}
	return append(dst, '}')
}

func UserMessageJSON(dst []byte, text string) []byte {
	dst = append(dst, `{"type":"message","role":"user","content":[{"type":"input_text","text":`...)
	dst = AppendJSONString(dst, text)
	return append(dst, "}]}"...)
}

// ToolOutputText flattens a function_call_output.output value (string or
// content-part array).
func ToolOutputText(v []byte) string {
	if IsNull(v) {
		return ""
	}
	if v[0] == '"' {
		return RawString(v)
	}
	if v[0] == '[' {
		var parts []string
		_ = EachElem(v, func(e []byte) bool {
			switch FieldString(e, "type") {
			case "input_image", "image":
				parts = append(parts, "[image omitted]")
			default:
				if t := Field(e, "text"); t != nil {
					parts = append(parts, RawString(t))
				}
			}
			return true
		})
		return strings.Join(parts, "\n")
	}
	if c := Field(v, "content"); c != nil {
		return ToolOutputText(c)
	}
	return CompactJSON(v)
}
