package transcript

import (
	"crypto/sha256"
	"encoding/hex"
)

// MaxHookInput bounds a hook payload read from stdin or an argument.
const MaxHookInput = 1 << 20

// Reply is the final reply of one agent turn as the agent's hook reports it
// (Claude Code's Stop hook, Codex's notify program).
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

// TurnKey builds the idempotency key of a turn: the agent's turn id when it
// gives one, else a digest of the reply (the same reply reported twice for
// one session is one turn). No session, no key: nothing to dedupe on.
func TurnKey(agent, session, turn, text string) string {
	if session == "" {
		return ""
	}
	if turn == "" {
		sum := sha256.Sum256([]byte(text))
		turn = "sha256:" + hex.EncodeToString(sum[:12])
	}
	return agent + ":" + session + ":" + turn
}
