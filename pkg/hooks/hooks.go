// Package hooks reads the last assistant reply out of the payloads agents
// hand to their hook programs (Claude Code Stop hooks, Codex notify), so
// `memctl cite --hook` can count citations without a wrapper script.
package hooks

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
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
	// ThreadID and TurnID are the agent's ids of the turn (Codex), for
	// reading its citation back from the rollout.
	ThreadID, TurnID string
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
	last, lastID, err := claudeLastReply(p.TranscriptPath)
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
	return Reply{Text: p.Message, From: "payload", TurnKey: turnKey("codex", p.ThreadID, p.TurnID, p.Message), ThreadID: p.ThreadID, TurnID: p.TurnID}, nil
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

// Codex 0.169 parses the model's <oai-mem-citation> block itself: it
// strips it from the answer it shows and from the last-assistant-message
// it hands to notify, and keeps it only in the session's rollout (the raw
// response item, and the memory_citation of the item_completed event). So
// the citation of a notified turn is read back from the rollout.

var codexIDRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z-]{0,99}$`) })

// CodexTurnCitation returns the citation text of one turn of a Codex
// thread, read from its rollout under codexHome (sessions/ and
// archived_sessions/): the raw final messages of the turn, which still
// carry the block, or a block rebuilt from the recorded memory_citation.
// Codex writes the rollout while notify runs, so the read is retried for
// up to wait until the turn's task_complete is there. "" when the turn
// cited nothing or its rollout cannot be found.
func CodexTurnCitation(codexHome, threadID, turnID string, wait time.Duration) (string, error) {
	// Ids become a file name pattern: accept only id-shaped strings.
	if !codexIDRE().MatchString(threadID) || !codexIDRE().MatchString(turnID) {
		return "", nil
	}
	// Elapsed real time, not the injected clock: a clock pinned with
	// MEMCTL_NOW never advances, and the wait is for Codex's writer.
	deadline := time.Now().Add(wait)
	for {
		text, complete, err := codexTurnCitationOnce(codexHome, threadID, turnID)
		if err != nil || complete || time.Now().After(deadline) {
			return text, err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func codexTurnCitationOnce(codexHome, threadID, turnID string) (string, bool, error) {
	var paths []string
	for _, dir := range []string{"sessions", "archived_sessions"} {
		for _, pat := range []string{"*/*/*/rollout-*-" + threadID + ".jsonl", "rollout-*-" + threadID + ".jsonl"} {
			m, _ := filepath.Glob(filepath.Join(codexHome, dir, pat))
			paths = append(paths, m...)
		}
	}
	if len(paths) == 0 {
		return "", false, nil
	}
	f, err := os.Open(paths[0])
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	type line struct {
		Type    string `json:"type"`
		Payload struct {
			Type    string `json:"type"`
			Role    string `json:"role"`
			TurnID  string `json:"turn_id"`
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
			Meta struct {
				TurnID string `json:"turn_id"`
			} `json:"internal_chat_message_metadata_passthrough"`
			Item struct {
				Citation *struct {
					RolloutIDs []string `json:"rolloutIds"`
					ThreadIDs  []string `json:"threadIds"`
				} `json:"memory_citation"`
			} `json:"item"`
		} `json:"payload"`
	}
	var raw, rebuilt strings.Builder
	complete := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var l line
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue // a line being written, or one this reader does not know
		}
		p := l.Payload
		switch {
		case l.Type == "response_item" && p.Type == "message" && p.Role == "assistant" && p.Meta.TurnID == turnID:
			for _, c := range p.Content {
				if strings.Contains(c.Text, "<oai-mem-citation>") {
					raw.WriteString(c.Text + "\n")
				}
			}
		case l.Type == "event_msg" && p.Type == "item_completed" && p.TurnID == turnID && p.Item.Citation != nil:
			ids := append(append([]string{}, p.Item.Citation.RolloutIDs...), p.Item.Citation.ThreadIDs...)
			if len(ids) > 0 {
				rebuilt.WriteString("<oai-mem-citation>\n<rollout_ids>\n" + strings.Join(ids, "\n") + "\n</rollout_ids>\n</oai-mem-citation>\n")
			}
		case l.Type == "event_msg" && p.Type == "task_complete" && p.TurnID == turnID:
			complete = true
		}
	}
	if raw.Len() > 0 {
		return raw.String(), complete, sc.Err()
	}
	return rebuilt.String(), complete, sc.Err()
}

// claudeLastReply reads the assistant text of the newest turn of a Claude
// Code transcript, as written: the session readers strip citation blocks
// (memory must not feed on itself), and the block is what is counted here.
// lastID names the reply's last line, for the turn key.
func claudeLastReply(path string) (last, lastID string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	type block struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var l struct {
			Type    string `json:"type"`
			UUID    string `json:"uuid"`
			IsMeta  bool   `json:"isMeta"`
			Message *struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.Message == nil || l.IsMeta {
			continue
		}
		var text string
		var blocks []block
		if json.Unmarshal(l.Message.Content, &text) == nil {
			blocks = []block{{Type: "text", Text: text}}
		} else if json.Unmarshal(l.Message.Content, &blocks) != nil {
			continue
		}
		switch l.Type {
		case "user":
			for _, b := range blocks {
				if b.Type == "text" && !strings.HasPrefix(strings.TrimSpace(b.Text), "<") {
					last, lastID = "", "" // a human message: a reply belongs to the newest turn only
					break
				}
			}
		case "assistant":
			for _, b := range blocks {
				if b.Type == "text" && b.Text != "" {
					if last != "" {
						last += "\n"
					}
					last += b.Text
					lastID = l.UUID
				}
			}
		}
	}
	return last, lastID, sc.Err()
}
