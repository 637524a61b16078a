package hooks

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
		got, err := CodexNotifyReply(tt.payload)
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
	got, err := ClaudeStopReply(strings.NewReader(`{"transcript_path":"` + p + `"}`))
	if err != nil || got != "new reply" {
		t.Errorf("got %q, %v", got, err)
	}
	if _, err := ClaudeStopReply(strings.NewReader(`{}`)); err == nil {
		t.Error("payload without transcript_path accepted")
	}
	if _, err := ClaudeStopReply(strings.NewReader(`{"transcript_path":"` + filepath.Join(dir, "missing.jsonl") + `"}`)); err == nil {
		t.Error("missing transcript accepted")
	}
}

func TestClaudeStopPrefersThePayload(t *testing.T) {
	// The transcript does not exist: Claude Code may not have written the
	// reply yet when the hook runs, and the payload carries it anyway.
	r, err := ClaudeStop(strings.NewReader(`{"session_id":"s1","prompt_id":"p1","transcript_path":"/nonexistent.jsonl","last_assistant_message":"the reply"}`))
	if err != nil || r.Text != "the reply" || r.From != "payload" || r.TurnKey != "claude:s1:p1" {
		t.Fatalf("got %+v, %v", r, err)
	}
	// An empty reply in the payload is still the payload's answer.
	r, err = ClaudeStop(strings.NewReader(`{"session_id":"s1","last_assistant_message":""}`))
	if err != nil || r.Text != "" || r.From != "payload" {
		t.Fatalf("got %+v, %v", r, err)
	}
	// Without a prompt id the key is a digest of the reply: the same
	// reply twice is one turn, another reply another turn.
	a, _ := ClaudeStop(strings.NewReader(`{"session_id":"s1","last_assistant_message":"x"}`))
	b, _ := ClaudeStop(strings.NewReader(`{"session_id":"s1","last_assistant_message":"x"}`))
	c, _ := ClaudeStop(strings.NewReader(`{"session_id":"s1","last_assistant_message":"y"}`))
	if a.TurnKey == "" || a.TurnKey != b.TurnKey || a.TurnKey == c.TurnKey {
		t.Errorf("keys %q %q %q", a.TurnKey, b.TurnKey, c.TurnKey)
	}
}

func TestCodexNotifyTurnKey(t *testing.T) {
	r, err := CodexNotify(`{"type":"agent-turn-complete","thread-id":"th","turn-id":"7","cwd":"/w","input-messages":["hi"],"last-assistant-message":"done"}`)
	if err != nil || r.Text != "done" || r.TurnKey != "codex:th:7" {
		t.Fatalf("got %+v, %v", r, err)
	}
	r, _ = CodexNotify(`{"type":"agent-turn-complete","last-assistant-message":"done"}`)
	if r.TurnKey != "" {
		t.Errorf("no thread id, key %q", r.TurnKey)
	}
}
