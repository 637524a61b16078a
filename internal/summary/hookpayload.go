package summary

import (
	"bytes"
	"encoding/json"
	"io"
	"time"
)

// maxHookPayload bounds the SessionStart payload read from stdin.
const maxHookPayload = 1 << 20

// HookPayloadWait bounds how long a summary run as an agent's hook
// (--agent) waits for the payload on stdin: the agents write it at once,
// and a summary must never hold up a session.
const HookPayloadWait = 300 * time.Millisecond

// hookPayload reads a hook payload on r (Claude Code and Codex both send
// one to a SessionStart hook) and returns it with its "cwd" field,
// waiting at most wait for the payload to arrive and close. When there is
// no payload, no cwd, or it is late, cwd is ""; payload is what was read
// when it arrived in time (nil when late), so memctl-summary can hand the
// same stdin on to memctl.
func hookPayload(r io.Reader, wait time.Duration) (payload []byte, cwd string) {
	type read struct {
		b   []byte
		cwd string
	}
	got := make(chan read, 1)
	go func() {
		var p struct {
			Cwd string `json:"cwd"`
		}
		b, err := io.ReadAll(io.LimitReader(r, maxHookPayload))
		switch {
		case err != nil:
			got <- read{}
		case len(bytes.TrimSpace(b)) == 0:
			got <- read{b: b} // no payload: nothing to decode
		case json.Unmarshal(b, &p) != nil:
			got <- read{b: b}
		default:
			got <- read{b, p.Cwd}
		}
	}()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case p := <-got:
		return p.b, p.cwd
	case <-timer.C:
		return nil, ""
	}
}
