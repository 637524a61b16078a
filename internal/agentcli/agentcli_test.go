//go:build unix

package agentcli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestIsScratch(t *testing.T) {
	s, err := NewScratch(t.TempDir(), ClaudeCode, Env{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tt := range []struct {
		dir  string
		want bool
	}{
		{s.Dir, true},
		{filepath.Join(s.Dir, "sub"), true},
		{"/tmp/memctl-agent-123456", true},
		{"/home/dev/src/memctl-agent-tools", false},
		{"/home/dev/src/memctl", false},
		{"", false},
	} {
		if got := IsScratch(tt.dir); got != tt.want {
			t.Errorf("IsScratch(%q) = %v", tt.dir, got)
		}
	}
}

// The CLIs inherit the environment without memctl's own variables, with
// the request's set once.
func TestChildEnv(t *testing.T) {
	env := Env{Environ: func() []string {
		return []string{"PATH=/bin", "MEMCTL_HOME=/h", "CODEX_HOME=/user/codex", "HOME=/home/dev"}
	}}
	got := env.ChildEnv(map[string]string{"CODEX_HOME": "/scratch/codex-home"})
	want := []string{"PATH=/bin", "HOME=/home/dev", "CODEX_HOME=/scratch/codex-home"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("ChildEnv = %q, want %q", got, want)
	}
}

func TestTOMLString(t *testing.T) {
	for in, want := range map[string]string{
		`/tmp/memctl-agent-1/system.md`: `"/tmp/memctl-agent-1/system.md"`,
		`C:\x "q"`:                      `"C:\\x \"q\""`,
		"a\tb\x7f":                      `"a\u0009b\u007f"`,
	} {
		if got := tomlString(in); got != want {
			t.Errorf("tomlString(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestStderrDropsTheNoticeOfEveryRequest(t *testing.T) {
	in := "WARNING: proceeding, even though we could not create PATH aliases: Refusing to create helper binaries under temporary dir \"/tmp\"\nERROR: stream disconnected\n"
	if got := Stderr(in); got != "ERROR: stream disconnected\n" {
		t.Errorf("Stderr = %q", got)
	}
}

// fakeCLI is a program that answers --version and the login question as
// the pinned CLIs did (their outputs, copied).
func fakeCLI(t *testing.T, version, login string, loginCode int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cli")
	body := "#!/bin/sh\ncase \"$1\" in\n--version) echo '" + version + "';;\n*) " + login + "\nexit " + string(rune('0'+loginCode)) + ";;\nesac\n"
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDetect reads what the pinned CLIs answer about their login, and
// never repeats an account or a key.
func TestDetect(t *testing.T) {
	for _, tt := range []struct {
		name      string
		agent     Agent
		version   string
		login     string
		code      int
		want      string
		loggedIn  bool
		forbidden string
	}{
		{"claude subscription", ClaudeCode, "2.1.328 (Claude Code)",
			`echo '{"loggedIn": true, "authMethod": "claude.ai", "apiProvider": "firstParty", "email": "dev@example.com", "subscriptionType": "max"}'`, 0,
			"Claude Code 2.1.328, logged in with a claude.ai subscription (max)", true, "dev@example.com"},
		{"claude API key", ClaudeCode, "2.1.328 (Claude Code)",
			`echo '{"loggedIn": true, "authMethod": "api_key", "apiKeySource": "ANTHROPIC_API_KEY"}'`, 0,
			"Claude Code 2.1.328, logged in with an API key (ANTHROPIC_API_KEY)", true, ""},
		{"claude logged out", ClaudeCode, "2.1.328 (Claude Code)",
			`echo '{"loggedIn": false, "authMethod": "none", "apiProvider": "firstParty"}'`, 1,
			"Claude Code 2.1.328, not logged in", false, ""},
		{"codex ChatGPT", Codex, "codex-cli 0.169.0", `echo 'Logged in using ChatGPT' >&2`, 0,
			"Codex 0.169.0, logged in with ChatGPT", true, ""},
		{"codex API key", Codex, "codex-cli 0.169.0", `echo 'API key configured - sk-stand***n-key' >&2; echo 'Authentication is checked when you send a request.' >&2`, 0,
			"Codex 0.169.0, logged in with an API key", true, "sk-stand"},
		{"codex logged out", Codex, "codex-cli 0.169.0", `echo 'Not logged in' >&2`, 1,
			"Codex 0.169.0, not logged in", false, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := Detect(context.Background(), tt.agent, []string{fakeCLI(t, tt.version, tt.login, tt.code)}, Env{})
			if got := st.Describe(); got != tt.want || st.LoggedIn != tt.loggedIn || st.Usable() != tt.loggedIn {
				t.Errorf("Describe = %q (logged in %v), want %q", got, st.LoggedIn, tt.want)
			}
			if tt.forbidden != "" && strings.Contains(st.Describe()+st.Login, tt.forbidden) {
				t.Errorf("the status repeats %q", tt.forbidden)
			}
		})
	}
	st := Detect(context.Background(), Codex, []string{filepath.Join(t.TempDir(), "no-such-codex")}, Env{})
	if st.Path != "" || st.Usable() || st.Describe() != "Codex is not installed (no codex on PATH)" {
		t.Errorf("a missing CLI: %+v %q", st, st.Describe())
	}
}
