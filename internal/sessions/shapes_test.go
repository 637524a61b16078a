package sessions

import (
	"strings"
	"testing"
)

// codexRollout reads the events of a rollout made of one user request and
// the given lines.
func codexRollout(t *testing.T, lines []string) []Event {
	t.Helper()
	lines = append([]string{
		`{"timestamp":"2026-01-01T10:00:00Z","type":"session_meta","payload":{"id":"77777777-2222-3333-4444-555555555555","cwd":"/w","source":"cli"}}`,
		`{"timestamp":"2026-01-01T10:00:01Z","type":"event_msg","payload":{"type":"user_message","message":"go"}}`,
	}, lines...)
	p := writeFile(t, t.TempDir(), "rollout-2026-01-01T10-00-00-77777777-2222-3333-4444-555555555555.jsonl", strings.Join(lines, "\n")+"\n")
	evs, _ := collectEvents(t, File{Kind: KindCodex, Path: p})
	return evs
}

// results renders the tool results of the events, one a line.
func results(evs []Event) string {
	var got []string
	for _, l := range strings.Split(outcomes(evs), "\n") {
		if strings.HasPrefix(l, "result ") {
			got = append(got, l)
		}
	}
	return strings.Join(got, "\n")
}

// TestCodexOutputShapes reads each shape in which a Codex build records
// how a call ended (an exit status, a success or error flag, the
// sandbox's refusal), one synthetic rollout per shape, and checks the
// outcome, the exit code and the text the error line is taken from.
func TestCodexOutputShapes(t *testing.T) {
	const (
		execCall  = `{"timestamp":"2026-01-01T10:00:02Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"curl -sS https://example.com\"}","call_id":"c1"}}`
		shellCall = `{"timestamp":"2026-01-01T10:00:02Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"touch /etc/x\"]}","call_id":"c1"}}`
		mcpCall   = `{"timestamp":"2026-01-01T10:00:02Z","type":"response_item","payload":{"type":"function_call","name":"mcp__fetch__fetch","arguments":"{\"url\":\"https://example.com\"}","call_id":"c1"}}`
	)
	output := func(out string) string {
		return `{"timestamp":"2026-01-01T10:00:03Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":` + out + `}}`
	}
	cases := []struct {
		name  string
		lines []string
		want  string
	}{
		{"unified exec JSON answer, exit 0", []string{execCall,
			output(`"{\"chunk_id\":\"a1\",\"wall_time_seconds\":0.2,\"output\":\"<html>\\n\",\"exit_code\":0,\"original_token_count\":2}"`)},
			`result c1 ok exit=0 "<html>"`},
		{"unified exec JSON answer, exit 6", []string{execCall,
			output(`"{\"chunk_id\":\"a1\",\"wall_time_seconds\":0.2,\"output\":\"curl: (6) Could not resolve host: example.com\\n\",\"exit_code\":6}"`)},
			`result c1 failed exit=6 "curl: (6) Could not resolve host: example.com"`},
		{"unified exec JSON answer still running, then its poll", []string{execCall,
			output(`"{\"chunk_id\":\"a1\",\"wall_time_seconds\":10.0,\"output\":\"\",\"session_id\":7}"`),
			`{"timestamp":"2026-01-01T10:00:04Z","type":"response_item","payload":{"type":"function_call","name":"write_stdin","arguments":"{\"session_id\":7,\"chars\":\"\"}","call_id":"p1"}}`,
			`{"timestamp":"2026-01-01T10:00:05Z","type":"response_item","payload":{"type":"function_call_output","call_id":"p1","output":"{\"chunk_id\":\"a2\",\"wall_time_seconds\":1.0,\"output\":\"done\\n\",\"session_id\":7,\"exit_code\":0}"}}`},
			`result c1 ok exit=0 "done"`},
		{"shell JSON answer with metadata", []string{shellCall,
			output(`"{\"output\":\"\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.1}}"`)},
			`result c1 ok exit=0`},
		{"output object with a success flag", []string{mcpCall,
			output(`{"content":"upstream returned 403","success":false}`)},
			`result c1 failed "upstream returned 403"`},
		{"MCP answer with isError", []string{mcpCall,
			output(`"{\"content\":[{\"type\":\"text\",\"text\":\"Failed to fetch https://example.com: 403\"}],\"isError\":true}"`)},
			`result c1 failed "Failed to fetch https://example.com: 403"`},
		{"MCP answer without error", []string{mcpCall,
			output(`"{\"content\":[{\"type\":\"text\",\"text\":\"Example Domain\"}],\"isError\":false}"`)},
			`result c1 ok "Example Domain"`},
		{"MCP call that failed before the tool", []string{mcpCall,
			output(`"err: \"tool call failed: connection refused\""`)},
			`result c1 failed "tool call failed: connection refused"`},
		{"mcp_tool_call_end with Err", []string{mcpCall,
			`{"timestamp":"2026-01-01T10:00:03Z","type":"event_msg","payload":{"type":"mcp_tool_call_end","call_id":"c1","invocation":{"server":"fetch","tool":"fetch"},"duration":{"secs":1,"nanos":0},"result":{"Err":"request timed out"}}}`},
			`result c1 failed "request timed out"`},
		{"mcp_tool_call_end with isError", []string{mcpCall,
			`{"timestamp":"2026-01-01T10:00:03Z","type":"event_msg","payload":{"type":"mcp_tool_call_end","call_id":"c1","invocation":{"server":"fetch","tool":"fetch"},"result":{"Ok":{"content":[{"type":"text","text":"403 Forbidden"}],"isError":true}}}}`},
			`result c1 failed "403 Forbidden"`},
		{"sandbox denial as the harness's error", []string{shellCall,
			output(`"execution error: Sandbox(Denied { output: ExecToolCallOutput { exit_code: 1, stdout: StreamOutput { text: \"\", truncated_after_lines: None }, stderr: StreamOutput { text: \"touch: /etc/x: Operation not permitted\\n\", truncated_after_lines: None }, aggregated_output: StreamOutput { text: \"touch: /etc/x: Operation not permitted\\n\", truncated_after_lines: None }, duration: 12ms, timed_out: false } })"`)},
			`result c1 failed exit=1 "touch: /etc/x: Operation not permitted"`},
		{"sandbox denial in exec_command_end", []string{shellCall,
			`{"timestamp":"2026-01-01T10:00:03Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"c1","exit_code":-1,"status":"failed","aggregated_output":"execution error: Sandbox(Denied { output: ExecToolCallOutput { exit_code: 1, stdout: StreamOutput { text: \"\", truncated_after_lines: None }, stderr: StreamOutput { text: \"touch: /etc/x: Operation not permitted\\n\", truncated_after_lines: None } } })"}}`},
			`result c1 failed exit=1 "touch: /etc/x: Operation not permitted"`},
		{"sandbox signal", []string{shellCall,
			output(`"execution error: Sandbox(Signal(9))"`)},
			`result c1 failed "execution error: Sandbox(Signal(9))"`},
		{"unified exec sandbox denial", []string{execCall,
			output(`"exec_command failed: SandboxDenied { message: \"curl: (6) Could not resolve host: example.com\", output: ExecToolCallOutput { exit_code: 6, stdout: StreamOutput { text: \"\", truncated_after_lines: None }, stderr: StreamOutput { text: \"\", truncated_after_lines: None } } }"`)},
			`result c1 failed exit=6 "curl: (6) Could not resolve host: example.com"`},
		{"escalation refused by the approval policy", []string{shellCall,
			output(`"approval policy is Never; reject command — you cannot ask for escalated permissions if the approval policy is Never"`)},
			`result c1 failed "approval policy is Never; reject command — you cannot ask for escalated permissions if the approval policy is Never"`},
		{"command policy on Windows", []string{
			`{"timestamp":"2026-01-01T10:00:02Z","type":"response_item","payload":{"type":"function_call","name":"shell_command","arguments":"{\"command\":\"Remove-Item -LiteralPath 'probe.tmp' -Force\"}","call_id":"c1"}}`,
			output(`"` + "`" + `\"C:\\WINDOWS\\System32\\WindowsPowerShell\\v1.0\\powershell.exe\" -Command 'Remove-Item -LiteralPath probe.tmp -Force'` + "`" + ` rejected: blocked by policy"`)},
			"result c1 failed \"`\\\"C:\\\\WINDOWS\\\\System32\\\\WindowsPowerShell\\\\v1.0\\\\powershell.exe\\\" -Command 'Remove-Item -LiteralPath probe.tmp -Force'` rejected: blocked by policy\""},
		{"command policy in exec_command_end", []string{execCall,
			`{"timestamp":"2026-01-01T10:00:03Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"c1","exit_code":-1,"status":"declined","aggregated_output":"` + "`curl -sS https://example.com` rejected: blocked by policy" + `"}}`},
			"result c1 failed exit=-1 \"`curl -sS https://example.com` rejected: blocked by policy\""},
		{"network policy", []string{execCall,
			output(`"Network access to \"https://example.com:443\" was blocked: domain is not on the allowlist for the current sandbox mode."`)},
			`result c1 failed "Network access to \"https://example.com:443\" was blocked: domain is not on the allowlist for the current sandbox mode."`},
		{"automatic reviewer", []string{shellCall,
			output(`"Guardian rejected this action due to unacceptable risk. The agent must not attempt to achieve the same outcome via workaround."`)},
			`result c1 failed "Guardian rejected this action due to unacceptable risk. The agent must not attempt to achieve the same outcome via workaround."`},
		{"a command that could not start says nothing of the command", []string{shellCall,
			output(`"execution error: Io(Os { code: 2, kind: NotFound, message: \"No such file or directory\" })"`)},
			`result c1  "execution error: Io(Os { code: 2, kind: NotFound, message: \"No such file or directory\" })"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := results(codexRollout(t, tc.lines)); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// TestPatchRewriteIsAnUpdate: a patch (or one call) that deletes a file
// and adds it again rewrote it; it did not remove it.
func TestPatchRewriteIsAnUpdate(t *testing.T) {
	patch := `*** Begin Patch\n*** Delete File: cfg.yaml\n*** Add File: cfg.yaml\n+port: 8080\n*** Delete File: old.txt\n*** End Patch`
	cases := []struct {
		name  string
		lines []string
	}{
		{"output only", []string{
			`{"timestamp":"2026-01-01T10:00:02Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","call_id":"c1","input":"` + patch + `"}}`,
			`{"timestamp":"2026-01-01T10:00:03Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c1","output":"Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nA cfg.yaml\nD cfg.yaml\nD old.txt\n"}}`,
		}},
		{"patch_apply_end keeps one of the two", []string{
			`{"timestamp":"2026-01-01T10:00:02Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","call_id":"c1","input":"` + patch + `"}}`,
			`{"timestamp":"2026-01-01T10:00:03Z","type":"event_msg","payload":{"type":"patch_apply_end","call_id":"c1","success":true,"changes":{"/w/cfg.yaml":{"type":"add","content":"port: 8080\n"},"/w/old.txt":{"type":"delete","content":"x"}}}}`,
			`{"timestamp":"2026-01-01T10:00:03Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c1","output":"Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess.\n"}}`,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			evs := codexRollout(t, tc.lines)
			var got []string
			for _, e := range evs {
				if e.Kind == EventFileChange {
					got = append(got, e.FileOp+" "+e.FilePath[strings.LastIndexByte(e.FilePath, '/')+1:])
				}
			}
			if want := "update cfg.yaml|delete old.txt"; strings.Join(got, "|") != want {
				t.Errorf("got %q, want %q", strings.Join(got, "|"), want)
			}
		})
	}
}

// TestClaudeWriteSaysWhatItDid: Write creates or replaces a file; its
// result's toolUseResult.type says which, and without one the change is
// left a "write" for the extractor to tell apart.
func TestClaudeWriteSaysWhatItDid(t *testing.T) {
	line := func(typ, uuid, parent, msg, extra string) string {
		return `{"type":"` + typ + `","uuid":"` + uuid + `","parentUuid":` + parent + `,"sessionId":"s-w","cwd":"/w","timestamp":"2026-01-01T10:00:00Z","message":` + msg + extra + `}`
	}
	lines := []string{
		line("user", "u1", "null", `{"role":"user","content":"rewrite the config"}`, ""),
		line("assistant", "a1", `"u1"`, `{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"/w/cfg.yaml","content":"port: 8080\n"}}]}`, ""),
		line("user", "u2", `"a1"`, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"The file /w/cfg.yaml has been updated."}]}`, `,"toolUseResult":{"type":"update","filePath":"/w/cfg.yaml","content":"port: 8080\n"}`),
		line("assistant", "a2", `"u2"`, `{"id":"m2","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Write","input":{"file_path":"/w/new.yaml","content":"a: 1\n"}}]}`, ""),
		line("user", "u3", `"a2"`, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"File created successfully at: /w/new.yaml"}]}`, `,"toolUseResult":{"type":"create","filePath":"/w/new.yaml","content":"a: 1\n"}`),
		line("assistant", "a3", `"u3"`, `{"id":"m3","role":"assistant","content":[{"type":"tool_use","id":"t3","name":"Write","input":{"file_path":"/w/other.yaml","content":"b: 2\n"}}]}`, ""),
		line("user", "u4", `"a3"`, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t3","content":"ok"}]}`, ""),
	}
	p := writeFile(t, t.TempDir(), "projects/-w/s-w.jsonl", strings.Join(lines, "\n")+"\n")
	evs, _ := collectEvents(t, File{Kind: KindClaudeCode, Path: p})
	var got []string
	for _, e := range evs {
		if e.Kind == EventFileChange {
			got = append(got, e.FileOp+" "+e.FilePath)
		}
	}
	if want := "update /w/cfg.yaml|add /w/new.yaml|write /w/other.yaml"; strings.Join(got, "|") != want {
		t.Errorf("got %q, want %q", strings.Join(got, "|"), want)
	}
}

// TestPatchMoveIsTheNewPath: an update that moves its file leaves it under
// the new name and deletes the old one, in the patch as in patch_apply_end.
func TestPatchMoveIsTheNewPath(t *testing.T) {
	patch := `*** Begin Patch\n*** Update File: old/name.go\n*** Move to: new/name.go\n@@\n-a\n+b\n*** End Patch`
	call := `{"timestamp":"2026-01-01T10:00:02Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","call_id":"c1","input":"` + patch + `"}}`
	out := `{"timestamp":"2026-01-01T10:00:03Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c1","output":"Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess.\n"}}`
	end := `{"timestamp":"2026-01-01T10:00:03Z","type":"event_msg","payload":{"type":"patch_apply_end","call_id":"c1","success":true,"changes":{"/w/old/name.go":{"type":"update","unified_diff":"","move_path":"/w/new/name.go"}}}}`
	for name, lines := range map[string][]string{"output only": {call, out}, "patch_apply_end": {call, end, out}} {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, e := range codexRollout(t, lines) {
				if e.Kind == EventFileChange {
					got = append(got, e.FileOp+" "+strings.TrimPrefix(e.FilePath, "/w/")+" "+e.Old+"->"+e.New)
				}
			}
			if want := "delete old/name.go ->|update new/name.go a\n->b\n"; strings.Join(got, "|") != want {
				t.Errorf("got %q, want %q", strings.Join(got, "|"), want)
			}
		})
	}
}

// TestClaudeResultShapes reads each shape in which Claude Code records how
// a call ended, one synthetic session per shape.
func TestClaudeResultShapes(t *testing.T) {
	const sid = `"sessionId":"s-r","cwd":"/p"`
	bash := `{"type":"assistant",` + sid + `,"message":{"role":"assistant","content":[{"type":"tool_use","id":"b1","name":"Bash","input":{"command":"curl -sS https://example.com"}}]}}`
	result := func(content, extra string) string {
		return `{"type":"user",` + sid + `,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"b1","content":` + content + `}]}` + extra + `}`
	}
	cases := []struct{ name, line, want string }{
		{"exit code framed as an error", result(`"Error: Exit code 6\ncurl: (6) Could not resolve host: example.com","is_error":true`, ""),
			`result b1 failed exit=6 "curl: (6) Could not resolve host: example.com"`},
		{"exit code", result(`"Exit code 6\ncurl: (6) Could not resolve host: example.com","is_error":true`, ""),
			`result b1 failed exit=6 "curl: (6) Could not resolve host: example.com"`},
		{"error flag without exit code", result(`"curl: (6) Could not resolve host: example.com","is_error":true`, ""),
			`result b1 failed "curl: (6) Could not resolve host: example.com"`},
		{"error flag in blocks", result(`[{"type":"text","text":"Operation not permitted"}],"is_error":true`, ""),
			`result b1 failed "Operation not permitted"`},
		{"no error flag", result(`"<html>"`, ""), `result b1 ok "<html>"`},
		{"interrupted by the harness record", result(`"partial output"`, `,"toolUseResult":{"stdout":"partial output","stderr":"","interrupted":true}`),
			`result b1 interrupted "partial output"`},
		{"permission rule", result(`"Permission to use Bash with command curl -sS https://example.com has been denied.","is_error":true`, ""),
			`result b1 denied "Permission to use Bash with command curl -sS https://example.com has been denied."`},
		{"permission not granted", result(`"Claude requested permissions to use Bash, but you haven't granted it yet.","is_error":true`, ""),
			`result b1 denied "Claude requested permissions to use Bash, but you haven't granted it yet."`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lines := []string{`{"type":"user",` + sid + `,"message":{"role":"user","content":"fetch it"}}`, bash, tc.line}
			p := writeFile(t, t.TempDir(), "proj/s-r.jsonl", strings.Join(lines, "\n")+"\n")
			evs, _ := collectEvents(t, File{Kind: KindClaudeCode, Path: p})
			if got := results(evs); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}
