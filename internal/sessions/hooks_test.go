package sessions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCodexNotifyReply(t *testing.T) {
	tests := []struct {
		payload, want, err string
	}{
		{payload: `{"type":"agent-turn-complete","last-assistant-message":"done <x>"}`, want: "done <x>"},
		{payload: `{"last-assistant-message":"no type"}`, want: "no type"},
		{payload: `{"type":"approval-requested"}`, want: ""},
		{payload: `not json`, err: "codex notify payload"},
	}
	for _, tt := range tests {
		r, err := HookReply(KindCodex, strings.NewReader(tt.payload))
		got := r.Text
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err = %v", tt.payload, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: got %q, %v", tt.payload, got, err)
		}
	}
}

func TestClaudeStopReplyTakesTheLastTurn(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "11111111-2222-4333-8444-555555555555.jsonl")
	lines := []string{
		`{"type":"user","sessionId":"s","uuid":"1","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"first"}}`,
		`{"type":"assistant","sessionId":"s","uuid":"2","timestamp":"2026-01-01T00:00:01Z","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"old reply"}]}}`,
		`{"type":"user","sessionId":"s","uuid":"3","timestamp":"2026-01-01T00:00:02Z","message":{"role":"user","content":"second"}}`,
		`{"type":"assistant","sessionId":"s","uuid":"4","timestamp":"2026-01-01T00:00:03Z","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"new reply"}]}}`,
	}
	os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	r, err := HookReply(KindClaudeCode, strings.NewReader(`{"transcript_path":"`+p+`"}`))
	got := r.Text
	if err != nil || got != "new reply" {
		t.Errorf("got %q, %v", got, err)
	}
	if _, err := HookReply(KindClaudeCode, strings.NewReader(`{}`)); err == nil {
		t.Error("payload without transcript_path accepted")
	}
	if _, err := HookReply(KindClaudeCode, strings.NewReader(`{"transcript_path":"`+filepath.Join(dir, "missing.jsonl")+`"}`)); err == nil {
		t.Error("missing transcript accepted")
	}
}

func TestClaudeStopPrefersThePayload(t *testing.T) {
	// The transcript does not exist: Claude Code may not have written the
	// reply yet when the hook runs, and the payload carries it anyway.
	r, err := HookReply(KindClaudeCode, strings.NewReader(`{"session_id":"s1","prompt_id":"p1","transcript_path":"/nonexistent.jsonl","last_assistant_message":"the reply"}`))
	if err != nil || r.Text != "the reply" || r.From != "payload" || r.TurnKey != "claude:s1:p1" {
		t.Fatalf("got %+v, %v", r, err)
	}
	// An empty reply in the payload is still the payload's answer.
	r, err = HookReply(KindClaudeCode, strings.NewReader(`{"session_id":"s1","last_assistant_message":""}`))
	if err != nil || r.Text != "" || r.From != "payload" {
		t.Fatalf("got %+v, %v", r, err)
	}
	// Without a prompt id the key is a digest of the reply: the same
	// reply twice is one turn, another reply another turn.
	a, _ := HookReply(KindClaudeCode, strings.NewReader(`{"session_id":"s1","last_assistant_message":"x"}`))
	b, _ := HookReply(KindClaudeCode, strings.NewReader(`{"session_id":"s1","last_assistant_message":"x"}`))
	c, _ := HookReply(KindClaudeCode, strings.NewReader(`{"session_id":"s1","last_assistant_message":"y"}`))
	if a.TurnKey == "" || a.TurnKey != b.TurnKey || a.TurnKey == c.TurnKey {
		t.Errorf("keys %q %q %q", a.TurnKey, b.TurnKey, c.TurnKey)
	}
}

func TestCodexNotifyTurnKey(t *testing.T) {
	r, err := HookReply(KindCodex, strings.NewReader(`{"type":"agent-turn-complete","thread-id":"th","turn-id":"7","cwd":"/w","input-messages":["hi"],"last-assistant-message":"done"}`))
	if err != nil || r.Text != "done" || r.TurnKey != "codex:th:7" {
		t.Fatalf("got %+v, %v", r, err)
	}
	r, _ = HookReply(KindCodex, strings.NewReader(`{"type":"agent-turn-complete","last-assistant-message":"done"}`))
	if r.TurnKey != "" {
		t.Errorf("no thread id, key %q", r.TurnKey)
	}
}

// Lines as Codex 0.169 writes them (shortened): the shown message has no
// block, the raw response item and the memory_citation keep it.
func TestCodexTurnCitationReadsTheRollout(t *testing.T) {
	home := t.TempDir()
	thread, turn := "01a23980-1c95-7822-9a6a-69db4aa14666", "01a23980-1cb1-7d70-8473-8c01922930c1"
	dir := filepath.Join(home, "sessions", "2026", "12", "03")
	os.MkdirAll(dir, 0o700)
	lines := []string{
		`{"type":"event_msg","payload":{"type":"item_completed","thread_id":"` + thread + `","turn_id":"` + turn + `","item":{"type":"AgentMessage","content":[{"type":"Text","text":"Fixed.\n\n"}],"memory_citation":{"entries":[],"rolloutIds":["01a2397f-4b3a-7702-90d4-df7d16cf964c"]}}}}`,
		`{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Fixed.\n\n<oai-mem-citation>\n<rollout_ids>\n01a2397f-4b3a-7702-90d4-df7d16cf964c\n</rollout_ids>\n</oai-mem-citation>"}],"internal_chat_message_metadata_passthrough":{"turn_id":"` + turn + `"}}}`,
		`{"type":"event_msg","payload":{"type":"task_complete","turn_id":"` + turn + `","last_agent_message":"Fixed.\n\n"}}`,
	}
	os.WriteFile(filepath.Join(dir, "rollout-2026-12-03T01-23-46-"+thread+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	got, err := TurnCitation(KindCodex, home, thread, turn, 0)
	if err != nil || !strings.Contains(got, "01a2397f-4b3a-7702-90d4-df7d16cf964c") {
		t.Fatalf("got %q, %v", got, err)
	}
	// Only the raw item counts when both are there (no double entry).
	if strings.Count(got, "<oai-mem-citation>") != 1 {
		t.Errorf("two blocks: %q", got)
	}
	if got, _ := TurnCitation(KindCodex, home, thread, "other-turn", 0); got != "" {
		t.Errorf("another turn's citation: %q", got)
	}
	if got, _ := TurnCitation(KindCodex, home, "../../etc/passwd", turn, 0); got != "" {
		t.Errorf("a path-shaped thread id was followed: %q", got)
	}
}

func TestAgentNamesAndFiles(t *testing.T) {
	for kind, want := range map[Kind]string{KindCodex: "Codex CLI", KindClaudeCode: "Claude Code", KindJSONL: "JSONL", "aider": ""} {
		if got := AgentName(kind); got != want {
			t.Errorf("AgentName(%q) = %q, want %q", kind, got, want)
		}
	}
	for p, want := range map[string]bool{
		"/home/u/.codex/skills/deploy/SKILL.md":  true,
		"/home/u/.claude/commands/review.md":     true,
		".cursor/plugins/x.json":                 true,
		"/repo/skills/SKILL.md":                  true,
		"/repo/.claude/settings.json":            false,
		"/repo/docs/skills.md":                   false,
		"/home/u/.gemini/agents/reviewer.toml":   true,
		"/home/u/codex/skills/not-hidden/run.sh": false,
	} {
		if got := IsAgentFile(p); got != want {
			t.Errorf("IsAgentFile(%q) = %v, want %v", p, got, want)
		}
	}
}
