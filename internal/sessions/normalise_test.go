package sessions

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// outcomes renders the normalised meaning of each event: what a call
// does, how it ended, what changed. These are the facts the extractor
// builds on, so they are checked per agent here.
func outcomes(evs []Event) string {
	var b strings.Builder
	for _, e := range evs {
		switch e.Kind {
		case EventToolCall:
			fmt.Fprintf(&b, "call %s %s", e.CallID, e.Action)
			if e.Command != "" {
				fmt.Fprintf(&b, " %q", e.Command)
			}
			if e.FilePath != "" {
				fmt.Fprintf(&b, " file=%s", e.FilePath)
			}
			if e.Escalated {
				b.WriteString(" escalated")
			}
		case EventToolResult:
			fmt.Fprintf(&b, "result %s %s", e.CallID, e.Outcome)
			if e.ExitCode != nil {
				fmt.Fprintf(&b, " exit=%d", *e.ExitCode)
			}
			if o := strings.TrimSpace(e.Output); o != "" {
				fmt.Fprintf(&b, " %q", o)
			}
		case EventFileChange:
			fmt.Fprintf(&b, "change %s %s %s", e.CallID, e.FileOp, e.FilePath)
			if e.Old != "" || e.New != "" {
				fmt.Fprintf(&b, " %q->%q", e.Old, e.New)
			}
		case EventHuman, EventInterrupt:
			fmt.Fprintf(&b, "%s %q", e.Kind, e.Text)
		default:
			continue
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestClaudeNormalisedOutcomes(t *testing.T) {
	const sid = `"sessionId":"55555555-2222-3333-4444-555555555555","cwd":"/p"`
	lines := []string{
		`{"type":"user",` + sid + `,"message":{"role":"user","content":"write the notes file"}}`,
		// A Write the user refused: no file was created.
		`{"type":"assistant",` + sid + `,"message":{"role":"assistant","content":[{"type":"tool_use","id":"w1","name":"Write","input":{"file_path":"/p/available-tools.md","content":"x"}}]}}`,
		`{"type":"user",` + sid + `,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"w1","content":"The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.","is_error":true}]}}`,
		`{"type":"user",` + sid + `,"message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]}}`,
		// A refusal that carries the user's words.
		`{"type":"assistant",` + sid + `,"message":{"role":"assistant","content":[{"type":"tool_use","id":"b0","name":"Bash","input":{"command":"npm install"}}]}}`,
		`{"type":"user",` + sid + `,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"b0","content":"The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nuse pnpm, never npm","is_error":true}]}}`,
		// A permission the harness did not grant.
		`{"type":"assistant",` + sid + `,"message":{"role":"assistant","content":[{"type":"tool_use","id":"w2","name":"Write","input":{"file_path":"/p/CLAUDE.md","content":"x"}}]}}`,
		`{"type":"user",` + sid + `,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"w2","content":"Claude requested permissions to write to /p/CLAUDE.md, but you haven't granted it yet.","is_error":true}]}}`,
		// A failing command: the exit code is in the text.
		`{"type":"assistant",` + sid + `,"message":{"role":"assistant","content":[{"type":"tool_use","id":"b1","name":"Bash","input":{"command":"go test ./...","dangerouslyDisableSandbox":true}}]}}`,
		`{"type":"user",` + sid + `,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"b1","content":"Exit code 1\n--- FAIL: TestX","is_error":true}]}}`,
		// An edit that succeeded, with its text.
		`{"type":"assistant",` + sid + `,"message":{"role":"assistant","content":[{"type":"tool_use","id":"e1","name":"Edit","input":{"file_path":"/p/a.go","old_string":"a := 1","new_string":"a := 2"}}]}}`,
		`{"type":"user",` + sid + `,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"e1","content":"The file /p/a.go has been updated."}]}}`,
		// An edit whose old text was not there.
		`{"type":"assistant",` + sid + `,"message":{"role":"assistant","content":[{"type":"tool_use","id":"e2","name":"Edit","input":{"file_path":"/p/b.go","old_string":"zz","new_string":"yy"}}]}}`,
		`{"type":"user",` + sid + `,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"e2","content":"<tool_use_error>String to replace not found in file.</tool_use_error>","is_error":true}]}}`,
		// A background command and its polls.
		`{"type":"assistant",` + sid + `,"message":{"role":"assistant","content":[{"type":"tool_use","id":"bg","name":"Bash","input":{"command":"npm run build","run_in_background":true}}]}}`,
		`{"type":"user",` + sid + `,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"bg","content":"Command running in background with ID: bash_1"}]}}`,
		`{"type":"assistant",` + sid + `,"message":{"role":"assistant","content":[{"type":"tool_use","id":"o1","name":"BashOutput","input":{"bash_id":"bash_1"}}]}}`,
		`{"type":"user",` + sid + `,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"o1","content":"<status>running</status>"}]}}`,
		`{"type":"assistant",` + sid + `,"message":{"role":"assistant","content":[{"type":"tool_use","id":"o2","name":"BashOutput","input":{"bash_id":"bash_1"}}]}}`,
		`{"type":"user",` + sid + `,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"o2","content":"<status>completed</status>\n\n<exit_code>2</exit_code>\n\n<stderr>\nerror TS2304: Cannot find name 'x'.\n</stderr>"}]}}`,
		`{"type":"assistant",` + sid + `,"message":{"role":"assistant","content":[{"type":"tool_use","id":"r1","name":"Read","input":{"file_path":"/home/u/.memctl/memories/MEMORY.md"}}]}}`,
		// On Windows commands run through PowerShell: a command all the same.
		`{"type":"assistant",` + sid + `,"message":{"role":"assistant","content":[{"type":"tool_use","id":"ps","name":"PowerShell","input":{"command":"dotnet test"}}]}}`,
		`{"type":"user",` + sid + `,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"ps","content":"Exit code 1\nFailed!  - Failed: 1","is_error":true}]}}`,
		// A question declined so that the user can clarify: what follows "the user said:" is the
		// harness's instruction to the agent, speaking of the user, not the user's words.
		`{"type":"assistant",` + sid + `,"message":{"role":"assistant","content":[{"type":"tool_use","id":"q1","name":"AskUserQuestion","input":{"questions":[{"question":"Which cache?"}]}}]}}`,
		`{"type":"user",` + sid + `,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"q1","content":"The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nThe user wants to clarify these questions.\n    Start by asking them what they would like to clarify.","is_error":true}]}}`,
		// Claude Code 1.0 writes a bare "Error" for a failed command that printed nothing (a search that
		// found nothing): no output. The same word printed by a command that passed is its output.
		`{"type":"assistant",` + sid + `,"message":{"role":"assistant","content":[{"type":"tool_use","id":"g1","name":"Bash","input":{"command":"grep -n TODO notes.md"}}]}}`,
		`{"type":"user",` + sid + `,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"g1","content":"Error","is_error":true}]}}`,
		`{"type":"assistant",` + sid + `,"message":{"role":"assistant","content":[{"type":"tool_use","id":"g2","name":"Bash","input":{"command":"echo Error"}}]}}`,
		`{"type":"user",` + sid + `,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"g2","content":"Error"}]}}`,
	}
	p := writeFile(t, t.TempDir(), "proj/55555555-2222-3333-4444-555555555555.jsonl", strings.Join(lines, "\n")+"\n")
	evs, _ := collectEvents(t, File{Kind: KindClaudeCode, Path: p})
	want := `human "write the notes file"
call w1 edit file=/p/available-tools.md
result w1 rejected "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."
interrupt "[Request interrupted by user for tool use]"
call b0 shell "npm install"
result b0 rejected "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nuse pnpm, never npm"
human "use pnpm, never npm"
call w2 edit file=/p/CLAUDE.md
result w2 denied "Claude requested permissions to write to /p/CLAUDE.md, but you haven't granted it yet."
call b1 shell "go test ./..." escalated
result b1 failed exit=1 "--- FAIL: TestX"
call e1 edit file=/p/a.go
result e1 ok "The file /p/a.go has been updated."
change e1 update /p/a.go "a := 1"->"a := 2"
call e2 edit file=/p/b.go
result e2 failed "String to replace not found in file."
call bg shell "npm run build"
result bg failed exit=2 "error TS2304: Cannot find name 'x'."
call r1 memory file=/home/u/.memctl/memories/MEMORY.md
call ps shell "dotnet test"
result ps failed exit=1 "Failed!  - Failed: 1"
call q1 other
result q1 rejected "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nThe user wants to clarify these questions.\n    Start by asking them what they would like to clarify."
call g1 shell "grep -n TODO notes.md"
result g1 failed
call g2 shell "echo Error"
result g2 ok "Error"
`
	if got := outcomes(evs); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestCodexNormalisedOutcomes(t *testing.T) {
	lines := []string{
		`{"timestamp":"2026-01-01T10:00:00Z","type":"session_meta","payload":{"id":"66666666-2222-3333-4444-555555555555","cwd":"/w","source":"cli"}}`,
		`{"timestamp":"2026-01-01T10:00:01Z","type":"event_msg","payload":{"type":"user_message","message":"push the branch"}}`,
		// A long command: its first output says it is still running, a
		// poll carries the exit status.
		`{"timestamp":"2026-01-01T10:00:02Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"go test ./...\"}","call_id":"c1"}}`,
		`{"timestamp":"2026-01-01T10:00:03Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"Chunk ID: a\nWall time: 1.0 seconds\nProcess running with session ID 4242\nOriginal token count: 0\nOutput:\n"}}`,
		`{"timestamp":"2026-01-01T10:00:04Z","type":"response_item","payload":{"type":"function_call","name":"write_stdin","arguments":"{\"session_id\":4242,\"chars\":\"\"}","call_id":"p1"}}`,
		`{"timestamp":"2026-01-01T10:00:05Z","type":"response_item","payload":{"type":"function_call_output","call_id":"p1","output":"Chunk ID: b\nWall time: 5.0 seconds\nProcess running with session ID 4242\nOriginal token count: 0\nOutput:\n"}}`,
		`{"timestamp":"2026-01-01T10:00:06Z","type":"response_item","payload":{"type":"function_call","name":"write_stdin","arguments":"{\"session_id\":4242,\"chars\":\"\"}","call_id":"p2"}}`,
		`{"timestamp":"2026-01-01T10:00:07Z","type":"response_item","payload":{"type":"function_call_output","call_id":"p2","output":"Chunk ID: c\nWall time: 0.1 seconds\nProcess exited with code 1\nOriginal token count: 9\nOutput:\n--- FAIL: TestX\nFAIL\n"}}`,
		`{"timestamp":"2026-01-01T10:00:08Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"c1","exit_code":1,"aggregated_output":"--- FAIL: TestX\nFAIL\n"}}`,
		// The same command rerun outside the sandbox.
		`{"timestamp":"2026-01-01T10:00:09Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"git push\",\"sandbox_permissions\":\"require_escalated\",\"justification\":\"network\"}","call_id":"c2"}}`,
		`{"timestamp":"2026-01-01T10:00:10Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"c2","exit_code":0,"status":"declined","aggregated_output":""}}`,
		// A patch that did not apply changes nothing.
		`{"timestamp":"2026-01-01T10:00:11Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","call_id":"c3","input":"*** Begin Patch\n*** Update File: a.go\n@@\n-x\n+y\n*** End Patch"}}`,
		`{"timestamp":"2026-01-01T10:00:12Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c3","output":"apply_patch verification failed: Failed to find expected lines in a.go"}}`,
		// One that did, reported by its output only.
		`{"timestamp":"2026-01-01T10:00:13Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","call_id":"c4","input":"*** Begin Patch\n*** Update File: b.go\n@@\n-x\n+y\n*** End Patch"}}`,
		`{"timestamp":"2026-01-01T10:00:14Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c4","output":"{\"output\":\"Success. Updated the following files:\\nM b.go\\n\",\"metadata\":{\"exit_code\":0}}"}}`,
		// apply_patch run through the shell is an edit, not a command.
		`{"timestamp":"2026-01-01T10:00:14Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"apply_patch << 'PATCH'\\n*** Begin Patch\\n*** Add File: c.py\\n+x = 1\\n*** End Patch\\nPATCH\"]}","call_id":"c5"}}`,
		`{"timestamp":"2026-01-01T10:00:14Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c5","output":"{\"output\":\"Success. Updated the following files:\\nA c.py\\n\",\"metadata\":{\"exit_code\":0}}"}}`,
		// The sandbox's wrapper around a failed command: its exit code and
		// its own streams.
		`{"timestamp":"2026-01-01T10:00:14Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"python - << 'PY'\\nprint(1)\\nPY\"]}","call_id":"c6"}}`,
		`{"timestamp":"2026-01-01T10:00:14Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c6","output":"failed in sandbox MacosSeatbelt with execution error: sandbox denied exec error, exit code: 1, stdout: , stderr: bash: cannot create temp file for here document: Operation not permitted\n"}}`,
		// apply_patch exec'd with the patch as its argument, or after a cd:
		// edits too.
		`{"timestamp":"2026-01-01T10:00:14Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"apply_patch\",\"*** Begin Patch\\n*** Add File: d.py\\n+y = 2\\n*** End Patch\\n\"]}","call_id":"c7"}}`,
		`{"timestamp":"2026-01-01T10:00:14Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c7","output":"{\"output\":\"Success. Updated the following files:\\nA d.py\\n\",\"metadata\":{\"exit_code\":0}}"}}`,
		`{"timestamp":"2026-01-01T10:00:14Z","type":"response_item","payload":{"type":"function_call","name":"shell_command","arguments":"{\"command\":\"cd web && apply_patch <<'EOF'\\n*** Begin Patch\\n*** Add File: e.py\\n+z = 3\\n*** End Patch\\nEOF\"}","call_id":"c8"}}`,
		`{"timestamp":"2026-01-01T10:00:14Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c8","output":"Exit code: 0\nOutput:\nSuccess. Updated the following files:\nA e.py\n"}}`,
		// The sandbox failed a command and gave no exit code: a failure.
		`{"timestamp":"2026-01-01T10:00:14Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"make migrate\"]}","call_id":"c9"}}`,
		`{"timestamp":"2026-01-01T10:00:14Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c9","output":"failed in sandbox: psql: Operation not permitted"}}`,
		`{"timestamp":"2026-01-01T10:00:15Z","type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}`,
	}
	p := writeFile(t, t.TempDir(), "rollout-2026-01-01T10-00-00-66666666-2222-3333-4444-555555555555.jsonl", strings.Join(lines, "\n")+"\n")
	evs, _ := collectEvents(t, File{Kind: KindCodex, Path: p})
	want := `human "push the branch"
call c1 shell "go test ./..."
result c1 failed exit=1 "--- FAIL: TestX\nFAIL"
call c2 shell "git push" escalated
result c2 rejected exit=0
call c3 edit file=a.go
result c3 failed "apply_patch verification failed: Failed to find expected lines in a.go"
call c4 edit file=b.go
result c4 ok exit=0 "Success. Updated the following files:\nM b.go"
change c4 update b.go "x\n"->"y\n"
call c5 edit file=c.py
result c5 ok exit=0 "Success. Updated the following files:\nA c.py"
change c5 add c.py
call c6 shell "python - << 'PY'\nprint(1)\nPY"
result c6 failed exit=1 "bash: cannot create temp file for here document: Operation not permitted"
call c7 edit file=d.py
result c7 ok exit=0 "Success. Updated the following files:\nA d.py"
change c7 add d.py
call c8 edit file=e.py
result c8 ok exit=0 "Success. Updated the following files:\nA e.py"
change c8 add e.py
call c9 shell "make migrate"
result c9 failed "failed in sandbox: psql: Operation not permitted"
interrupt "turn aborted: interrupted"
`
	if got := outcomes(evs); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestJSONLNormalisedOutcomes(t *testing.T) {
	lines := []string{
		`{"type":"session","id":"j-1","cwd":"/j"}`,
		`{"type":"message","role":"user","text":"tidy up"}`,
		`{"type":"tool_call","id":"k1","name":"edit","input":{"path":"a.txt"}}`,
		`{"type":"file_change","id":"k1","path":"a.txt","op":"update"}`,
		`{"type":"tool_result","id":"k1","output":"no","status":"rejected"}`,
		`{"type":"tool_call","id":"k2","name":"write_file","input":{"path":"b.txt"}}`,
		`{"type":"tool_result","id":"k2","output":"written"}`,
		`{"type":"tool_call","id":"k3","name":"shell","command":"bash -lc 'make test'","escalated":true}`,
		`{"type":"tool_result","id":"k3","output":"FAIL"}`,
		`{"type":"interrupt","text":"stopped by the user"}`,
	}
	p := writeFile(t, t.TempDir(), "j.jsonl", strings.Join(lines, "\n")+"\n")
	evs, _ := collectEvents(t, File{Kind: KindJSONL, Path: p})
	want := `human "tidy up"
call k1 edit file=a.txt
result k1 rejected "no"
call k2 edit file=b.txt
result k2  "written"
change k2 write b.txt
call k3 shell "make test" escalated
result k3  "FAIL"
interrupt "stopped by the user"
`
	if got := outcomes(evs); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// Memory never feeds on itself: the agent's reads of its memory folders are
// marked (events) or dropped with their outputs (the model's input, both
// versions), and citation blocks are cut (StripCitations, the model's
// input) but kept in the events, where "cite --hook" reads them.
func TestMemoryIsNotReadBack(t *testing.T) {
	lines := []string{
		`{"timestamp":"2026-01-01T10:00:00Z","type":"session_meta","payload":{"id":"77777777-2222-3333-4444-555555555555","cwd":"/w","source":"cli"}}`,
		`{"timestamp":"2026-01-01T10:00:01Z","type":"event_msg","payload":{"type":"user_message","message":"what is the test command?"}}`,
		`{"timestamp":"2026-01-01T10:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"what is the test command?"}]}}`,
		`{"timestamp":"2026-01-01T10:00:02Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"cat ~/.codex/memories/MEMORY.md\"}","call_id":"m1"}}`,
		`{"timestamp":"2026-01-01T10:00:03Z","type":"response_item","payload":{"type":"function_call_output","call_id":"m1","output":"Process exited with code 0\nOutput:\nSECRET-MEMORY-LINE"}}`,
		`{"timestamp":"2026-01-01T10:00:04Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"cat package.json\"}","call_id":"c1"}}`,
		`{"timestamp":"2026-01-01T10:00:05Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"Process exited with code 0\nOutput:\n{}"}}`,
		`{"timestamp":"2026-01-01T10:00:06Z","type":"response_item","payload":{"type":"message","role":"assistant","phase":"final_answer","content":[{"type":"output_text","text":"It is pnpm test.\n<oai-mem-citation>\n<citation_entries>\nMEMORY.md:2-2|note=[x]\n</citation_entries>\n</oai-mem-citation>"}]}}`,
	}
	p := writeFile(t, t.TempDir(), "rollout-2026-01-01T10-00-00-77777777-2222-3333-4444-555555555555.jsonl", strings.Join(lines, "\n")+"\n")
	f := File{Kind: KindCodex, Path: p}
	evs, _ := collectEvents(t, f)
	for _, e := range evs {
		if e.Kind == EventAssistant && StripCitations(e.Text) != "It is pnpm test.\n" {
			t.Errorf("StripCitations(%q) = %q", e.Text, StripCitations(e.Text))
		}
		if e.Kind == EventToolCall && strings.Contains(e.Command, "memories") && e.Action != ActionMemory {
			t.Errorf("memory read not marked: %+v", e)
		}
		if e.Kind == EventToolCall && e.CallID == "c1" && e.Action != ActionShell {
			t.Errorf("an ordinary read was marked: %+v", e)
		}
	}
	for _, v := range []string{"v1", "v2"} {
		in, err := PrepareInput(f, InputOptions{Version: v})
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"oai-mem-citation", "citation_entries", ".codex/memories", "SECRET-MEMORY-LINE"} {
			if strings.Contains(in, bad) {
				t.Errorf("%s input keeps %q:\n%s", v, bad, in)
			}
		}
		for _, good := range []string{"It is pnpm test.", "cat package.json", "what is the test command?"} {
			if !strings.Contains(in, good) {
				t.Errorf("%s input lacks %q:\n%s", v, good, in)
			}
		}
	}
}

// What the user typed while the agent worked is the user's, as
// Claude Code records it in its prompt queue: absorbed into the running
// turn (the queue entry, then a queued_command attachment, or in older
// versions the entry alone, removed), or dequeued at the turn's end into
// an ordinary user line, read once. A message taken back (popAll) was not
// sent; a background task's notification and a slash command queued the
// same way are the harness's. The answers the user picked for the
// agent's AskUserQuestion are the user's words too.
func TestClaudeQueuedMessagesAndAnswers(t *testing.T) {
	const sid = `"sessionId":"55555555-2222-3333-4444-666666666666","cwd":"/p"`
	q := func(op, content string) string {
		if content == "" {
			return `{"type":"queue-operation","operation":"` + op + `",` + sid + `}`
		}
		return `{"type":"queue-operation","operation":"` + op + `","content":` + strconv.Quote(content) + `,` + sid + `}`
	}
	bash := func(id, cmd string) []string {
		return []string{
			`{"type":"assistant",` + sid + `,"message":{"role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"Bash","input":{"command":"` + cmd + `"}}]}}`,
			`{"type":"user",` + sid + `,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"ok","is_error":false}]}}`,
		}
	}
	var lines []string
	lines = append(lines, `{"type":"user",`+sid+`,"message":{"role":"user","content":"add a --json flag"}}`)
	lines = append(lines, bash("b1", "go build ./...")...)
	lines = append(lines, q("enqueue", "also update the README"), q("remove", ""),
		`{"type":"attachment",`+sid+`,"attachment":{"type":"queued_command","prompt":"also update the README","commandMode":"prompt"}}`)
	lines = append(lines, q("enqueue", "and keep the flag short"), q("remove", "")) // an older version: the entry alone
	lines = append(lines, q("enqueue", "<task-notification>build done</task-notification>"), q("remove", ""))
	lines = append(lines, q("enqueue", "/compact"), q("remove", ""))
	lines = append(lines, q("enqueue", "oops, wrong window"), q("popAll", ""))
	lines = append(lines, bash("b2", "go test ./...")...)
	lines = append(lines,
		`{"type":"assistant",`+sid+`,"message":{"role":"assistant","content":[{"type":"tool_use","id":"a1","name":"AskUserQuestion","input":{"questions":[{"question":"Which name?","options":[{"label":"--json"},{"label":"-j"}]}]}}]}}`,
		`{"type":"user",`+sid+`,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"a1","content":"User has answered your questions: \"Which name?\"=\"--json, and never a short alias\". You can now continue with the user's answers in mind."}]}}`,
		`{"type":"assistant",`+sid+`,"message":{"role":"assistant","content":[{"type":"text","text":"Added --json."}]}}`,
		q("enqueue", "thanks, now tag v1.2"), q("dequeue", ""),
		`{"type":"user",`+sid+`,"message":{"role":"user","content":"thanks, now tag v1.2"}}`)
	p := writeFile(t, t.TempDir(), "proj/55555555-2222-3333-4444-666666666666.jsonl", strings.Join(lines, "\n")+"\n")
	evs, _ := collectEvents(t, File{Kind: KindClaudeCode, Path: p})
	var humans []string
	for _, e := range evs {
		if e.Kind == EventHuman {
			humans = append(humans, e.Text)
		}
	}
	want := []string{"add a --json flag", "also update the README", "and keep the flag short", "--json, and never a short alias", "thanks, now tag v1.2"}
	if !slices.Equal(humans, want) {
		t.Errorf("the user's messages:\n%q\nwant:\n%q", humans, want)
	}
}
