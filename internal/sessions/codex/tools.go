// Codex's tool vocabulary: which tool runs a command, edits files, polls a
// running command; what its outputs say about how a call ended.
package codex

import (
	"cmp"
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

// codexJSONSession returns the session id of a unified-exec answer in its
// first builds' JSON form ({"chunk_id":…,"session_id":N,"output":…}): the
// command still runs when the answer has no exit_code.
func codexJSONSession(raw string) string {
	t := []byte(strings.TrimSpace(raw))
	if len(t) == 0 || t[0] != '{' || transcript.Field(t, "chunk_id") == nil || transcript.Field(t, "exit_code") != nil {
		return ""
	}
	return transcript.JSONNumberOrString(string(t), "session_id")
}

var (
	debugExitRE   = lazyre.New(`\bexit_code: (-?\d+)`)
	debugStreamRE = lazyre.New(`\b(stdout|stderr|message): (?:StreamOutput \{ text: )?"((?:[^"\\]|\\.)*)"`)
)

// codexSandboxDenial reads the harness's report of a command its sandbox
// stopped, in the forms that do not format the command's own output:
// "execution error: Sandbox(Denied { output: ExecToolCallOutput { exit_code:
// 1, stdout: StreamOutput { text: "…", … }, stderr: … } })" (the error as
// Rust prints it for debugging; also Sandbox(Timeout …), Sandbox(Signal(9))),
// and unified exec's "exec_command failed: SandboxDenied { message: "…",
// output: … }" or "… Command denied by sandbox: …". It returns what the
// command printed (else the harness's message, else the whole report) as
// the body, and the exit code when the report has one; ok is false for any
// other output.
func codexSandboxDenial(out string) (body string, code *int, ok bool) {
	t := strings.TrimSpace(out)
	head := t[:min(len(t), 80)]
	if !strings.HasPrefix(t, "execution error: Sandbox(") && !strings.Contains(head, "SandboxDenied") &&
		!strings.Contains(head, "denied by sandbox") {
		return out, nil, false
	}
	if m := debugExitRE().FindStringSubmatch(t); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			code = &n
		}
	}
	streams := map[string]string{}
	for _, m := range debugStreamRE().FindAllStringSubmatch(t, -1) {
		if _, seen := streams[m[1]]; !seen {
			streams[m[1]] = strings.TrimSpace(unescapeDebug(m[2]))
		}
	}
	body = strings.TrimSpace(streams["stdout"] + "\n" + streams["stderr"])
	return cmp.Or(body, streams["message"], t), code, true
}

// unescapeDebug reads a string as Rust's Debug format quotes it.
func unescapeDebug(s string) string {
	if u, err := strconv.Unquote(`"` + s + `"`); err == nil {
		return u
	}
	return strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\r`, "", `\"`, `"`, `\\`, `\`).Replace(s)
}

// isMCPTool reports a call of an MCP server's tool: Codex names it
// mcp__<server>__<tool> (older builds <server>__<tool>), or records the
// server as the call's namespace.
func isMCPTool(name, namespace string) bool {
	return strings.Contains(name, "__") || strings.HasPrefix(namespace, "mcp__")
}

// mcpOutput reads the outcome of an MCP call's output where Codex wrote the
// server's whole answer, {"content":[…],"isError":…}, or "err: …" when the
// call did not reach the tool; newer builds write the content alone, which
// says nothing of how the call ended.
func mcpOutput(raw string) (string, transcript.Outcome) {
	t := strings.TrimSpace(raw)
	if msg, ok := strings.CutPrefix(t, "err: "); ok {
		if u, err := strconv.Unquote(msg); err == nil {
			msg = u
		}
		return msg, transcript.OutcomeFailed
	}
	if strings.HasPrefix(t, "{") {
		if out, o := callToolResult([]byte(t)); o != transcript.OutcomeUnknown {
			return out, o
		}
	}
	return raw, transcript.OutcomeUnknown
}

// mcpResult reads mcp_tool_call_end's result: {"Ok": <the server's
// answer>} or {"Err": "<why the call failed>"}.
func mcpResult(v []byte) (string, transcript.Outcome) {
	if e := transcript.Field(v, "Err"); e != nil {
		return transcript.ToolOutputText(e), transcript.OutcomeFailed
	}
	return callToolResult(transcript.Field(v, "Ok"))
}

// callToolResult reads an MCP CallToolResult: its text, and its isError
// flag as the outcome.
func callToolResult(v []byte) (string, transcript.Outcome) {
	out := transcript.ToolOutputText(transcript.Field(v, "content"))
	switch string(transcript.Field(v, "isError")) {
	case "true":
		return out, transcript.OutcomeFailed
	case "false":
		return out, transcript.OutcomeOK
	}
	return out, transcript.OutcomeUnknown
}

// codexHarnessDenied reports the harness's words for a call a policy
// refused to run, no person asked: the command policy ("`powershell.exe -Command
// '…'` rejected: blocked by policy"), the network policy ("Network access
// to "https://host:443" was blocked: …"), the automatic reviewer ("Guardian
// rejected this action …"), or an escalation the approval policy cannot
// grant ("approval policy is Never; reject command — …").
func codexHarnessDenied(t string) bool {
	first, _, _ := strings.Cut(t, "\n")
	switch {
	case strings.HasPrefix(first, "`") && strings.Contains(first, "` rejected: "), strings.HasPrefix(first, "rejected: blocked by policy"):
		return true
	case strings.HasPrefix(first, "Network access to ") && strings.Contains(first, " was blocked"),
		strings.HasPrefix(first, "Network access was blocked"):
		return true
	case strings.HasPrefix(first, "Guardian rejected this action"), strings.HasPrefix(first, "This action was rejected due to unacceptable risk"):
		return true
	}
	return strings.HasPrefix(first, "approval policy is ") && strings.Contains(first, "reject command")
}
