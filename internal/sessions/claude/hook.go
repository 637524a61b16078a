package claude

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/memctl/memctl/internal/sessions/internal/transcript"
)

// StopHook returns the reply of the turn a Claude Code Stop hook reports.
// Claude Code puts the reply in the payload (last_assistant_message) and
// runs the hook before it has necessarily written that reply to the
// transcript, so the payload is what counts; the transcript named by
// transcript_path is read only when the payload has no reply field (older
// releases).
func StopHook(payload io.Reader) (transcript.Reply, error) {
	var p struct {
		SessionID      string  `json:"session_id"`
		PromptID       string  `json:"prompt_id"`
		TranscriptPath string  `json:"transcript_path"`
		LastMessage    *string `json:"last_assistant_message"`
	}
	b, err := io.ReadAll(io.LimitReader(payload, transcript.MaxHookInput))
	if err != nil {
		return transcript.Reply{}, err
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return transcript.Reply{}, fmt.Errorf("claude hook payload: %w", err)
	}
	if p.LastMessage != nil {
		return transcript.Reply{Text: *p.LastMessage, From: "payload",
			TurnKey: transcript.TurnKey("claude", p.SessionID, p.PromptID, *p.LastMessage)}, nil
	}
	if p.TranscriptPath == "" {
		return transcript.Reply{}, errors.New("claude hook payload has neither last_assistant_message nor transcript_path")
	}
	last, lastID, err := lastReply(p.TranscriptPath)
	if err != nil {
		return transcript.Reply{}, fmt.Errorf("read %s: %w", p.TranscriptPath, err)
	}
	return transcript.Reply{Text: last, From: "transcript",
		TurnKey: transcript.TurnKey("claude", p.SessionID, "", last+"\x00"+lastID)}, nil
}

// lastReply reads the assistant text of the newest turn of a transcript, as
// written: the readers strip citation blocks (memory must not feed on
// itself), and the block is what the hook counts. lastID names the reply's
// last line, for the turn key.
func lastReply(path string) (last, lastID string, err error) {
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
