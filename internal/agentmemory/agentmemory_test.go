package agentmemory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestClaudeAutoMemory(t *testing.T) {
	none := func(string) string { return "" }
	for _, tt := range []struct {
		name     string
		files    map[string]string
		env      map[string]string
		enabled  bool
		why      string
		memories int
	}{
		{name: "on by default, with a project's MEMORY.md", files: map[string]string{"projects/-src-app/memory/MEMORY.md": "- use pnpm\n"},
			enabled: true, why: "on by default", memories: 1},
		{name: "turned off in settings.json", files: map[string]string{"settings.json": `{"autoMemoryEnabled": false}`}, why: `"autoMemoryEnabled": false in`},
		{name: "turned on in settings.json", files: map[string]string{"settings.json": `{"autoMemoryEnabled": true, "hooks": {}}`},
			enabled: true, why: `"autoMemoryEnabled": true in`},
		{name: "the environment turns it off", env: map[string]string{"CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1"}, why: "CLAUDE_CODE_DISABLE_AUTO_MEMORY=1"},
		{name: "moved by autoMemoryDirectory", files: map[string]string{"settings.json": `{"autoMemoryDirectory": "DIR/elsewhere"}`, "elsewhere/-src-app/MEMORY.md": "x"},
			enabled: true, memories: 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for rel, text := range tt.files {
				write(t, filepath.Join(dir, rel), strings.ReplaceAll(text, "DIR", dir))
			}
			getenv := none
			if tt.env != nil {
				getenv = func(k string) string { return tt.env[k] }
			}
			s := Claude(dir, getenv)
			if !s.Installed || s.Enabled != tt.enabled || !strings.Contains(s.Why, tt.why) || s.Files != tt.memories || s.Err != "" {
				t.Errorf("%+v", s)
			}
		})
	}
	if s := Claude(filepath.Join(t.TempDir(), "absent"), none); s.Installed {
		t.Errorf("no config folder: %+v", s)
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "settings.json"), "{broken")
	if s := Claude(dir, none); s.Err == "" || !strings.Contains(s.Err, "settings.json") {
		t.Errorf("a broken settings.json: %+v", s)
	}
}

func TestCodexMemories(t *testing.T) {
	for _, tt := range []struct {
		name, config string
		summary      bool
		enabled      bool
		why          string
	}{
		{name: "off by default", why: "off by default"},
		{name: "on", config: "model = \"gpt-5\"\n[features]\nmemories = true\n", summary: true, enabled: true, why: "[features] memories = true"},
		{name: "on, not used", config: "[features]\nmemories = true\n[memories]\nuse_memories = false\n", why: "use_memories = false"},
		{name: "off", config: "[features]\nmemories = false\n", why: "[features] memories = false"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			if tt.config != "" {
				write(t, filepath.Join(home, "config.toml"), tt.config)
			}
			if tt.summary {
				write(t, filepath.Join(home, "memories", "memory_summary.md"), "v1\n")
			}
			s := CodexMemories(home)
			if !s.Installed || s.Enabled != tt.enabled || !strings.Contains(s.Why, tt.why) || s.Err != "" || (s.Files == 1) != tt.summary {
				t.Errorf("%+v", s)
			}
		})
	}
}
