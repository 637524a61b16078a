// Package hooks reads the last assistant reply out of the payloads agents
// hand to their hook programs (Claude Code Stop hooks, Codex notify), so
// `memctl cite --hook` can count citations without a wrapper script.
package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/memctl/memctl/pkg/sessions"
)

// maxHookInput bounds the hook payload read from stdin or an argument.
const maxHookInput = 1 << 20

// ClaudeStopReply returns the last assistant reply of the session a Claude
// Code Stop hook reports. Claude Code gives the hook a JSON object on
// stdin whose transcript_path names the session file; the reply itself is
// not in the payload, so it is read back from the transcript.
func ClaudeStopReply(payload io.Reader) (string, error) {
	var p struct {
		TranscriptPath string `json:"transcript_path"`
	}
	b, err := io.ReadAll(io.LimitReader(payload, maxHookInput))
	if err != nil {
		return "", err
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return "", fmt.Errorf("claude hook payload: %w", err)
	}
	if p.TranscriptPath == "" {
		return "", errors.New("claude hook payload has no transcript_path")
	}
	var last string
	_, err = sessions.Events(sessions.File{Kind: sessions.KindClaudeCode, Path: p.TranscriptPath}, func(e sessions.Event) error {
		switch e.Kind {
		case sessions.EventHuman:
			last = "" // a reply belongs to the newest turn only
		case sessions.EventAssistant:
			if last != "" {
				last += "\n"
			}
			last += e.Text
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("read %s: %w", p.TranscriptPath, err)
	}
	return last, nil
}

// CodexNotifyReply returns the last assistant message of a Codex notify
// payload (the JSON Codex passes as the notify program's last argument
// when a turn completes). Other notification types yield "".
func CodexNotifyReply(payload string) (string, error) {
	if len(payload) > maxHookInput {
		return "", errors.New("codex notify payload too large")
	}
	var p struct {
		Type    string `json:"type"`
		Message string `json:"last-assistant-message"`
	}
	if err := json.Unmarshal([]byte(payload), &p); err != nil {
		return "", fmt.Errorf("codex notify payload: %w", err)
	}
	if p.Type != "" && p.Type != "agent-turn-complete" {
		return "", nil
	}
	return p.Message, nil
}
