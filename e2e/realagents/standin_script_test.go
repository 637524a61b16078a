package realagents

import (
	"fmt"
	"regexp"
	"strings"
)

// A Conv is one model request reduced to what a scripted session needs,
// whichever wire format it came in.
type Conv struct {
	// Prompt is the newest human message of the request.
	Prompt string
	// Steps are the tool calls made since that message, with their output.
	Steps []Step
	// Body is the whole request body, for searching injected text.
	Body string
	// Tools are the names of the tools the request offers.
	Tools []string
}

// Step is one tool call and what it returned.
type Step struct {
	Tool   string
	Input  string
	Output string
}

// Action is what the scripted model does next: call a tool (Tool set)
// or answer with Text and end the turn.
type Action struct {
	Tool string // "shell", "read", "edit", "agent", "mcp" or "" for the final answer
	// Command (shell), Path (read, edit), Old/New (edit), Prompt (agent),
	// Name and Args (mcp: the tool as the request names it, JSON input).
	Command, Path, Old, New, Prompt string
	Name, Args                      string
	Text                            string
}

// The scripted coding sessions, chosen by a tag in the prompt.
const (
	TagFix  = "[fix]"  // failing test, an abandoned attempt, an edit, the test passing, a sub-agent
	TagPref = "[pref]" // a stated preference
	TagCite = "[cite]" // read the memory, answer with a citation block
	TagMCP  = "[mcp]"  // search the memory through memctl's MCP server
)

var (
	threadIDRE = regexp.MustCompile(`thread_id=([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})`)
	agentIDRE  = regexp.MustCompile(`"(?:agent_id|id|target)"\s*:\s*"([^"]+)"`)
	basePathRE = regexp.MustCompile("search the files under `([^`]+)`")
)

// Next plays the scripted sessions. It is deterministic: the same
// conversation always gets the same next action.
func Next(c Conv) Action {
	p := c.Prompt
	n := len(c.Steps)
	switch {
	case strings.Contains(p, TagFix):
		switch n {
		case 0:
			return Action{Tool: "shell", Command: "sh test.sh"}
		case 1:
			// The abandoned attempt: a make target that does not exist.
			return Action{Tool: "shell", Command: "make test-fast"}
		case 2:
			return Action{Tool: "read", Path: "calc.sh"}
		case 3:
			return Action{Tool: "edit", Path: "calc.sh", Old: "expr $1 - $2", New: "expr $1 + $2"}
		case 4:
			return Action{Tool: "shell", Command: "sh test.sh"}
		case 5:
			return Action{Tool: "agent", Prompt: "[sub] List the files of this project and report them."}
		default:
			// Codex's spawn_agent returns at once: wait for the sub-agent.
			if last := c.Steps[n-1]; strings.HasSuffix(last.Tool, "spawn_agent") {
				if m := agentIDRE.FindStringSubmatch(last.Output); m != nil {
					return Action{Tool: "mcp", Name: "multi_agent_v1" + nsSep + "wait_agent", Args: fmt.Sprintf(`{"targets":[%q],"timeout_ms":60000}`, m[1])}
				}
			}
			return Action{Text: "Fixed `add` in calc.sh: it subtracted instead of adding. " +
				"`make test-fast` does not exist here, so I ran `sh test.sh` directly; it passes now."}
		}
	case strings.Contains(p, "[sub]"):
		if n == 0 {
			return Action{Tool: "shell", Command: "ls"}
		}
		return Action{Text: "The project holds calc.sh and test.sh."}
	case strings.Contains(p, TagPref):
		return Action{Text: "Noted: you want shell scripts to use `set -eu` and two-space indentation. I will follow that."}
	case strings.Contains(p, TagCite):
		base := ""
		if m := basePathRE.FindStringSubmatch(c.Body); m != nil {
			base = m[1]
		}
		if base == "" {
			// No memory was injected: answer without a citation.
			return Action{Text: "I have no memory of earlier sessions about this."}
		}
		if n == 0 {
			return Action{Tool: "read", Path: base + "/MEMORY.md"}
		}
		id := ""
		if m := threadIDRE.FindStringSubmatch(c.Steps[0].Output); m != nil {
			id = m[1]
		}
		// The short form the read path asks for where the block stays on
		// screen: the rollout ids alone.
		return Action{Text: fmt.Sprintf("Last time the fix was in calc.sh: `add` used `-` instead of `+`, "+
			"and `sh test.sh` is how the tests run.\n\n"+
			"<oai-mem-citation>\n<rollout_ids>\n%s\n</rollout_ids>\n</oai-mem-citation>", id)}
	case strings.Contains(p, TagMCP):
		searched := false
		for _, st := range c.Steps {
			if strings.Contains(st.Tool, "memctl") {
				return Action{Text: "The memory search found: " + firstLine(st.Output)}
			}
			searched = searched || st.Tool == "ToolSearch"
		}
		for _, name := range c.Tools {
			if strings.Contains(name, "memctl") && strings.HasSuffix(name, "search") {
				return Action{Tool: "mcp", Name: name, Args: `{"queries":["calc"]}`}
			}
		}
		// Claude Code defers MCP tools: their schemas load through
		// ToolSearch, and the next request offers them.
		for _, name := range c.Tools {
			if name == "ToolSearch" && !searched {
				return Action{Tool: "mcp", Name: name, Args: `{"query":"select:mcp__memctl__search","max_results":5}`}
			}
		}
		return Action{Text: "memctl's MCP tools are not available here."}
	default:
		return Action{Text: "Done."}
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}
