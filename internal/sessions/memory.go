package sessions

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"sync"

	"github.com/memctl/memctl/internal/inject"
	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/sessions/internal/transcript"
)

// Memory never feeds on itself (DESIGN.md section 8): the citation blocks
// an agent appends to its answers and the agent's own reads of its memory
// folders are not part of the work a session did. The readers mark the
// reads as ActionMemory; the extractors cut the citations with
// StripCitations (Events keeps them: "cite --hook" reads them from the
// transcript); the model's input gets neither.

// memoryPathRE matches the memory folders of memctl and Codex, the files
// inside them, and memctl's own memory commands. The folder layout's names
// come from internal/memdir.
var memoryPathRE = sync.OnceValue(func() *regexp.Regexp {
	q := regexp.QuoteMeta
	return regexp.MustCompile(`(?i)(^|[\s'"=/~])\.memctl(/|\b)|\.codex/` + q(memdir.FolderV1) + `\b|` +
		`/` + q(memdir.FolderV1) + `(` + q(strings.TrimPrefix(memdir.FolderV2, memdir.FolderV1)) + `)?/(` +
		q(memdir.MemoryFile) + `|` + q(memdir.SummaryFile) + `|` + q(memdir.RawMemoriesFile) + `|` +
		q(memdir.RolloutSummariesDir) + `|` + q(memdir.SkillsDir) + `/|` + q(memdir.ExtensionsDir) + `/)|` +
		`(^|[\s'"/])(` + q(memdir.SummaryFile) + `|` + q(memdir.RawMemoriesFile) + `)\b|(^|[\s'"/])` + q(memdir.RolloutSummariesDir) + `/|` +
		`(^|[\s;&|(])memctl\s+(summary|search|cite|read|threads\s+show)\b`)
})

// TouchesMemory reports text (a command line, a path, a tool's input)
// that reads or writes memctl's or Codex's memory.
func TouchesMemory(s string) bool {
	return s != "" && memoryPathRE().MatchString(s)
}

// StripCitations removes memory citation blocks from an agent's text:
// Codex's <oai-mem-citation> (with inject's exact rules) and the
// <memory_citation> wrapper some agents write.
func StripCitations(s string) string {
	if strings.Contains(s, inject.CitationOpen) {
		s, _ = inject.StripCitationsString(s)
	}
	for {
		i := strings.Index(s, "<memory_citation>")
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], "</memory_citation>")
		if j < 0 {
			return s[:i]
		}
		s = s[:i] + s[i+j+len("</memory_citation>"):]
	}
}

// normalise marks a call of any reader that touches memory.
func normalise(e *Event) {
	if e.Kind != EventToolCall || e.Action == ActionMemory {
		return
	}
	if TouchesMemory(e.Command) || TouchesMemory(e.FilePath) ||
		(e.Command == "" && e.FilePath == "" && len(e.Input) < 4096 && TouchesMemory(e.Input)) {
		e.Action = ActionMemory
	}
}

// memoryFilter wraps an input-item sink: calls that touch memory are
// dropped with their outputs, and citation blocks are cut out of
// assistant messages.
func memoryFilter(fn func(*inputItem) error) func(*inputItem) error {
	dropped := map[string]bool{}
	return func(it *inputItem) error {
		switch it.Type {
		case "function_call", "custom_tool_call", "local_shell_call":
			if it.NS == "memories" || transcript.IsMemoryToolName(it.Name) || TouchesMemory(callText(it.JSON)) {
				if it.CallID != "" {
					if len(dropped) > 4096 {
						clear(dropped)
					}
					dropped[it.CallID] = true
				}
				return nil
			}
		case "function_call_output", "custom_tool_call_output":
			if it.CallID != "" && dropped[it.CallID] {
				delete(dropped, it.CallID)
				return nil
			}
		case "message", "agent_message":
			if bytes.Contains(it.JSON, []byte("citation")) {
				it.JSON = stripItemCitations(it.JSON)
			}
		}
		return fn(it)
	}
}

// callText is what a call item says it runs: its arguments, input or
// action.
func callText(item []byte) string {
	for _, k := range []string{"arguments", "input"} {
		if v := transcript.FieldString(item, k); v != "" {
			return v
		}
	}
	return transcript.CompactJSON(transcript.Field(item, "action"))
}

// stripItemCitations removes citation blocks from the text parts of a
// message item, re-encoding it only when one was there.
func stripItemCitations(item []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(item, &m) != nil {
		return item
	}
	var parts []map[string]json.RawMessage
	if json.Unmarshal(m["content"], &parts) != nil {
		return item
	}
	changed := false
	for _, p := range parts {
		var text string
		if json.Unmarshal(p["text"], &text) != nil {
			continue
		}
		if s := StripCitations(text); s != text {
			b, _ := json.Marshal(s)
			p["text"] = b
			changed = true
		}
	}
	if !changed {
		return item
	}
	m["content"], _ = json.Marshal(parts)
	out, err := json.Marshal(m)
	if err != nil {
		return item
	}
	return out
}
