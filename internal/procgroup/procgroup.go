// Package procgroup starts the programs memctl runs (a command provider, a
// consolidation agent) in a process group of their own, so that stopping
// one stops everything it spawned: a wrapper script's agent CLI, an
// agent's tools.
package procgroup
