package codex

import (
	"strings"
)

func IsRolloutName(n string) bool {
	return strings.HasPrefix(n, "rollout-") &&
		(strings.HasSuffix(n, ".jsonl") || strings.HasSuffix(n, ".jsonl.zst") || strings.HasSuffix(n, ".json"))
}

// codexPick drops a compressed rollout when its plain twin sits beside it.
func PickPlain(name string, names map[string]bool) bool {
	if plain, ok := strings.CutSuffix(name, ".zst"); ok {
		return !names[plain]
	}
	return true
}
