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
	b, ok := readWithin(r, wait)
	if !ok {
		return nil, ""
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return b, "" // no payload: nothing to decode
	}
	var p struct {
		Cwd string `json:"cwd"`
	}
	if json.Unmarshal(b, &p) != nil {
		return b, ""
	}
	return b, p.Cwd
}

// readWithin reads r to its end, or its first maxHookPayload bytes, if
// that takes at most wait; ok is false when it fails or is late. A file
// (stdin) is waited on with poll(2) where there is one (readFileWithin),
// anything else by a goroutine.
func readWithin(r io.Reader, wait time.Duration) (b []byte, ok bool) {
	if b, ok, polled := readFileWithin(r, wait); polled {
		return b, ok
	}
	type read struct {
		b  []byte
		ok bool
	}
	got := make(chan read, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(r, maxHookPayload))
		got <- read{b, err == nil}
	}()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case p := <-got:
		return p.b, p.ok
	case <-timer.C:
		return nil, false
	}
}
