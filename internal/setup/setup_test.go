package setup

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func target(t *testing.T, agent string) (Target, string) {
	dir := t.TempDir()
	return Target{
		Agent: agent, ClaudeDir: filepath.Join(dir, ".claude"), ClaudeJSON: filepath.Join(dir, ".claude.json"),
		CodexHome: filepath.Join(dir, ".codex"), Memctl: []string{"/opt/memctl/bin/memctl", "--home", "/h/.memctl"},
		MemoryRoots: []string{"/h/.memctl/memories"},
	}, dir
}

func write(t *testing.T, path, s string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o700)
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// Setup, setup again, undo: the second run changes nothing and the undo
// gives back the very bytes that were there, for both agents.
func TestSetupIsIdempotentAndUndoRestoresBytes(t *testing.T) {
	for _, agent := range []string{ClaudeCode, Codex} {
		t.Run(agent, func(t *testing.T) {
			tg, dir := target(t, agent)
			settings := filepath.Join(tg.ClaudeDir, "settings.json")
			codexCfg := filepath.Join(tg.CodexHome, "config.toml")
			origSettings := "{\n  \"model\": \"opus\",\n  \"permissions\": {\"allow\": [\"Bash(ls)\"]},\n  \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"notify-send done\"}]}]}\n}\n"
			origCodex := "# mine\nmodel = \"o3\"\n\n[projects.\"/x\"]\ntrust_level = \"trusted\"\n\n[[hooks.SessionStart]]\n[[hooks.SessionStart.hooks]]\ntype = \"command\"\ncommand = \"echo hi\"\n"
			write(t, settings, origSettings)
			write(t, codexCfg, origCodex)
			backups := filepath.Join(dir, "backups")
			files, err := Plan(tg)
			if err != nil || len(files) == 0 {
				t.Fatalf("plan: %v %v", files, err)
			}
			if _, err := Apply(files, agent, backups, time.Now()); err != nil {
				t.Fatal(err)
			}
			again, err := Plan(tg)
			if err != nil || len(again) != 0 {
				t.Fatalf("second plan is not empty: %v\n%s", err, Diff(again))
			}
			switch agent {
			case ClaudeCode:
				s := read(t, settings)
				for _, want := range []string{"notify-send done", "Bash(ls)", `"Read(//h/.memctl/memories/**)"`, `"mcp__memctl"`,
					`"/opt/memctl/bin/memctl --home /h/.memctl summary --agent claude-code"`, `"/opt/memctl/bin/memctl --home /h/.memctl cite --hook claude"`} {
					if !strings.Contains(s, want) {
						t.Errorf("settings.json lacks %s:\n%s", want, s)
					}
				}
				if g := read(t, tg.ClaudeJSON); !strings.Contains(g, `"command": "/opt/memctl/bin/memctl"`) {
					t.Errorf(".claude.json: %s", g)
				}
			case Codex:
				s := read(t, codexCfg)
				// The user already has one SessionStart group: memctl's is the second.
				for _, want := range []string{"notify = [\"/opt/memctl/bin/memctl\", \"--home\", \"/h/.memctl\", \"cite\", \"--hook\", \"codex\"]",
					"[mcp_servers.memctl]", ":session_start:1:0\"]", "trusted_hash = \"sha256:", "echo hi"} {
					if !strings.Contains(s, want) {
						t.Errorf("config.toml lacks %s:\n%s", want, s)
					}
				}
				if strings.Index(s, "notify =") > strings.Index(s, "[projects") {
					t.Errorf("notify is not a top-level key:\n%s", s)
				}
			}
			res, err := Undo(agent, backups)
			if err != nil || len(res) == 0 {
				t.Fatalf("undo: %v %v", res, err)
			}
			if read(t, settings) != origSettings || read(t, codexCfg) != origCodex {
				t.Errorf("undo did not restore the bytes:\n%s\n%s", read(t, settings), read(t, codexCfg))
			}
			if _, err := os.Stat(tg.ClaudeJSON); err == nil {
				t.Error("undo left the .claude.json setup created")
			}
			if res, _ := Undo(agent, backups); res != nil {
				t.Errorf("a second undo did something: %v", res)
			}
		})
	}
}

// A file the agent rewrote after setup loses only memctl's entries.
func TestUndoOfAChangedFileStripsOnlyMemctl(t *testing.T) {
	tg, dir := target(t, Codex)
	cfg := filepath.Join(tg.CodexHome, "config.toml")
	write(t, cfg, "model = \"o3\"\n")
	files, _ := Plan(tg)
	if _, err := Apply(files, Codex, filepath.Join(dir, "b"), time.Now()); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("\n[projects.\"/new\"]\ntrust_level = \"trusted\"\n")
	f.Close()
	res, err := Undo(Codex, filepath.Join(dir, "b"))
	if err != nil || len(res) != 1 || res[0].Action != "stripped" {
		t.Fatalf("%v %v", res, err)
	}
	if got := read(t, cfg); got != "model = \"o3\"\n\n[projects.\"/new\"]\ntrust_level = \"trusted\"\n" {
		t.Errorf("after undo:\n%s", got)
	}

	tc, dir2 := target(t, ClaudeCode)
	settings := filepath.Join(tc.ClaudeDir, "settings.json")
	write(t, settings, `{"permissions":{"allow":["Bash(ls)"]}}`)
	files, _ = Plan(tc)
	Apply(files, ClaudeCode, filepath.Join(dir2, "b"), time.Now())
	s := strings.Replace(read(t, settings), `"Bash(ls)",`, `"Bash(ls)", "Bash(make)",`, 1)
	write(t, settings, s)
	if _, err := Undo(ClaudeCode, filepath.Join(dir2, "b")); err != nil {
		t.Fatal(err)
	}
	got := read(t, settings)
	if strings.Contains(got, "memctl") || !strings.Contains(got, "Bash(make)") || !strings.Contains(got, "Bash(ls)") {
		t.Errorf("after undo:\n%s", got)
	}
}

func TestClaudeSettingsOfTheWrongShapeAreRefused(t *testing.T) {
	for _, body := range []string{`{"hooks": "none"}`, `{"permissions": {"allow": "Bash"}}`, `[1, 2]`, `{"model": `} {
		tg, _ := target(t, ClaudeCode)
		write(t, filepath.Join(tg.ClaudeDir, "settings.json"), body)
		if _, err := Plan(tg); err == nil || !strings.Contains(err.Error(), "settings.json") {
			t.Errorf("%s: err = %v", body, err)
		}
	}
}

func TestCodexNotifyConflictIsRefused(t *testing.T) {
	tg, _ := target(t, Codex)
	write(t, filepath.Join(tg.CodexHome, "config.toml"), "notify = [\"notify-send\"]\n")
	if _, err := Plan(tg); err == nil || !strings.Contains(err.Error(), "already sets notify") {
		t.Errorf("err = %v", err)
	}
	write(t, filepath.Join(tg.CodexHome, "config.toml"), "model = \n")
	if _, err := Plan(tg); err == nil || !strings.Contains(err.Error(), "config.toml") {
		t.Errorf("broken TOML: err = %v", err)
	}
}

// The hash Codex 0.169 accepted for a SessionStart hook running
// `echo HOOKMARKER42` (seen running in the real CLI).
func TestCodexHookHashMatchesCodex(t *testing.T) {
	got, err := codexHookHash("session_start", "echo HOOKMARKER42")
	if err != nil || got != "sha256:f3f42fa593826ae007a98041aab6bc10dc35fb789cce7f1b9c33787ebdcae8e2" {
		t.Errorf("got %s %v", got, err)
	}
}

func TestShellLine(t *testing.T) {
	if got := shellLine("/a b/memctl", "it's", "--home", "/h"); got != `'/a b/memctl' 'it'\''s' --home /h` {
		t.Errorf("got %s", got)
	}
	if !bytes.Equal([]byte(shellLine("x")), []byte("x")) {
		t.Error("plain word quoted")
	}
}

// The dry-run diff names an absolute path as git does, without a doubled
// slash after a/ and b/.
func TestDiffNamesAbsolutePathsAsGit(t *testing.T) {
	got := Diff([]File{{Path: "/home/u/.claude/settings.json", After: []byte("{}\n")}})
	for _, want := range []string{"diff --git a/home/u/.claude/settings.json b/home/u/.claude/settings.json\n", "+++ b/home/u/.claude/settings.json\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("diff lacks %q:\n%s", want, got)
		}
	}
}

// The SessionStart hook runs memctl-summary when the target names it, and
// a later setup without it (or with it) replaces the hook instead of
// adding a second one; the other hooks and the MCP server keep memctl.
func TestSummaryHookRunsMemctlSummaryWhenInstalled(t *testing.T) {
	lean := []string{"/opt/memctl/bin/memctl-summary", "--home", "/h/.memctl"}
	for _, agent := range []string{ClaudeCode, Codex} {
		t.Run(agent, func(t *testing.T) {
			tg, dir := target(t, agent)
			file := filepath.Join(tg.ClaudeDir, "settings.json")
			want := `"/opt/memctl/bin/memctl-summary --home /h/.memctl --agent claude-code"`
			if agent == Codex {
				file = filepath.Join(tg.CodexHome, "config.toml")
				want = `command = "/opt/memctl/bin/memctl-summary --home /h/.memctl --agent codex"`
			}
			apply := func(summary []string) string {
				t.Helper()
				tg.Summary = summary
				files, err := Plan(tg)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := Apply(files, agent, filepath.Join(dir, "backups"), time.Now()); err != nil {
					t.Fatal(err)
				}
				return read(t, file)
			}
			s := apply(lean)
			if !strings.Contains(s, want) || strings.Count(s, "--agent "+agent) != 1 || strings.Count(s, "memctl-summary") != 1 {
				t.Fatalf("with memctl-summary installed:\n%s", s)
			}
			s = apply(nil)
			if strings.Contains(s, "memctl-summary") || strings.Count(s, "summary --agent "+agent) != 1 {
				t.Fatalf("memctl-summary gone, the hook runs memctl summary once:\n%s", s)
			}
			s = apply(lean)
			if !strings.Contains(s, want) || strings.Count(s, "--agent "+agent) != 1 {
				t.Fatalf("memctl-summary back, one hook runs it:\n%s", s)
			}
		})
	}
}
