// Codex's tool vocabulary: which tool runs a command, edits files, polls a
// running command; what its outputs say about how a call ended.
package codex

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/memctl/memctl/internal/lazyre"
	"github.com/memctl/memctl/internal/sessions/internal/transcript"
)

// Tools are Codex's tools, by the names its rollouts record.
var Tools = sync.OnceValue(func() map[string]transcript.Action {
	return map[string]transcript.Action{
		"shell": transcript.ActionShell, "container.exec": transcript.ActionShell, "shell_command": transcript.ActionShell, "exec_command": transcript.ActionShell,
		"local_shell": transcript.ActionShell, "local_shell_call": transcript.ActionShell, "write_stdin": transcript.ActionShell,
		"apply_patch": transcript.ActionEdit, "view_image": transcript.ActionRead, "web_search": transcript.ActionWeb, "web_search_call": transcript.ActionWeb,
		"tool_search": transcript.ActionSearch, "update_plan": transcript.ActionPlan,
		"spawn_agent": transcript.ActionAgent, "send_input": transcript.ActionAgent, "wait": transcript.ActionAgent, "close_agent": transcript.ActionAgent,
	}
})

// isCodexShellTool reports a Codex tool whose arguments carry a command.
func isCodexShellTool(name string) bool {
	return Tools()[name] == transcript.ActionShell && name != "write_stdin"
}

// ActionOf classifies a Codex tool by name (and namespace, which newer
// rollouts record for namespaced tools such as the memory tools).
func ActionOf(name, namespace string) transcript.Action {
	if namespace == "memories" || transcript.IsMemoryToolName(name) {
		return transcript.ActionMemory
	}
	if a, ok := Tools()[name]; ok {
		return a
	}
	return transcript.ActionOther
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
	return transcript.JSONNumberOrString(args, "session_id")
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

// sandboxFailRE is how the Codex harness reports a command its sandbox ran
// that exited non-zero: "failed in sandbox MacosSeatbelt with execution
// error: …, exit code: 1, stdout: …, stderr: …", all on the wrapper's line.
var sandboxFailRE = lazyre.New(`^failed in sandbox \S+ with execution error: [^\n]*?\bexit code: (-?\d+), stdout: `)

// codexSandboxFailure reads that wrapper: the command's exit status, and
// what it printed on its two streams as the body, so that the error line
// is the command's own ("bash: cannot create temp file …"), not the
// harness's sentence around it.
func codexSandboxFailure(out string) (string, *int) {
	m := sandboxFailRE().FindStringSubmatchIndex(out)
	if m == nil {
		return out, nil
	}
	code, err := strconv.Atoi(out[m[2]:m[3]])
	if err != nil {
		return out, nil
	}
	body := out[m[1]:]
	if i := strings.LastIndex(body, ", stderr: "); i >= 0 {
		body = strings.TrimSpace(body[:i]) + "\n" + body[i+len(", stderr: "):]
	}
	return strings.TrimSpace(body), &code
}

// shellPatch returns the patch of a shell command that runs apply_patch,
// as Codex does when it reaches the tool through its shell: on a heredoc
// ("apply_patch << 'PATCH' *** Begin Patch …"), after a cd, or exec'd with
// the patch as its argument; "" for any other command.
func shellPatch(cmd string) string {
	start, end := strings.Index(cmd, "*** Begin Patch"), strings.LastIndex(cmd, "*** End Patch")
	if start < 0 || end < start || !slices.Contains(strings.Fields(cmd[:start]), "apply_patch") {
		return ""
	}
	return strings.ReplaceAll(cmd[start:end], `'\''`, "'") + "*** End Patch\n" // ShellJoin quoted an exec'd patch
}

// codexPatchFailed reports an apply_patch output that says the patch was
// not applied.
func codexPatchFailed(out string) bool {
	t := strings.TrimSpace(out)
	return strings.HasPrefix(t, "apply_patch verification failed") || strings.HasPrefix(t, "Failed to apply patch") ||
		strings.HasPrefix(t, "error:") || strings.HasPrefix(t, "Error:") || strings.Contains(t, "patch rejected")
}

// ToolNames lists the tool names this format decodes.
func ToolNames() []string {
	return slices.Collect(maps.Keys(Tools()))
}
