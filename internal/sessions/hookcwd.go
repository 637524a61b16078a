package sessions

import (
	"encoding/json"
	"io"
	"time"
)

// maxHookPayload bounds the SessionStart payload read from stdin.
const maxHookPayload = 1 << 20

// HookPayloadCwd returns the "cwd" field of a hook payload on r (Claude
// Code and Codex both send one to a SessionStart hook), waiting at most wait for
// the payload to arrive and close: a summary printed by a hook must never
// hold up the session. "" when there is no payload, no cwd, or it is late.
func HookPayloadCwd(r io.Reader, wait time.Duration) string {
	got := make(chan string, 1)
	go func() {
		var p struct {
			Cwd string `json:"cwd"`
		}
		b, err := io.ReadAll(io.LimitReader(r, maxHookPayload))
		if err == nil && json.Unmarshal(b, &p) == nil {
			got <- p.Cwd
			return
		}
		got <- ""
	}()
	select {
	case cwd := <-got:
		return cwd
	case <-time.After(wait):
		return ""
	}
}
