package heuristic_test

import (
	"fmt"
	"strings"
)

// claudeLines writes a Claude Code session from its messages, each a role
// and its content as JSON; a tool result that names its call by id says
// whether it is an error.
func claudeLines(msgs ...[2]string) string {
	var b strings.Builder
	for i, m := range msgs {
		fmt.Fprintf(&b, `{"type":%q,"uuid":"u%d","parentUuid":null,"sessionId":"t1","cwd":"/home/dev/src/acme","timestamp":"2026-03-02T09:00:%02d.000Z",`+
			`"message":{"role":%q,"model":"claude-opus-4-7","content":%s}}`+"\n", m[0], i, i, m[0], m[1])
	}
	return b.String()
}

func user(text string) [2]string { return [2]string{"user", fmt.Sprintf("%q", text)} }
func answer(text string) [2]string {
	return [2]string{"assistant", fmt.Sprintf(`[{"type":"text","text":%q}]`, text)}
}
func use(id, tool, input string) [2]string {
	return [2]string{"assistant", fmt.Sprintf(`[{"type":"tool_use","id":%q,"name":%q,"input":%s}]`, id, tool, input)}
}
func result(id, content string, isError bool) [2]string {
	return [2]string{"user", fmt.Sprintf(`[{"type":"tool_result","tool_use_id":%q,"content":%q,"is_error":%v}]`, id, content, isError)}
}

// claudeEditRedone: an edit failed, and a later, different edit of the
// same file succeeded: not the failed call run again.
var claudeEditRedone = claudeLines(
	user("Rename the port setting to listen_port in config.yaml."),
	use("t1", "Edit", `{"file_path":"/home/dev/src/acme/config.yaml","old_string":"port: 8080","new_string":"listen_port: 8080"}`),
	result("t1", "<tool_use_error>String to replace not found in file.\nString: port: 8080</tool_use_error>", true),
	use("t2", "Read", `{"file_path":"/home/dev/src/acme/config.yaml"}`),
	result("t2", "     1\tport:  8080\n", false),
	use("t3", "Edit", `{"file_path":"/home/dev/src/acme/config.yaml","old_string":"port:  8080","new_string":"listen_port: 8080"}`),
	result("t3", "The file /home/dev/src/acme/config.yaml has been updated.", false),
	answer("config.yaml now names the setting listen_port."),
)

// claudeEditRetried: an edit failed and the same edit passed later; the
// shell's looks around between are no change, the in-place rewrite is.
var claudeEditRetried = claudeLines(
	user("Serve on port 8081 in config.yaml."),
	use("t1", "Edit", `{"file_path":"/home/dev/src/acme/config.yaml","old_string":"port: 8080","new_string":"port: 8081"}`),
	result("t1", "<tool_use_error>File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.</tool_use_error>", true),
	use("t2", "Bash", `{"command":"cat config.yaml"}`), result("t2", "port: 8080", false),
	use("t3", "Bash", `{"command":"grep -n port config.yaml"}`), result("t3", "1:port: 8080", false),
	use("t4", "Bash", `{"command":"ls -la"}`), result("t4", "config.yaml", false),
	use("t5", "Bash", `{"command":"head -3 config.yaml"}`), result("t5", "port: 8080", false),
	use("t6", "Bash", `{"command":"sed -Ei 's/[[:space:]]+$//' config.yaml"}`), result("t6", "", false),
	use("t7", "Read", `{"file_path":"/home/dev/src/acme/config.yaml"}`), result("t7", "     1\tport: 8080\n", false),
	use("t8", "Edit", `{"file_path":"/home/dev/src/acme/config.yaml","old_string":"port: 8080","new_string":"port: 8081"}`),
	result("t8", "The file /home/dev/src/acme/config.yaml has been updated.", false),
	answer("config.yaml serves on port 8081."),
)

// codexSandboxFailed: a command the sandbox failed with no exit status.
const codexSandboxFailed = `{"timestamp":"2026-03-02T09:00:00.000Z","type":"session_meta","payload":{"id":"0199a0f0-0000-7000-8000-0000000000q1","timestamp":"2026-03-02T09:00:00.000Z","cwd":"/home/dev/src/acme","originator":"codex_cli_rs","cli_version":"0.40.0","source":"cli","model_provider":"openai"}}
{"timestamp":"2026-03-02T09:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Run the migrations against the local database."}]}}
{"timestamp":"2026-03-02T09:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"Run the migrations against the local database.","images":[]}}
{"timestamp":"2026-03-02T09:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"make migrate\"]}","call_id":"call_1"}}
{"timestamp":"2026-03-02T09:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"failed in sandbox: psql: error: connection to server on socket \"/tmp/.s.PGSQL.5432\" failed: Operation not permitted"}}
{"timestamp":"2026-03-02T09:00:04.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"The sandbox kept make migrate from reaching the database socket."}]}}
`
