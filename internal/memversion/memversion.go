// Package memversion names the memory versions memctl generates and reads.
// A version decides the prompts and schema of Phase 1, whether raw memories
// exist, the memory folder and the database file; comparing a typed value
// against V1 and V2 keeps a misspelt version from compiling.
package memversion

import (
	"fmt"
	"strings"
)

// Version is a memory version, "v1" or "v2" (codex-memories.md section 12).
type Version string

const (
	// V1 keeps a raw memory and a rollout summary per thread.
	V1 Version = "v1"
	// V2 keeps the rollout summary only, a chronological history.
	V2 Version = "v2"
)

// All lists the versions in the order memctl walks them (v1 first).
func All() []Version { return []Version{V1, V2} }

// Names lists the versions as strings, for flags and config keys that
// enumerate their values.
func Names() []string { return []string{string(V1), string(V2)} }

// Parse turns a flag or config value into a Version; "" is V1, the default.
func Parse(s string) (Version, error) {
	switch Version(s) {
	case "", V1:
		return V1, nil
	case V2:
		return V2, nil
	}
	return "", fmt.Errorf("unknown memory version %q (want %s)", s, strings.Join(Names(), " or "))
}

// OrDefault returns v, or V1 when v is empty.
func (v Version) OrDefault() Version {
	if v == "" {
		return V1
	}
	return v
}

// KeepsRawMemories reports whether Phase 1 of this version writes a raw
// memory beside the rollout summary (v1 does, v2 does not).
func (v Version) KeepsRawMemories() bool { return v != V2 }

// String returns the version as written in flags, config and JSON.
func (v Version) String() string { return string(v) }
