package setup

import (
	"os"
	"path/filepath"
)

// State is an agent's memctl integration as it stands, for memctl doctor.
type State struct {
	Agent string
	// Installed: the agent's config folder exists.
	Installed bool
	// SetUp: a setup of the agent was applied and not undone (its backup
	// is under backupRoot).
	SetUp bool
	// Pending lists the files memctl setup would still change (its hooks,
	// MCP entry, permissions or notify program are missing or differ).
	Pending []string
}

// Inspect reports the state of t's agent without writing anything: what
// Plan would change, and whether Apply ran before.
func Inspect(t Target, backupRoot string) (State, error) {
	st := State{Agent: t.Agent}
	dir := t.ClaudeDir
	if t.Agent == Codex {
		dir = t.CodexHome
	}
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		st.Installed = true
	}
	latest, err := latestBackup(filepath.Join(backupRoot, t.Agent))
	if err != nil {
		return st, err
	}
	st.SetUp = latest != ""
	files, err := Plan(t)
	if err != nil {
		return st, err
	}
	for _, f := range files {
		st.Pending = append(st.Pending, f.Path)
	}
	return st, nil
}
