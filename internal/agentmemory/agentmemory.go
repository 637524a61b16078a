// Package agentmemory finds the memory the agents keep themselves, beside
// memctl's: Claude Code's auto memory and Codex's memories feature. Each
// injects its own notes into every session, so with memctl wired in too
// an agent is given two memories of the same past (docs/integrations.md
// says how to run them together or choose one). It only reads the agents'
// config files and folders.
package agentmemory

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Agents whose own memory is looked for.
const (
	ClaudeCode = "claude-code"
	Codex      = "codex"
)

// State is one agent's own memory.
type State struct {
	Agent string `json:"agent"`
	// Installed: the agent's config folder exists; nothing else is
	// looked at when it does not.
	Installed bool `json:"installed"`
	// Enabled says whether the agent injects its own memory into its
	// sessions, as far as its config files tell.
	Enabled bool `json:"enabled"`
	// Why names the setting (or default) that decides Enabled.
	Why string `json:"why"`
	// Store is where the agent keeps that memory.
	Store string `json:"store"`
	// Settings is the file that turns it on or off.
	Settings string `json:"settings"`
	// Files counts what is stored there now (Claude Code: projects with a
	// MEMORY.md; Codex: 1 when its memory_summary.md exists).
	Files int `json:"files"`
	// Injects says what it adds to every session.
	Injects string `json:"injects"`
	// Err is why a config file could not be read.
	Err string `json:"error,omitempty"`
}

// Claude Code's auto memory keeps a folder per project under its projects
// folder and loads the head of each project's MEMORY.md into every
// session of that project. It is on unless the settings turn it off
// ("autoMemoryEnabled": false) or the session's environment has
// CLAUDE_CODE_DISABLE_AUTO_MEMORY set; "autoMemoryDirectory" moves it.
const (
	claudeSettingEnabled = "autoMemoryEnabled"
	claudeSettingDir     = "autoMemoryDirectory"
	claudeDisableEnv     = "CLAUDE_CODE_DISABLE_AUTO_MEMORY"
	claudeInjects        = "the first 200 lines (at most 25 KB) of the project's MEMORY.md, and instructions to write there, at the start of every session"
)

// Claude reads Claude Code's auto memory setup from the user's settings
// in its config folder and the environment memctl runs in. A project's
// own .claude/settings.json can turn it off for that project alone; that
// is not looked at here.
func Claude(configDir string, getenv func(string) string) State {
	s := State{Agent: ClaudeCode, Enabled: true, Why: "on by default", Store: filepath.Join(configDir, "projects", "*", "memory"),
		Settings: filepath.Join(configDir, "settings.json"), Injects: claudeInjects}
	if fi, err := os.Stat(configDir); err != nil || !fi.IsDir() {
		return s
	}
	s.Installed = true
	dir := ""
	if b, err := os.ReadFile(s.Settings); err == nil || !errors.Is(err, fs.ErrNotExist) {
		var set map[string]any
		if err == nil {
			err = json.Unmarshal(b, &set)
		}
		if err != nil {
			s.Err = fmt.Sprintf("%s: %v", s.Settings, err)
		}
		if on, ok := set[claudeSettingEnabled].(bool); ok {
			s.Enabled, s.Why = on, fmt.Sprintf("%q: %v in %s", claudeSettingEnabled, on, s.Settings)
		}
		if d, ok := set[claudeSettingDir].(string); ok && strings.TrimSpace(d) != "" {
			dir = d
		}
	}
	if v := getenv(claudeDisableEnv); v != "" && v != "0" && !strings.EqualFold(v, "false") {
		s.Enabled, s.Why = false, claudeDisableEnv+"="+v+" in this environment (only sessions started with it)"
	}
	pattern := filepath.Join(configDir, "projects", "*", "memory", "MEMORY.md")
	if dir != "" {
		s.Store = dir
		pattern = filepath.Join(dir, "*", "MEMORY.md")
	}
	if files, err := filepath.Glob(pattern); err == nil {
		s.Files = len(files)
	}
	return s
}

// Codex's memories feature is off unless [features] memories = true in
// its config.toml; when on it injects memory_summary.md (and its read-path
// instructions) unless [memories] use_memories = false.
const codexInjects = "its memory_summary.md (up to 2,500 tokens) inside about 1,700 tokens of instructions, as developer instructions at the start of every session"

// CodexMemories reads Codex's memories setup from its home folder.
func CodexMemories(codexHome string) State {
	s := State{Agent: Codex, Why: "[features] memories is off by default", Store: filepath.Join(codexHome, "memories"),
		Settings: filepath.Join(codexHome, "config.toml"), Injects: codexInjects}
	if fi, err := os.Stat(codexHome); err != nil || !fi.IsDir() {
		return s
	}
	s.Installed = true
	p := filepath.Join(codexHome, "config.toml")
	b, err := os.ReadFile(p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.Err = fmt.Sprintf("%s: %v", p, err)
	}
	var cfg struct {
		Features struct {
			Memories *bool `toml:"memories"`
		} `toml:"features"`
		Memories struct {
			UseMemories *bool  `toml:"use_memories"`
			Version     string `toml:"version"`
		} `toml:"memories"`
	}
	if err == nil {
		if err := toml.Unmarshal(b, &cfg); err != nil {
			s.Err = fmt.Sprintf("%s: %v", p, err)
		}
	}
	if cfg.Memories.Version == "v2" {
		s.Store = filepath.Join(codexHome, "memories_v2")
	}
	switch {
	case cfg.Features.Memories == nil || !*cfg.Features.Memories:
		if cfg.Features.Memories != nil {
			s.Why = "[features] memories = false in " + p
		}
	case cfg.Memories.UseMemories != nil && !*cfg.Memories.UseMemories:
		s.Why = "[features] memories = true, but [memories] use_memories = false in " + p + ": generated, not injected"
	default:
		s.Enabled, s.Why = true, "[features] memories = true in "+p
	}
	if _, err := os.Stat(filepath.Join(s.Store, "memory_summary.md")); err == nil {
		s.Files = 1
	}
	return s
}
