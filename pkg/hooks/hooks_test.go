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
