package codex

import (
	"bufio"
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

	"github.com/memctl/memctl/internal/sessions/internal/transcript"
)

// NotifyHook returns the reply of a Codex notify payload: the JSON Codex
// passes as the notify program's last argument when a turn completes
// ({"type":"agent-turn-complete","thread-id":…,"turn-id":…,
// "last-assistant-message":…}). Other notification types yield an empty
// Reply.
func NotifyHook(payload io.Reader) (transcript.Reply, error) {
	b, err := io.ReadAll(io.LimitReader(payload, transcript.MaxHookInput+1))
	if err != nil {
		return transcript.Reply{}, err
	}
	if len(b) > transcript.MaxHookInput {
		return transcript.Reply{}, errors.New("codex notify payload too large")
	}
	var p struct {
		Type     string `json:"type"`
		ThreadID string `json:"thread-id"`
		TurnID   string `json:"turn-id"`
		Message  string `json:"last-assistant-message"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return transcript.Reply{}, fmt.Errorf("codex notify payload: %w", err)
	}
	if p.Type != "" && p.Type != "agent-turn-complete" {
		return transcript.Reply{}, nil
	}
	return transcript.Reply{Text: p.Message, From: "payload", TurnKey: transcript.TurnKey("codex", p.ThreadID, p.TurnID, p.Message),
		ThreadID: p.ThreadID, TurnID: p.TurnID}, nil
}

// Codex 0.169 parses the model's <oai-mem-citation> block itself: it
// strips it from the answer it shows and from the last-assistant-message
// it hands to notify, and keeps it only in the session's rollout (the raw
// response item, and the memory_citation of the item_completed event). So
// the citation of a notified turn is read back from the rollout.

var idRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z-]{0,99}$`) })

// TurnCitation returns the citation text of one turn of a Codex thread,
// read from its rollout under home (sessions/ and archived_sessions/): the
// raw final messages of the turn, which still carry the block, or a block
// rebuilt from the recorded memory_citation. Codex writes the rollout while
// notify runs, so the read is retried for up to wait until the turn's
// task_complete is there. "" when the turn cited nothing or its rollout
// cannot be found.
func TurnCitation(home, threadID, turnID string, wait time.Duration) (string, error) {
	// Ids become a file name pattern: accept only id-shaped strings.
	if !idRE().MatchString(threadID) || !idRE().MatchString(turnID) {
		return "", nil
	}
	// Elapsed real time, not the injected clock: a clock pinned with
	// MEMCTL_NOW never advances, and the wait is for Codex's writer.
	deadline := time.Now().Add(wait)
	for {
		text, complete, err := turnCitationOnce(home, threadID, turnID)
		if err != nil || complete || time.Now().After(deadline) {
			return text, err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func turnCitationOnce(home, threadID, turnID string) (string, bool, error) {
	var paths []string
	for _, dir := range []string{"sessions", "archived_sessions"} {
		for _, pat := range []string{"*/*/*/rollout-*-" + threadID + ".jsonl", "rollout-*-" + threadID + ".jsonl"} {
			m, _ := filepath.Glob(filepath.Join(home, dir, pat))
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
