package extract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/textcut"
)

// MaxSummaryBytesV2 caps a v2 rollout summary after redaction; longer
// summaries lose their middle (codex-memories.md 6.7).
const MaxSummaryBytesV2 = 9000

// Output is a parsed Phase 1 answer.
type Output struct {
	// RawMemory is the v1 raw memory (front matter plus task blocks); always
	// "" for v2, which stores no raw memory.
	RawMemory string
	// RolloutSummary is the Markdown summary of the thread.
	RolloutSummary string
	// RolloutSlug is the model's short name for the thread; nil when it
	// answered null (v1) or left the field out.
	RolloutSlug *string
}

// wireOutput mirrors the JSON answer; pointers tell "missing or null"
// apart from "empty string".
type wireOutput struct {
	RolloutSummary *string `json:"rollout_summary"`
	RolloutSlug    *string `json:"rollout_slug"`
	RawMemory      *string `json:"raw_memory"`
}

// wireOutputV2 has no raw_memory, so a v2 answer carrying one is rejected
// as an unknown field, as the v2 schema demands.
type wireOutputV2 struct {
	RolloutSummary *string `json:"rollout_summary"`
	RolloutSlug    *string `json:"rollout_slug"`
}

// ParseOutput parses a model's Phase 1 answer strictly: exactly one JSON
// object, no unknown fields, every required field present with the right
// type. For v1 a missing or null rollout_slug is accepted as nil; for v2
// rollout_slug must be a string. redact (nil means none) is then applied
// to every field, and a v2 summary is cut to MaxSummaryBytesV2 bytes in
// its middle after redaction.
func ParseOutput(version memversion.Version, answer []byte, redact func(string) string) (Output, error) {
	if err := checkVersion(version); err != nil {
		return Output{}, err
	}
	if redact == nil {
		redact = func(s string) string { return s }
	}
	dec := json.NewDecoder(bytes.NewReader(answer))
	dec.DisallowUnknownFields()
	var out Output
	switch version {
	case memversion.V1:
		var w wireOutput
		if err := decodeOne(dec, &w); err != nil {
			return Output{}, err
		}
		if w.RolloutSummary == nil {
			return Output{}, errors.New("parse memory output: missing rollout_summary")
		}
		if w.RawMemory == nil {
			return Output{}, errors.New("parse memory output: missing raw_memory")
		}
		out = Output{RawMemory: *w.RawMemory, RolloutSummary: *w.RolloutSummary, RolloutSlug: w.RolloutSlug}
	case memversion.V2:
		var w wireOutputV2
		if err := decodeOne(dec, &w); err != nil {
			return Output{}, err
		}
		if w.RolloutSummary == nil {
			return Output{}, errors.New("parse memory output: missing rollout_summary")
		}
		if w.RolloutSlug == nil {
			return Output{}, errors.New("parse memory output: missing or null rollout_slug")
		}
		out = Output{RolloutSummary: *w.RolloutSummary, RolloutSlug: w.RolloutSlug}
	}
	out.RawMemory = redact(out.RawMemory)
	out.RolloutSummary = redact(out.RolloutSummary)
	if out.RolloutSlug != nil {
		s := redact(*out.RolloutSlug)
		out.RolloutSlug = &s
	}
	if version == memversion.V2 {
		out.RolloutSummary = textcut.Middle(out.RolloutSummary, MaxSummaryBytesV2)
	}
	return out, nil
}

// decodeOne decodes a single JSON object and refuses anything after it,
// so two concatenated answers cannot pass as one.
func decodeOne(dec *json.Decoder, v any) error {
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("parse memory output: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("parse memory output: unexpected data after the JSON object")
	}
	return nil
}

// HasOutput reports whether the answer is worth storing: a non-empty
// rollout summary and, for v1, a non-empty raw memory. Emptiness is exact
// (no trimming), as in Codex; otherwise the thread takes the no-output path.
func (o Output) HasOutput(version memversion.Version) bool {
	if o.RolloutSummary == "" {
		return false
	}
	if version == memversion.V2 {
		return true
	}
	return o.RawMemory != ""
}

// Slug returns the slug, or "" when the answer had none.
func (o Output) Slug() string {
	if o.RolloutSlug == nil {
		return ""
	}
	return *o.RolloutSlug
}

// JSON encodes o as the answer a model would have returned for version,
// so the heuristic and the model take the same path through the parser.
func (o Output) JSON(version memversion.Version) ([]byte, error) {
	if err := checkVersion(version); err != nil {
		return nil, err
	}
	if version == memversion.V2 {
		return json.Marshal(wireOutputV2{RolloutSummary: &o.RolloutSummary, RolloutSlug: ptr(o.Slug())})
	}
	return json.Marshal(wireOutput{RolloutSummary: &o.RolloutSummary, RolloutSlug: o.RolloutSlug, RawMemory: &o.RawMemory})
}

func ptr(s string) *string { return &s }
