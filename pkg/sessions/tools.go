package sessions

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"
)

// This file is where the agents' tool vocabularies live. Readers turn a
// tool name into an Action here, so the extractor and everything else
// reason about "a shell command", "an edit", "a read" and never about
// Bash, apply_patch or exec_command.

// claudeTools are Claude Code's built-in tools.
var claudeTools = sync.OnceValue(func() map[string]Action {
	return map[string]Action{
		"Bash": ActionShell, "BashOutput": ActionShell, "KillShell": ActionShell, "KillBash": ActionShell,
		"Write": ActionEdit, "Edit": ActionEdit, "MultiEdit": ActionEdit, "NotebookEdit": ActionEdit,
		"Read": ActionRead, "NotebookRead": ActionRead,
		"Glob": ActionSearch, "Grep": ActionSearch, "LS": ActionSearch,
		"WebFetch": ActionWeb, "WebSearch": ActionWeb,
		"TodoWrite": ActionPlan, "TodoRead": ActionPlan, "ExitPlanMode": ActionPlan,
		"Task": ActionAgent, "Agent": ActionAgent,
	}
})

// codexTools are Codex's tools, by the names its rollouts record.
var codexTools = sync.OnceValue(func() map[string]Action {
	return map[string]Action{
		"shell": ActionShell, "container.exec": ActionShell, "shell_command": ActionShell, "exec_command": ActionShell,
		"local_shell": ActionShell, "local_shell_call": ActionShell, "write_stdin": ActionShell,
		"apply_patch": ActionEdit, "view_image": ActionRead, "web_search": ActionWeb, "web_search_call": ActionWeb,
		"tool_search": ActionSearch, "update_plan": ActionPlan,
		"spawn_agent": ActionAgent, "send_input": ActionAgent, "wait": ActionAgent, "close_agent": ActionAgent,
	}
})

// claudeAction classifies a Claude Code tool by name.
func claudeAction(name string) Action {
	if a, ok := claudeTools()[name]; ok {
		return a
	}
	if isMemoryToolName(name) {
		return ActionMemory
	}
	return ActionOther
}

// isCodexShellTool reports a Codex tool whose arguments carry a command.
func isCodexShellTool(name string) bool {
	return codexTools()[name] == ActionShell && name != "write_stdin"
}

// codexAction classifies a Codex tool by name (and namespace, which newer
// rollouts record for namespaced tools such as the memory tools).
func codexAction(name, namespace string) Action {
	if namespace == "memories" || isMemoryToolName(name) {
		return ActionMemory
	}
	if a, ok := codexTools()[name]; ok {
		return a
	}
	return ActionOther
}

// AgentToolNames lists the tool names the readers decode, for the test
// that keeps them out of every other package.
func AgentToolNames() []string {
	var out []string
	for n := range claudeTools() {
		out = append(out, n)
	}
	for n := range codexTools() {
		out = append(out, n)
	}
	for n := range editTools() {
		out = append(out, n)
	}
	return out
}

// genericAction classifies a tool of memctl's own format, whose writers
// may use any agent's names or plain ones (shell, edit, read).
func genericAction(name string) Action {
	if a := claudeAction(name); a != ActionOther {
		return a
	}
	if a := codexAction(name, ""); a != ActionOther {
		return a
	}
	low := strings.ToLower(name)
	if i := strings.LastIndex(low, "__"); i >= 0 {
		low = low[i+2:]
	}
	switch low {
	case "bash", "sh", "terminal", "run_command", "execute_command", "run_terminal_cmd":
		return ActionShell
	case "read", "read_file", "view", "open_file", "cat":
		return ActionRead
	case "grep", "glob", "search", "find", "list_dir", "list_files", "codebase_search", "file_search", "grep_search":
		return ActionSearch
	case "web_fetch", "fetch", "browse":
		return ActionWeb
	}
	if _, ok := editTools()[low]; ok {
		return ActionEdit
	}
	return ActionOther
}

// isMemoryToolName reports a tool that reads or writes memory: memctl's own
// MCP server (any agent prefixes it with its server name) and Codex's
// memory namespace.
func isMemoryToolName(name string) bool {
	low := strings.ToLower(name)
	return strings.HasPrefix(low, "mcp__memctl__") || strings.HasPrefix(low, "memctl__") ||
		strings.HasPrefix(low, "mcp__memories__") || strings.HasPrefix(low, "memories.") ||
		strings.HasPrefix(low, "memories__")
}

// editTools maps the names generic file tools go by to the file operation
// they perform; "write" is a create or a replace, told apart later.
var editTools = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"write": "write", "create_file": "add", "write_file": "write", "notebookedit": "update",
		"edit": "update", "multiedit": "update", "edit_file": "update", "str_replace_editor": "update",
		"str_replace_based_edit_tool": "update", "replace": "update", "search_replace": "update",
	}
})

// fileArgs is the union of the argument names file tools use.
type fileArgs struct {
	FilePath     string `json:"file_path"`
	Path         string `json:"path"`
	NotebookPath string `json:"notebook_path"`
	Filename     string `json:"filename"`
	TargetFile   string `json:"target_file"`
	Command      string `json:"command"`
	OldString    string `json:"old_string"`
	NewString    string `json:"new_string"`
	OldStr       string `json:"old_str"`
	NewStr       string `json:"new_str"`
	Edits        []struct {
		OldString string `json:"old_string"`
		NewString string `json:"new_string"`
	} `json:"edits"`
}

func (a fileArgs) path() string {
	for _, p := range []string{a.FilePath, a.Path, a.NotebookPath, a.Filename, a.TargetFile} {
		if p != "" {
			return p
		}
	}
	return ""
}

// oldNew returns the replaced and replacing text of an in-place edit.
func (a fileArgs) oldNew() (string, string) {
	old, nw := a.OldString+a.OldStr, a.NewString+a.NewStr
	for _, e := range a.Edits {
		old += "\x00" + e.OldString
		nw += "\x00" + e.NewString
	}
	return shorten(old, eventTextMax), shorten(nw, eventTextMax)
}

// editChanges lists the file changes an edit tool call makes, decoded from
// its input: an apply_patch body, or the path argument of a file tool.
// name is the tool's own name; the changes are only reported once the call
// is seen to succeed.
func editChanges(name, input string) []Event {
	low := strings.ToLower(name)
	if i := strings.LastIndex(low, "__"); i >= 0 {
		low = low[i+2:]
	}
	if low == "apply_patch" || strings.Contains(input, "*** Begin Patch") {
		patch := input
		if strings.HasPrefix(strings.TrimSpace(input), "{") {
			// function-call form: {"input": "*** Begin Patch …"}
			var a struct {
				Input string `json:"input"`
			}
			if json.Unmarshal([]byte(input), &a) == nil && a.Input != "" {
				patch = a.Input
			}
		}
		paths, ops := patchChanges(patch)
		out := make([]Event, len(paths))
		for i := range paths {
			out[i] = Event{Kind: EventFileChange, FilePath: paths[i], FileOp: ops[i]}
		}
		return out
	}
	op, ok := editTools()[low]
	if !ok {
		return nil
	}
	var a fileArgs
	if json.Unmarshal([]byte(input), &a) != nil {
		return nil
	}
	p := a.path()
	if p == "" {
		return nil
	}
	if low == "str_replace_based_edit_tool" || low == "str_replace_editor" {
		switch a.Command {
		case "create":
			op = "add"
		case "view":
			return nil
		}
	}
	ev := Event{Kind: EventFileChange, FilePath: p, FileOp: op}
	if op == "update" {
		ev.Old, ev.New = a.oldNew()
	}
	return []Event{ev}
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
)

// claudeResultOutcome decides the outcome of a Claude Code tool result.
// It also returns the words the user typed when rejecting the call ("To
// tell you how to proceed, the user said: …"), which are the human's own.
func claudeResultOutcome(text string, isError bool, interrupted bool) (Outcome, *int, string) {
	t := strings.TrimSpace(text)
	if interrupted || strings.HasPrefix(t, "[Request interrupted by user") {
		return OutcomeInterrupted, nil, ""
	}
	for _, r := range claudeRejected {
		if strings.HasPrefix(t, r) {
			feedback := ""
			if i := strings.Index(t, claudeFeedback); i >= 0 {
				feedback = strings.TrimSpace(t[i+len(claudeFeedback):])
			}
			return OutcomeRejected, nil, feedback
		}
	}
	if !isError {
		return OutcomeOK, nil, ""
	}
	head := t
	if len(head) > 300 {
		head = head[:300]
	}
	for _, d := range claudeDenied {
		if strings.Contains(head, d) {
			return OutcomeDenied, nil, ""
		}
	}
	// Newer builds start a failed Bash result with "Exit code N".
	if rest, ok := strings.CutPrefix(strings.TrimPrefix(t, "Error: "), "Exit code "); ok {
		end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
		if end < 0 {
			end = len(rest)
		}
		if n, err := strconv.Atoi(rest[:end]); err == nil {
			return OutcomeFailed, &n, ""
		}
	}
	return OutcomeFailed, nil, ""
}

// claudeResultBody drops the harness framing around a Claude Code tool
// result: the <tool_use_error> tags and the "Exit code N" first line.
func claudeResultBody(text string) string {
	t := strings.TrimSpace(text)
	if s, ok := strings.CutPrefix(t, "<tool_use_error>"); ok {
		t = strings.TrimSuffix(s, "</tool_use_error>")
	}
	if rest, ok := strings.CutPrefix(t, "Exit code "); ok {
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			if _, err := strconv.Atoi(rest[:i]); err == nil {
				t = rest[i+1:]
			}
		}
	}
	return t
}

// codexEscalated reports a Codex shell call that asked to run outside the
// sandbox: sandbox_permissions "require_escalated" (newer) or
// with_escalated_permissions (older).
func codexEscalated(args string) bool {
	var a struct {
		SandboxPermissions       string `json:"sandbox_permissions"`
		WithEscalatedPermissions bool   `json:"with_escalated_permissions"`
	}
	if json.Unmarshal([]byte(args), &a) != nil {
		return false
	}
	return a.WithEscalatedPermissions || a.SandboxPermissions == "require_escalated"
}

// codexPollSession returns the unified-exec session a write_stdin call
// polls, "" when the call is no poll.
func codexPollSession(name, args string) string {
	if name != "write_stdin" {
		return ""
	}
	return jsonNumberOrString(args, "session_id")
}

// codexRunningSession returns the session id of an exec output that says
// the command is still running ("Process running with session ID N").
func codexRunningSession(out string) string {
	const marker = "Process running with session ID "
	head := out
	if len(head) > 512 {
		head = head[:512]
	}
	i := strings.Index(head, marker)
	if i < 0 {
		return ""
	}
	rest := head[i+len(marker):]
	end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(rest)
	}
	return rest[:end]
}

// codexExecBody drops the unified-exec framing (Chunk ID, Wall time,
// Process exited …, Original token count, Output:) from a tool output.
func codexExecBody(out string) string {
	if !strings.HasPrefix(out, "Chunk ID:") && !strings.HasPrefix(out, "Wall time:") &&
		!strings.HasPrefix(out, "Process exited with code") && !strings.HasPrefix(out, "Exit code:") {
		return out
	}
	if i := strings.Index(out, "\nOutput:\n"); i >= 0 && i < 1024 {
		return out[i+len("\nOutput:\n"):]
	}
	// shell_command: "Exit code: N\nWall time: …\nOutput:\n…" without a
	// leading newline variant, or no output section at all.
	if rest, ok := strings.CutPrefix(out, "Output:\n"); ok {
		return rest
	}
	return out
}

// codexPatchFailed reports an apply_patch output that says the patch was
// not applied.
func codexPatchFailed(out string) bool {
	t := strings.TrimSpace(out)
	return strings.HasPrefix(t, "apply_patch verification failed") || strings.HasPrefix(t, "Failed to apply patch") ||
		strings.HasPrefix(t, "error:") || strings.HasPrefix(t, "Error:") || strings.Contains(t, "patch rejected")
}

// jsonNumberOrString reads one top-level field of a JSON object as text.
func jsonNumberOrString(input, key string) string {
	v := field([]byte(input), key)
	if v == nil {
		return ""
	}
	if v[0] == '"' {
		return rawString(v)
	}
	if n, ok := rawInt(v); ok {
		return strconv.Itoa(n)
	}
	return ""
}
