// Package extract is memctl's Phase 1: it turns one transcript into a
// rollout summary, a slug and (for the v1 pipeline) a raw memory. It holds
// the prompts and output schemas sent to a model, the strict parser of the
// model's answer, and the offline heuristic extractor that produces the
// same shape of answer without any model.
package extract

import (
	"encoding/json"
	"fmt"

	"github.com/memctl/memctl/internal/memversion"
)

// V1 and V2 spell memversion.V1 and V2 as untyped constants, for callers
// of Offline that hold the version as a plain string (the heuristic
// extractor's tests, the examples). Code that has a memversion.Version
// uses memversion's constants.
const (
	V1 = "v1"
	V2 = "v2"
)

// SchemaName is the identifier memctl gives the Phase 1 output schema when
// a provider asks for one.
const SchemaName = "memory_stage1"

// The schemas are written out literally so what the provider sees is
// exactly what the spec fixes (section 6.7), key order included.
const schemaV1 = `{
  "type": "object",
  "properties": {
    "rollout_summary": {"type": "string"},
    "rollout_slug": {"type": ["string", "null"]},
    "raw_memory": {"type": "string"}
  },
  "required": ["rollout_summary", "rollout_slug", "raw_memory"],
  "additionalProperties": false
}`

const schemaV2 = `{
  "type": "object",
  "properties": {
    "rollout_summary": {"type": "string"},
    "rollout_slug": {"type": "string"}
  },
  "required": ["rollout_summary", "rollout_slug"],
  "additionalProperties": false
}`

// Schema returns the JSON Schema a Phase 1 answer must satisfy for the
// given pipeline version, or nil for an unknown version.
func Schema(version memversion.Version) json.RawMessage {
	switch version {
	case memversion.V1:
		return json.RawMessage(schemaV1)
	case memversion.V2:
		return json.RawMessage(schemaV2)
	}
	return nil
}

// checkVersion rejects anything but the two known pipeline versions, so a
// typo never silently selects v1 behaviour.
func checkVersion(version memversion.Version) error {
	if version != memversion.V1 && version != memversion.V2 {
		return fmt.Errorf("unknown memory version %q (want %s or %s)", version, memversion.V1, memversion.V2)
	}
	return nil
}
