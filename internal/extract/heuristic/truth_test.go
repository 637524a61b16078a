package heuristic_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/extract"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/sessions/scripted"
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

// TestMemoryIsWholeText guards that the memory never holds part of a
// character, even when the transcript does (a tool's output cut
// mid-character), and that an answer shortened to its budget keeps whole
// sentences of the agent's, whatever characters stand at their ends. (The
// cap after the budget: internal/extract's TestOfflineCapKeepsWholeItems.)
func TestMemoryIsWholeText(t *testing.T) {
	sentences := []string{"Le “cache” garde la clé.", "日本語のテストは通ります。", "Émile’s fix 🙂 holds!", "The “naïve” path is gone?", "Café ☕ au lait."}
	var answer []string
	for i := range 60 {
		answer = append(answer, strings.Repeat("é", i%5)+sentences[i%len(sentences)])
	}
	codex := `{"timestamp":"2026-03-02T09:00:00.000Z","type":"session_meta","payload":{"id":"0199a0f0-0000-7000-8000-0000000000q1","timestamp":"2026-03-02T09:00:00.000Z","cwd":"/home/dev/src/acme","originator":"codex_cli_rs","cli_version":"0.40.0","source":"cli","model_provider":"openai"}}
{"timestamp":"2026-03-02T09:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Run the Japanese locale tests."}]}}
{"timestamp":"2026-03-02T09:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"Run the Japanese locale tests.","images":[]}}
{"timestamp":"2026-03-02T09:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"make test-ja\"]}","call_id":"call_1"}}
{"timestamp":"2026-03-02T09:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"{\"output\":\"locale_test.go:9: got \\\"日本\xe8\xaa\", want \\\"日本語\\\"\\nFAIL\",\"metadata\":{\"exit_code\":1}}"}}
` + fmt.Sprintf(`{"timestamp":"2026-03-02T09:00:04.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":%q}]}}`, strings.Join(answer, " ")) + "\n"
	dir := t.TempDir()
	p := filepath.Join(dir, "rollout-2026-03-02T09-00-00-0199a0f0-0000-7000-8000-0000000000q1.jsonl")
	if err := os.WriteFile(p, []byte(codex), 0o600); err != nil {
		t.Fatal(err)
	}
	raw, summary := memoryParts(t, sessions.KindCodex, p, extract.V1)
	for name, text := range map[string]string{"raw memory": raw, "rollout summary": summary} {
		if !utf8.ValidString(text) || strings.ContainsRune(text, utf8.RuneError) {
			t.Errorf("the %s holds part of a character:\n%s", name, indent(text))
		}
	}
	m := regexp.MustCompile(`(?m)^- Final answer: “(.*)”$`).FindStringSubmatch(raw)
	if m == nil {
		t.Fatalf("no final answer in the raw memory:\n%s", indent(raw))
	}
	for _, s := range regexp.MustCompile(`[^.!?。]+[.!?。]`).FindAllString(m[1], -1) {
		if s = strings.TrimSpace(s); !slices.Contains(answer, s) {
			t.Errorf("the final answer holds %q, no whole sentence of the agent's", s)
		}
	}
}

// codexAnswerAfterSubAgent: the agent's answer follows a sub-agent's result and is the rollout's last line (no
// task_complete came); an earlier message carried a phase, so the reader does not mark this one final.
const codexAnswerAfterSubAgent = `{"timestamp":"2026-03-02T09:00:00.000Z","type":"session_meta","payload":{"id":"0199a0f0-0000-7000-8000-0000000000s1","timestamp":"2026-03-02T09:00:00.000Z","cwd":"/home/dev/src/acme","originator":"codex_cli_rs","cli_version":"0.40.0","source":"cli","model_provider":"openai"}}
{"timestamp":"2026-03-02T09:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Find where the retry budget is configured."}]}}
{"timestamp":"2026-03-02T09:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"Find where the retry budget is configured.","images":[]}}
{"timestamp":"2026-03-02T09:00:02.000Z","type":"response_item","payload":{"type":"message","role":"assistant","phase":"commentary","content":[{"type":"output_text","text":"I will ask a sub-agent to search the code."}]}}
{"timestamp":"2026-03-02T09:00:03.000Z","type":"response_item","payload":{"type":"function_call","name":"spawn_agent","arguments":"{\\"message\\":\\"find the retry budget\\"}","call_id":"call_1"}}
{"timestamp":"2026-03-02T09:00:04.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"net/retry.go sets maxAttempts = 5."}}
{"timestamp":"2026-03-02T09:00:05.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"The retry budget is set in net/retry.go as maxAttempts = 5."}]}}
`

// TestSearchMatchesAreNoErrorLine: a failed search quotes only what its programs report about themselves; its
// matches, or anything a line printed with its errors sent away, are data that may say "missing" or "file:12:".
func TestSearchMatchesAreNoErrorLine(t *testing.T) {
	matches := "src/net/client.go:41: // retry when the token is missing\nsrc/net/client.go:88: return errors.New(\"not found\")"
	tc := patternCase{turns: []scripted.Turn{{User: "Find where the token is read.",
		Steps: []scripted.Step{
			run("grep -rn token src tests 2>/dev/null; ls config/extra 2>/dev/null", matches, 2),
			run("rg -n token src docs", matches+"\nrg: docs: No such file or directory (os error 2)", 2)},
		Final: "src/net/client.go reads the token."}}}
	for _, kind := range []sessions.Kind{sessions.KindClaudeCode, sessions.KindCodex} {
		text := memoryOf(t, kind, writePattern(t, tc, kind))
		if !regexp.MustCompile("`rg -n token src docs` failed[^\n]*\\(`rg: docs: No such file or directory").MatchString(text) {
			t.Errorf("%s: the search's own report is not quoted:\n%s", kind, indent(text))
		}
		if m := regexp.MustCompile("failed[^\n]*(missing|not found|client\\.go:)").FindString(text); m != "" {
			t.Errorf("%s: a match is quoted as the error: %q\n%s", kind, m, indent(text))
		}
	}
}
