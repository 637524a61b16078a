// Claude Code's tool vocabulary and the words its harness writes into a
// tool result that did not run.
package claude

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/memctl/memctl/internal/sessions/internal/transcript"
)

// Tools are Claude Code's built-in tools, with the action of each.
var Tools = sync.OnceValue(func() map[string]transcript.Action {
	return map[string]transcript.Action{
		"Bash": transcript.ActionShell, "PowerShell": transcript.ActionShell, "BashOutput": transcript.ActionShell, "KillShell": transcript.ActionShell, "KillBash": transcript.ActionShell,
		"Write": transcript.ActionEdit, "Edit": transcript.ActionEdit, "MultiEdit": transcript.ActionEdit, "NotebookEdit": transcript.ActionEdit,
		"Read": transcript.ActionRead, "NotebookRead": transcript.ActionRead,
		"Glob": transcript.ActionSearch, "Grep": transcript.ActionSearch, "LS": transcript.ActionSearch,
		"WebFetch": transcript.ActionWeb, "WebSearch": transcript.ActionWeb,
		"TodoWrite": transcript.ActionPlan, "TodoRead": transcript.ActionPlan, "ExitPlanMode": transcript.ActionPlan,
		"Task": transcript.ActionAgent, "Agent": transcript.ActionAgent,
	}
})

// ActionOf classifies a Claude Code tool by name.
func ActionOf(name string) transcript.Action {
	if a, ok := Tools()[name]; ok {
		return a
	}
	if transcript.IsMemoryToolName(name) {
		return transcript.ActionMemory
	}
	return transcript.ActionOther
}

// Claude Code's words for a tool use that did not run. The harness writes
// them into the tool result; they are matched as prefixes or substrings of
// that text, never of anything the agent or a tool printed.
var (
	claudeRejected = []string{
		"The user doesn't want to proceed with this tool use",
		"The user doesn't want to take this action right now",
		"User rejected",
	}
	claudeDenied = []string{
		"requested permissions to", "has been denied", "Permission denied by user settings",
		"This command requires approval",
	}
	claudeFeedback = "the user said:\n"
	// claudeCancelled is the whole result of a parallel call the harness
	// dropped because a sibling call failed: it never ran.
	claudeCancelled = "Sibling tool call errored"
)

// claudeResultOutcome decides the outcome of a Claude Code tool result.
// It also returns the words the user typed when rejecting the call ("To
// tell you how to proceed, the user said: …"), which are the human's own.
func claudeResultOutcome(text string, isError bool, interrupted bool) (transcript.Outcome, *int, string) {
	t := strings.TrimSpace(text)
	if interrupted || strings.HasPrefix(t, "[Request interrupted by user") {
		return transcript.OutcomeInterrupted, nil, ""
	}
	for _, r := range claudeRejected {
		if strings.HasPrefix(t, r) {
			feedback := ""
			if i := strings.Index(t, claudeFeedback); i >= 0 {
				feedback = strings.TrimSpace(t[i+len(claudeFeedback):])
			}
			if strings.HasPrefix(feedback, "The user ") {
				// The harness speaking of the user, not the user: a question
				// tool declined so the user can clarify puts its own
				// instructions to the agent where the user's words would be.
				feedback = ""
			}
			return transcript.OutcomeRejected, nil, feedback
		}
	}
	if !isError {
		return transcript.OutcomeOK, nil, ""
	}
	if strings.TrimSuffix(strings.TrimPrefix(t, "<tool_use_error>"), "</tool_use_error>") == claudeCancelled {
		return transcript.OutcomeCancelled, nil, ""
	}
	head := t
	if len(head) > 300 {
		head = head[:300]
	}
	for _, d := range claudeDenied {
		if strings.Contains(head, d) {
			return transcript.OutcomeDenied, nil, ""
		}
	}
	// Newer builds start a failed Bash result with "Exit code N".
	if rest, ok := strings.CutPrefix(strings.TrimPrefix(t, "Error: "), "Exit code "); ok {
		end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
		if end < 0 {
			end = len(rest)
		}
		if n, err := strconv.Atoi(rest[:end]); err == nil {
			return transcript.OutcomeFailed, &n, ""
		}
	}
	return transcript.OutcomeFailed, nil, ""
}

// claudeResultBody drops the harness framing around a Claude Code tool
// result: the <tool_use_error> tags, the "Exit code N" (or "Error:
// Exit code N") first line, and the bare "Error" that Claude Code 1.0
// writes for a failed command that printed nothing (a search that found
// nothing reads as one).
func claudeResultBody(text string, isError bool) string {
	t := strings.TrimSpace(text)
	if isError && t == "Error" {
		return ""
	}
	if s, ok := strings.CutPrefix(t, "<tool_use_error>"); ok {
		t = strings.TrimSuffix(s, "</tool_use_error>")
	}
	if rest, ok := strings.CutPrefix(strings.TrimPrefix(t, "Error: "), "Exit code "); ok {
		code, body, _ := strings.Cut(rest, "\n") // a command that printed nothing has no body
		if _, err := strconv.Atoi(code); err == nil {
			t = body
		}
	}
	return t
}

// ToolNames lists the tool names this format decodes.
func ToolNames() []string {
	return slices.Collect(maps.Keys(Tools()))
}
