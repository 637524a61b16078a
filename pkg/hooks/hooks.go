// Package hooks reads the last assistant reply out of the payloads agents
// hand to their hook programs (Claude Code Stop hooks, Codex notify), so
// `memctl cite --hook` can count citations without a wrapper script.
package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/memctl/memctl/pkg/sessions"
)

// maxHookInput bounds the hook payload read from stdin or an argument.
const maxHookInput = 1 << 20

// Reply is the final reply of one agent turn as a hook reports it.
type Reply struct {
	Text string
	// TurnKey names the turn (agent, session and turn id), so a hook that
	// runs twice for one turn is counted once. Empty when the payload
	// names no session.
	TurnKey string
	// From says where Text came from: "payload" or "transcript".
	From string
}

// ClaudeStop returns the reply of the turn a Claude Code Stop hook
// reports. Claude Code puts the reply in the payload
// (last_assistant_message) and runs the hook before it has necessarily
// written that reply to the transcript, so the payload is what counts;
// the transcript named by transcript_path is read only when the payload
// has no reply field (older releases).
func ClaudeStop(payload io.Reader) (Reply, error) {
	var p struct {
		SessionID      string  `json:"session_id"`
		PromptID       string  `json:"prompt_id"`
		TranscriptPath string  `json:"transcript_path"`
		LastMessage    *string `json:"last_assistant_message"`
	}
	b, err := io.ReadAll(io.LimitReader(payload, maxHookInput))
	if err != nil {
		return Reply{}, err
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return Reply{}, fmt.Errorf("claude hook payload: %w", err)
	}
	if p.LastMessage != nil {
		return Reply{Text: *p.LastMessage, From: "payload", TurnKey: turnKey("claude", p.SessionID, p.PromptID, *p.LastMessage)}, nil
	}
	if p.TranscriptPath == "" {
		return Reply{}, errors.New("claude hook payload has neither last_assistant_message nor transcript_path")
	}
	var last, lastID string
	_, err = sessions.Events(sessions.File{Kind: sessions.KindClaudeCode, Path: p.TranscriptPath}, func(e sessions.Event) error {
		switch e.Kind {
		case sessions.EventHuman:
			last, lastID = "", "" // a reply belongs to the newest turn only
		case sessions.EventAssistant:
			if last != "" {
				last += "\n"
			}
			last += e.Text
			lastID = fmt.Sprint(e.Line)
		}
		return nil
	})
	if err != nil {
		return Reply{}, fmt.Errorf("read %s: %w", p.TranscriptPath, err)
	}
	return Reply{Text: last, From: "transcript", TurnKey: turnKey("claude", p.SessionID, "", last+"\x00"+lastID)}, nil
}

// ClaudeStopReply returns only the reply text of ClaudeStop.
func ClaudeStopReply(payload io.Reader) (string, error) {
	r, err := ClaudeStop(payload)
	return r.Text, err
}

// CodexNotify returns the reply of a Codex notify payload: the JSON Codex
// passes as the notify program's last argument when a turn completes
// ({"type":"agent-turn-complete","thread-id":…,"turn-id":…,
// "last-assistant-message":…}). Other notification types yield an empty
// Reply.
func CodexNotify(payload string) (Reply, error) {
	if len(payload) > maxHookInput {
		return Reply{}, errors.New("codex notify payload too large")
	}
	var p struct {
		Type     string `json:"type"`
		ThreadID string `json:"thread-id"`
		TurnID   string `json:"turn-id"`
		Message  string `json:"last-assistant-message"`
	}
	if err := json.Unmarshal([]byte(payload), &p); err != nil {
		return Reply{}, fmt.Errorf("codex notify payload: %w", err)
	}
	if p.Type != "" && p.Type != "agent-turn-complete" {
		return Reply{}, nil
	}
	return Reply{Text: p.Message, From: "payload", TurnKey: turnKey("codex", p.ThreadID, p.TurnID, p.Message)}, nil
}

// CodexNotifyReply returns only the reply text of CodexNotify.
func CodexNotifyReply(payload string) (string, error) {
	r, err := CodexNotify(payload)
	return r.Text, err
}

// turnKey builds the idempotency key of a turn: the agent's turn id when
// it gives one, else a digest of the reply (the same reply reported twice
// for one session is one turn). No session, no key: nothing to dedupe on.
func turnKey(agent, session, turn, text string) string {
	if session == "" {
		return ""
	}
	if turn == "" {
		sum := sha256.Sum256([]byte(text))
		turn = "sha256:" + hex.EncodeToString(sum[:12])
	}
	return agent + ":" + session + ":" + turn
}
