package sessions

import (
	"fmt"

	"github.com/memctl/memctl/internal/sessions/internal/transcript"
)

// InputOptions controls Phase 1 input preparation.
type InputOptions struct {
	Version    string              // "v1" or "v2"
	TokenLimit int                 // token budget; 0 means 150000
	Redact     func(string) string // secret redaction (v1: per serialised item, v2: per row); nil = identity
}

// DefaultInputTokenLimit is the budget Codex uses when the model's context
// window is unknown.
const DefaultInputTokenLimit = 150_000

// PrepareInput returns the "rollout contents" Phase 1 puts into its prompt.
//
// v1: the kept, sanitised response items serialised as one JSON array,
// redacted, and cut in the middle to TokenLimit tokens (head and tail halves
// of TokenLimit*4 bytes around "…N tokens truncated…"). The array is
// streamed into a head buffer and a tail ring, so memory is bounded by the
// budget and the longest line, not by the file. Redact runs on each
// serialised item rather than on the whole array; none of the redaction
// patterns can match across the quotes that separate items, so the result
// is the same.
//
// v2: the tiered newest-first selection (human words, final answers, other
// agents, commentary, harness context, tools), rendered in source order
// with "[... response items omitted ...]" lines. The file is read twice:
// the first pass measures rows, the second renders the chosen ones.
func PrepareInput(f File, opts InputOptions) (string, error) {
	limit := opts.TokenLimit
	if limit <= 0 {
		limit = DefaultInputTokenLimit
	}
	redact := opts.Redact
	if redact == nil {
		redact = func(s string) string { return s }
	}
	switch opts.Version {
	case "", "v1":
		return prepareV1(f, limit, redact)
	case "v2":
		return prepareV2(f, limit, redact)
	default:
		return "", fmt.Errorf("unknown memory version %q", opts.Version)
	}
}

// walkInputItems streams the kept, sanitised items of a transcript.
func walkInputItems(f File, fn func(*inputItem) error) error {
	format, err := formatOf(f.Kind)
	if err != nil {
		return err
	}
	return format.InputItems(f.Path, func(Problem) {}, memoryFilter(fn))
}

// inputItem and its tiers are the readers' shared input items.
type (
	inputItem = transcript.InputItem
	tier      = transcript.Tier
)

const (
	tierHuman      = transcript.TierHuman
	tierFinal      = transcript.TierFinal
	tierOtherAgent = transcript.TierOtherAgent
	tierCommentary = transcript.TierCommentary
	tierContext    = transcript.TierContext
	tierTool       = transcript.TierTool
	numTiers       = transcript.NumTiers
)
