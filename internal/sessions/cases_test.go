package sessions

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func collectEvents(t *testing.T, f File) ([]Event, []Problem) {
	t.Helper()
	var evs []Event
	probs, err := Events(f, func(e Event) error { evs = append(evs, e); return nil })
	if err != nil {
		t.Fatal(err)
	}
	return evs, probs
}

// describe renders events compactly for comparison.
func describe(evs []Event) string {
	var b strings.Builder
	for _, e := range evs {
		fmt.Fprintf(&b, "%s", e.Kind)
		if e.Final {
			b.WriteString("(final)")
		}
		for _, s := range []string{e.Text, e.Tool, e.Command, e.CallID, e.FilePath, e.FileOp} {
			if s != "" {
				fmt.Fprintf(&b, " %q", s)
			}
		}
		if e.ExitCode != nil {
			fmt.Fprintf(&b, " exit=%d", *e.ExitCode)
		}
		if e.IsError {
			b.WriteString(" error")
		}
		b.WriteString("\n")
	}
	return b.String()
}

const codexEnvelopeCase = `{"timestamp":"2026-01-01T10:00:00.000Z","type":"session_meta","payload":{"id":"11111111-2222-3333-4444-555555555555","timestamp":"2026-01-01T10:00:00.000Z","cwd":"/w","source":{"subagent":{"thread_spawn":{"parent_thread_id":"99999999-2222-3333-4444-555555555555","depth":1}}},"memory_mode":"enabled","git":{"branch":"main"}}}
{"timestamp":"2026-01-01T10:00:01.000Z","type":"turn_context","payload":{"cwd":"/w","model":"gpt-x"}}
{"timestamp":"2026-01-01T10:00:02.000Z","type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"<permissions instructions>x</permissions instructions>"}]}}
{"timestamp":"2026-01-01T10:00:02.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>be nice</INSTRUCTIONS>"},{"type":"input_text","text":"<environment_context><cwd>/w</cwd></environment_context>"}]}}
{"timestamp":"2026-01-01T10:00:03.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"fix the build"}]}}
{"timestamp":"2026-01-01T10:00:03.000Z","type":"event_msg","payload":{"type":"user_message","message":"fix the build","images":[]}}
{"timestamp":"2026-01-01T10:00:04.000Z","type":"response_item","payload":{"type":"reasoning","summary":[],"encrypted_content":"gAAAA"}}
{"timestamp":"2026-01-01T10:00:05.000Z","type":"response_item","payload":{"type":"message","role":"assistant","phase":"commentary","content":[{"type":"output_text","text":"Looking."}]}}
{"timestamp":"2026-01-01T10:00:06.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"make\"]}","call_id":"c1"}}
{"timestamp":"2026-01-01T10:00:07.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"boom\",\"metadata\":{\"exit_code\":2,\"duration_seconds\":0.1}}"}}
{"timestamp":"2026-01-01T10:00:07.500Z","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"**Reading the failure**"},{"type":"summary_text","text":"make fails because the generated file is stale."}],"encrypted_content":"gAAAA"}}
{"timestamp":"2026-01-01T10:00:08.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"go test ./...\"}","call_id":"c2"}}
{"timestamp":"2026-01-01T10:00:09.000Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"c2","exit_code":0,"aggregated_output":"ok"}}
{"timestamp":"2026-01-01T10:00:10.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":"Chunk ID: 1\nProcess exited with code 0\nOutput:\nok"}}
{"timestamp":"2026-01-01T10:00:11.000Z","type":"response_item","payload":{"type":"local_shell_call","call_id":"c3","status":"completed","action":{"type":"exec","command":["ls","-la"]}}}
{"timestamp":"2026-01-01T10:00:12.000Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","call_id":"c4","input":"*** Begin Patch\n*** Add File: a.go\n+x\n*** Update File: b.go\n@@\n*** Delete File: c.go\n*** End Patch"}}
{"timestamp":"2026-01-01T10:00:13.000Z","type":"event_msg","payload":{"type":"patch_apply_end","call_id":"c4","success":true,"changes":{"a.go":{"type":"add","content":"x"}}}}
{"timestamp":"2026-01-01T10:00:13.500Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c4","output":"Success"}}
{"timestamp":"2026-01-01T10:00:14.000Z","type":"event_msg","payload":{"type":"patch_apply_end","call_id":"c5","success":true,"changes":{"d.go":{"type":"delete"}}}}
{"timestamp":"2026-01-01T10:00:15.000Z","type":"response_item","payload":{"type":"web_search_call","status":"completed","action":{"type":"search","query":"q"}}}
{"timestamp":"2026-01-01T10:00:16.000Z","type":"response_item","payload":{"type":"ghost_snapshot","ghost_commit":{"id":"x"}}}
{"timestamp":"2026-01-01T10:00:17.000Z","type":"compacted","payload":{"message":"summary of earlier work"}}
{"timestamp":"2026-01-01T10:00:18.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]}}
{"timestamp":"2026-01-01T10:00:18.100Z","type":"event_msg","payload":{"type":"agent_message","message":"Done."}}
{"timestamp":"2026-01-01T10:00:19.000Z","type":"event_msg","payload":{"type":"task_complete","last_agent_message":"Done."}}
{"timestamp":"2026-01-01T10:00:20.000Z","type":"world_state","payload":{"full":true,"state":{}}}
{"timestamp":"2026-01-01T10:00:21.000Z","type":"session_meta","payload":{"id":"00000000-0000-0000-0000-000000000000","cwd":"/other","memory_mode":"disabled"}}
{"timestamp":"2026-01-01T10:00:22.000Z","type":"session_meta","payload":{"id":"11111111-2222-3333-4444-555555555555","cwd":"/ignored","memory_mode":"polluted"}}
`

func TestCodexEnvelopeCase(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "rollout-2026-01-01T10-00-00-11111111-2222-3333-4444-555555555555.jsonl", codexEnvelopeCase)
	f := File{Kind: KindCodex, Path: p}
	m, probs, err := ReadMeta(f)
	if err != nil || len(probs) > 0 {
		t.Fatal(err, probs)
	}
	if m.ID != "11111111-2222-3333-4444-555555555555" || m.Cwd != "/w" || !m.Subagent || m.Interactive ||
		m.ParentID != "99999999-2222-3333-4444-555555555555" || m.MemoryMode != "polluted" ||
		m.Source != `{"subagent":{"thread_spawn":{"parent_thread_id":"99999999-2222-3333-4444-555555555555","depth":1}}}` ||
		m.Preview != "fix the build" || m.Model != "gpt-x" || !m.UsedExternalContext || m.GitBranch != "main" ||
		!m.UpdatedAt.Equal(mustTime("2026-01-01T10:00:22Z")) {
		t.Errorf("meta: %+v", m)
	}
	evs, _ := collectEvents(t, f)
	want := `context "<permissions instructions>x</permissions instructions>"
context "# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>be nice</INSTRUCTIONS>"
context "<environment_context><cwd>/w</cwd></environment_context>"
human "fix the build"
assistant "Looking."
tool_call "shell" "make" "c1"
tool_result "c1" exit=2 error
reasoning "**Reading the failure**\n\nmake fails because the generated file is stale."
tool_call "exec_command" "go test ./..." "c2"
tool_result "exec_command" "c2" exit=0
tool_call "local_shell_call" "ls -la" "c3"
tool_call "apply_patch" "c4"
file_change "apply_patch" "c4" "a.go" "add"
tool_result "c4"
file_change "apply_patch" "c5" "d.go" "delete"
tool_call "web_search"
compaction "summary of earlier work"
assistant(final) "Done."
`
	if got := describe(evs); got != want {
		t.Errorf("events:\n%s\nwant:\n%s", got, want)
	}
	// The reasoning summary is read for the offline extractor only.
	in, err := PrepareInput(f, InputOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(in, "generated file is stale") {
		t.Errorf("the model input keeps the reasoning summary:\n%s", in)
	}
}

const codexLegacyCase = `{"id":"22222222-2222-3333-4444-555555555555","timestamp":"2025-07-01T09:00:00.000Z","instructions":null,"git":{"commit_hash":"abc","branch":"dev","repository_url":"https://x/y.git"}}
{"record_type":"state"}
{"type":"message","role":"user","content":[{"type":"input_text","text":"<user_instructions>\nrules\n</user_instructions>"}]}
{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n<cwd>/l</cwd>\n</environment_context>"}]}
{"type":"message","role":"user","content":[{"type":"input_text","text":"Context blah\n## My request for Codex:\nrename foo to bar\n"}]}
{"record_type":"state","previous_response_id":"r1"}
{"type":"function_call","name":"shell","arguments":"{\"command\":[\"rg\",\"foo bar\"]}","call_id":"x1"}
{"type":"function_call_output","call_id":"x1","output":"{\"output\":\"\",\"metadata\":{\"exit_code\":1}}"}
{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Renamed."}]}
`

func TestCodexLegacyCase(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "rollout-2025-07-01T11-00-00-22222222-2222-3333-4444-555555555555.jsonl", codexLegacyCase)
	f := File{Kind: KindCodex, Path: p}
	m, probs, err := ReadMeta(f)
	if err != nil || len(probs) > 0 {
		t.Fatal(err, probs)
	}
	if m.ID != "22222222-2222-3333-4444-555555555555" || m.Source != "vscode" || !m.Interactive ||
		m.Preview != "rename foo to bar" || m.GitSHA != "abc" || m.GitBranch != "dev" || m.GitRemote != "https://x/y.git" ||
		!m.CreatedAt.Equal(mustTime("2025-07-01T09:00:00Z")) {
		t.Errorf("meta: %+v", m)
	}
	evs, _ := collectEvents(t, f)
	want := `context "<user_instructions>\nrules\n</user_instructions>"
context "<environment_context>\n<cwd>/l</cwd>\n</environment_context>"
human "rename foo to bar"
tool_call "shell" "rg 'foo bar'" "x1"
tool_result "x1" exit=1 error
assistant(final) "Renamed."
`
	if got := describe(evs); got != want {
		t.Errorf("events:\n%s\nwant:\n%s", got, want)
	}
}

func TestCodexDocumentAndZstd(t *testing.T) {
	dir := t.TempDir()
	doc := `{"session":{"timestamp":"2025-04-01T08:00:00Z","id":"33333333-2222-3333-4444-555555555555","instructions":""},
  "items":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hello there"}]},
           {"type":"message","role":"assistant","content":[{"type":"output_text","text":"hi"}]}]}`
	p := writeFile(t, dir, "rollout-2025-04-01-33333333-2222-3333-4444-555555555555.json", doc)
	m, probs, err := ReadMeta(File{Kind: KindCodex, Path: p})
	if err != nil || len(probs) > 0 || m.ID != "33333333-2222-3333-4444-555555555555" || m.Preview != "hello there" {
		t.Errorf("json document: %+v %v %v", m, probs, err)
	}

	// .jsonl.zst round trip of a real fixture.
	src := realCodex + "/2026/05/11/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	enc, _ := zstd.NewWriter(nil)
	zp := filepath.Join(dir, "z", filepath.Base(src)+".zst")
	os.MkdirAll(filepath.Dir(zp), 0o755)
	if err := os.WriteFile(zp, enc.EncodeAll(raw, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	plain, _, _ := ReadMeta(File{Kind: KindCodex, Path: src})
	zm, probs, err := ReadMeta(File{Kind: KindCodex, Path: zp})
	if err != nil || len(probs) > 0 {
		t.Fatal(err, probs)
	}
	plain.Path = zm.Path
	if zm != plain {
		t.Errorf("zst meta differs:\n%+v\n%+v", zm, plain)
	}
	a, _ := PrepareInput(File{Kind: KindCodex, Path: src}, InputOptions{})
	b, _ := PrepareInput(File{Kind: KindCodex, Path: zp}, InputOptions{})
	if a != b || a == "" {
		t.Error("zst input differs from plain input")
	}
	// Both a plain file and its .zst twin: the plain one wins.
	os.WriteFile(filepath.Join(dir, "z", filepath.Base(src)), raw, 0o644)
	n := 0
	Discover(context.Background(), Source{Kind: KindCodex, Path: filepath.Join(dir, "z")}, func(f File) error {
		n++
		if strings.HasSuffix(f.Path, ".zst") {
			t.Error("compressed twin yielded")
		}
		return nil
	})
	if n != 1 {
		t.Errorf("yielded %d files", n)
	}
}

const claudeCase = `{"type":"summary","summary":"Title","leafUuid":"x"}
{"type":"user","sessionId":"44444444-2222-3333-4444-555555555555","cwd":"/c","gitBranch":"HEAD","timestamp":"2026-02-01T10:00:00Z","isSidechain":false,"message":{"role":"user","content":"<command-message>review is running…</command-message>\n<command-name>/review</command-name>\n<command-args>pr 12</command-args>"}}
{"type":"user","sessionId":"44444444-2222-3333-4444-555555555555","timestamp":"2026-02-01T10:00:01Z","isMeta":true,"message":{"role":"user","content":[{"type":"text","text":"Expanded review prompt"}]}}
{"type":"user","sessionId":"44444444-2222-3333-4444-555555555555","timestamp":"2026-02-01T10:00:02Z","message":{"role":"user","content":"<system-reminder>CLAUDE.md says hi</system-reminder>\nplease add tests"}}
{"type":"assistant","sessionId":"44444444-2222-3333-4444-555555555555","timestamp":"2026-02-01T10:00:03Z","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"thinking","thinking":"hmm","signature":"s"}]}}
{"type":"assistant","sessionId":"44444444-2222-3333-4444-555555555555","timestamp":"2026-02-01T10:00:03Z","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"text","text":"I'll look."}]}}
{"type":"assistant","sessionId":"44444444-2222-3333-4444-555555555555","timestamp":"2026-02-01T10:00:04Z","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"go test ./..."}}]}}
{"type":"user","sessionId":"44444444-2222-3333-4444-555555555555","timestamp":"2026-02-01T10:00:05Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"FAIL","is_error":true}]}}
{"type":"assistant","sessionId":"44444444-2222-3333-4444-555555555555","timestamp":"2026-02-01T10:00:06Z","message":{"id":"m2","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"t2","name":"Edit","input":{"file_path":"/c/a_test.go","old_string":"a","new_string":"b"}}]}}
{"type":"user","sessionId":"44444444-2222-3333-4444-555555555555","timestamp":"2026-02-01T10:00:07Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":"ok"}]}]}}
{"type":"assistant","sessionId":"44444444-2222-3333-4444-555555555555","timestamp":"2026-02-01T10:00:08Z","message":{"id":"m3","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"t3","name":"mcp__gh__search","input":{}}]}}
{"type":"system","subtype":"compact_boundary","sessionId":"44444444-2222-3333-4444-555555555555","timestamp":"2026-02-01T10:00:09Z","content":"Conversation compacted"}
{"type":"user","sessionId":"44444444-2222-3333-4444-555555555555","timestamp":"2026-02-01T10:00:10Z","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued. Summary: tests added."}}
{"type":"assistant","sessionId":"44444444-2222-3333-4444-555555555555","timestamp":"2026-02-01T10:00:11Z","message":{"id":"m4","role":"assistant","model":"claude-x","content":[{"type":"text","text":"All green."}]}}
{"type":"user","sessionId":"44444444-2222-3333-4444-555555555555","timestamp":"2026-02-01T10:00:12Z","message":{"role":"user","content":"thanks"}}
{"type":"file-history-snapshot","messageId":"x","snapshot":{}}
{"type":"brand-new-type","foo":1}
`

func TestClaudeCase(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "proj/44444444-2222-3333-4444-555555555555.jsonl", claudeCase)
	f := File{Kind: KindClaudeCode, Path: p}
	m, probs, err := ReadMeta(f)
	if err != nil || len(probs) > 0 {
		t.Fatal(err, probs)
	}
	if m.ID != "44444444-2222-3333-4444-555555555555" || m.Preview != "please add tests" || m.Cwd != "/c" ||
		m.GitBranch != "" || !m.UsedExternalContext || m.Model != "claude-x" || !m.Interactive {
		t.Errorf("meta: %+v", m)
	}
	evs, _ := collectEvents(t, f)
	want := `context "<command-message>review is running…</command-message>\n<command-name>/review</command-name>\n<command-args>pr 12</command-args>"
human "/review pr 12"
context "Expanded review prompt"
context "<system-reminder>CLAUDE.md says hi</system-reminder>"
human "please add tests"
reasoning "hmm"
assistant "I'll look."
tool_call "Bash" "go test ./..." "t1"
tool_result "t1" error
tool_call "Edit" "t2" "/c/a_test.go"
tool_result "t2"
file_change "Edit" "t2" "/c/a_test.go" "update"
tool_call "mcp__gh__search" "t3"
compaction
compaction "This session is being continued. Summary: tests added."
assistant(final) "All green."
human "thanks"
`
	if got := describe(evs); got != want {
		t.Errorf("events:\n%s\nwant:\n%s", got, want)
	}
	in, err := PrepareInput(f, InputOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"please add tests"`, `"function_call"`, `"Bash"`, `Summary: tests added.`, `"phase":"final_answer"`} {
		if !strings.Contains(in, s) {
			t.Errorf("v1 input lacks %s:\n%s", s, in)
		}
	}
	for _, s := range []string{"hmm", "CLAUDE.md says hi"} {
		if strings.Contains(in, s) {
			t.Errorf("v1 input keeps %q", s)
		}
	}
}

const jsonlCase = `{"type":"session","id":"run-1","cwd":"/j","source":"cli","timestamp":"2026-03-01T10:00:00Z","git_branch":"main","model":"m1"}
{"type":"message","role":"user","text":"  summarise the logs  ","timestamp":"2026-03-01T10:00:01Z"}
{"type":"tool_call","id":"k1","name":"shell","command":"cat log.txt","input":{"path":"log.txt"}}
{"type":"tool_result","id":"k1","output":"lines","exit_code":3}
{"type":"file_change","id":"k1","path":"out.md","op":"add"}
{"type":"message","role":"assistant","text":"Summary written.","final":true,"timestamp":"2026-03-01T10:00:09Z"}
{"type":"future_thing","x":1}
`

func TestJSONLCase(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "a/run.jsonl", jsonlCase)
	f := File{Kind: KindJSONL, Path: p}
	m, probs, err := ReadMeta(f)
	if err != nil || len(probs) > 0 {
		t.Fatal(err, probs)
	}
	if m.ID != "run-1" || m.Cwd != "/j" || m.Preview != "summarise the logs" || m.GitBranch != "main" || !m.Interactive ||
		!m.UpdatedAt.Equal(mustTime("2026-03-01T10:00:09Z")) || m.Model != "m1" {
		t.Errorf("meta: %+v", m)
	}
	evs, _ := collectEvents(t, f)
	want := `human "  summarise the logs  "
tool_call "shell" "cat log.txt" "k1"
tool_result "k1" exit=3 error
file_change "k1" "out.md" "add"
assistant(final) "Summary written."
`
	if got := describe(evs); got != want {
		t.Errorf("events:\n%s\nwant:\n%s", got, want)
	}
	n := 0
	Discover(context.Background(), Source{Kind: KindJSONL, Path: dir}, func(File) error { n++; return nil })
	if n != 1 {
		t.Errorf("discovered %d", n)
	}
}

func TestBrokenCorpus(t *testing.T) {
	dir := t.TempDir()
	meta := `{"timestamp":"2026-01-01T10:00:00Z","type":"session_meta","payload":{"id":"55555555-2222-3333-4444-555555555555","cwd":"/b","source":"cli"}}`
	user := `{"timestamp":"2026-01-01T10:00:05Z","type":"event_msg","payload":{"type":"user_message","message":"still here"}}`
	huge := `{"timestamp":"2026-01-01T10:00:06Z","type":"response_item","payload":{"type":"function_call_output","call_id":"h","output":"` + strings.Repeat("x", 20<<20) + `"}}`
	deep := strings.Repeat("[", 100000)
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(i*7919 + i/13)
	}
	cases := []struct {
		name      string
		content   string
		wantProbs int // minimum
		preview   string
	}{
		{"truncated", meta + "\n" + `{"timestamp":"2026-01-01T10:00:01Z","type":"response_item","payload":{"type":"mess` + "\n" + user + "\n", 1, "still here"},
		{"invalid-utf8", meta + "\n" + `{"timestamp":"2026-01-01T10:00:01Z","type":"event_msg","payload":{"type":"agent_message","message":"a` + "\xff\xfe" + `"}}` + "\n" + user + "\n", 1, "still here"},
		{"nul", meta + "\n\x00\x00\x00\n" + user + "\n", 1, "still here"},
		{"huge-line", meta + "\n" + huge + "\n" + user + "\n", 0, "still here"},
		{"deep", meta + "\n" + deep + "\n" + user + "\n", 1, "still here"},
		{"wrong-types", meta + "\n" + `{"timestamp":5,"type":"event_msg","payload":{"type":"user_message","message":42}}` + "\n" + `{"type":"session_meta","payload":[1,2]}` + "\n" + user + "\n", 1, "still here"},
		{"unknown", meta + "\n" + `{"timestamp":"2026-01-01T10:00:01Z","type":"hologram","payload":{}}` + "\n" + user + "\n", 0, "still here"},
		{"crlf", strings.ReplaceAll(meta+"\n"+user+"\n", "\n", "\r\n"), 0, "still here"},
		{"empty", "", 1, ""},
		{"random", string(random), 1, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, dir, tc.name+"/rollout-2026-01-01T10-00-00-55555555-2222-3333-4444-555555555555.jsonl", tc.content)
			f := File{Kind: KindCodex, Path: p}
			m, probs, err := ReadMeta(f)
			if err != nil {
				t.Fatal(err)
			}
			if len(probs) < tc.wantProbs {
				t.Errorf("problems %v, want at least %d", probs, tc.wantProbs)
			}
			for _, pr := range probs {
				if pr.Line == 0 && tc.name != "empty" && tc.name != "random" {
					t.Errorf("problem without line number: %+v", pr)
				}
			}
			if m.ID != "55555555-2222-3333-4444-555555555555" || m.Preview != tc.preview {
				t.Errorf("meta: %+v", m)
			}
			collectEvents(t, f)
			if _, err := PrepareInput(f, InputOptions{}); err != nil {
				t.Error(err)
			}
			if _, err := PrepareInput(f, InputOptions{Version: "v2"}); err != nil {
				t.Error(err)
			}
			for _, k := range []Kind{KindClaudeCode, KindJSONL} {
				ReadMeta(File{Kind: k, Path: p})
				Events(File{Kind: k, Path: p}, func(Event) error { return nil })
			}
		})
	}
	// A directory named like a transcript is not a thread.
	os.MkdirAll(filepath.Join(dir, "d", "rollout-x.jsonl"), 0o755)
	Discover(context.Background(), Source{Kind: KindCodex, Path: filepath.Join(dir, "d")}, func(f File) error {
		t.Errorf("yielded %s", f.Path)
		return nil
	})
}

func TestFingerprint(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "f", strings.Repeat("a", 10000))
	a, err := Fingerprint(p)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p, []byte(strings.Repeat("a", 9999)+"b"), 0o644)
	b, _ := Fingerprint(p)
	if a == b || !strings.HasPrefix(a, "10000-") {
		t.Errorf("fingerprints %s %s", a, b)
	}
	small := writeFile(t, dir, "s", "x")
	if c, _ := Fingerprint(small); !strings.HasPrefix(c, "1-") {
		t.Errorf("small: %s", c)
	}
	if _, err := Fingerprint(filepath.Join(dir, "missing")); err == nil {
		t.Error("missing file: no error")
	}
}

// A rollout that marks neither the end of a turn (task_complete) nor its
// final answer (phase) ends a turn when the model answers without calling
// a tool: the answer held back when the user speaks again is that turn's
// final one, and words followed by a tool call are not.
const codexUnmarkedTurns = `{"timestamp":"2025-09-26T17:01:04.000Z","type":"session_meta","payload":{"id":"33333333-2222-3333-4444-555555555555","timestamp":"2025-09-26T17:01:04.000Z","cwd":"/l","originator":"codex_vscode","cli_version":"0.40.0"}}
{"timestamp":"2025-09-26T17:01:05.000Z","type":"event_msg","payload":{"type":"user_message","message":"what is in the readme?","images":[]}}
{"timestamp":"2025-09-26T17:01:06.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Let me read it."}]}}
{"timestamp":"2025-09-26T17:01:07.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"cat\",\"README.md\"]}","call_id":"c1"}}
{"timestamp":"2025-09-26T17:01:08.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"hello\",\"metadata\":{\"exit_code\":0}}"}}
{"timestamp":"2025-09-26T17:01:09.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"It says hello."}]}}
{"timestamp":"2025-09-26T17:01:10.000Z","type":"event_msg","payload":{"type":"user_message","message":"thanks, and the licence?","images":[]}}
{"timestamp":"2025-09-26T17:01:11.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"There is none."}]}}
`

func TestCodexUnmarkedTurnsEndOnTheAnswer(t *testing.T) {
	p := writeFile(t, t.TempDir(), "rollout-2025-09-26T17-01-04-33333333-2222-3333-4444-555555555555.jsonl", codexUnmarkedTurns)
	evs, _ := collectEvents(t, File{Kind: KindCodex, Path: p})
	want := `human "what is in the readme?"
assistant "Let me read it."
tool_call "shell" "cat README.md" "c1"
tool_result "c1" exit=0
assistant(final) "It says hello."
human "thanks, and the licence?"
assistant(final) "There is none."
`
	if got := describe(evs); got != want {
		t.Errorf("events:\n%s\nwant:\n%s", got, want)
	}
}
