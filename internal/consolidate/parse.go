package consolidate

import (
	"strings"

	"github.com/memctl/memctl/internal/rawmemory"
)

// memTask is one task block of a raw memory or rollout summary.
type memTask = rawmemory.Task

// parseMemoryText reads a raw memory or rollout summary; the format and
// its model-written variants are internal/rawmemory's.
func parseMemoryText(text string) rawmemory.Doc { return rawmemory.Parse(text) }

// cleanItem collapses whitespace and drops surrounding bullet markup.
func cleanItem(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
