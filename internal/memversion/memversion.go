// Package memversion names the memory versions memctl generates and reads.
// A version decides the prompts and schema of Phase 1, whether raw memories
// exist, the memory folder and the database file; comparing a typed value
// against V1 and V2 keeps a misspelt version from compiling.
package memversion

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

// String returns the version as written in flags, config and JSON.
func (v Version) String() string { return string(v) }
