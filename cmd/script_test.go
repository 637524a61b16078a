package cmd

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/golden"
	"github.com/memctl/memctl/internal/model"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	// Tests that need several real memctl processes re-run this binary
	// with MEMCTL_TEST_AS_CLI=1.
	if os.Getenv("MEMCTL_TEST_AS_CLI") == "1" {
		os.Exit(Main())
	}
	if os.Getenv("MEMCTL_TEST_BURN_CPU") == "1" {
		burnCPU()
		os.Exit(0)
	}
	hideAgentCLIs()
	testscript.Main(m, map[string]func(){
		"memctl":            func() { os.Exit(Main()) },
		"memctl-echo-model": echoModel,
	})
}

// hideAgentCLIs takes every folder holding a claude or codex program off
// PATH: memctl offers a logged-in agent CLI it finds (and doctor reports
// it), and no test may depend on whether this machine has one. The tests
// that need one put a fake first on PATH.
func hideAgentCLIs() {
	var keep []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		_, errClaude := os.Stat(filepath.Join(dir, "claude"))
		_, errCodex := os.Stat(filepath.Join(dir, "codex"))
		if errClaude != nil && errCodex != nil {
			keep = append(keep, dir)
		}
	}
	os.Setenv("PATH", strings.Join(keep, string(os.PathListSeparator)))
}

// echoModel is a model stand-in for provider.kind = "command": it copies
// its whole input into every field of its answer, the worst a model can do
// with text it was told to treat as data. A script names it in
// provider.command (testscript puts it on PATH).
func echoModel() {
	var req model.CommandRequest
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		fmt.Fprintln(os.Stderr, "memctl-echo-model:", err)
		os.Exit(1)
	}
	var ans any
	switch req.Kind {
	case model.PurposeExtract:
		ans = map[string]any{"rollout_summary": req.Input, "rollout_slug": "echo", "raw_memory": req.Input}
	case model.PurposeConsolidate:
		ans = map[string]any{"memory_md": req.Input, "memory_summary_md": "v1\n" + req.Input, "skills": []any{}}
	default:
		fmt.Fprintf(os.Stderr, "memctl-echo-model: kind %q\n", req.Kind)
		os.Exit(1)
	}
	if err := json.NewEncoder(os.Stdout).Encode(ans); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

// TestScripts runs the end-to-end scripts in testdata/script. Set
// MEMCTL_UPDATE=1 to rewrite their expected output.
func TestScripts(t *testing.T) {
	fixtures, err := filepath.Abs("../internal/sessions/testdata/real")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       golden.Update(),
		Cmds:                map[string]func(*testscript.TestScript, bool, []string){"tree": treeCmd},
		Setup: func(env *testscript.Env) error {
			work := env.WorkDir
			env.Setenv("HOME", filepath.Join(work, "userhome"))
			env.Setenv("MEMCTL_HOME", filepath.Join(work, "home"))
			// The named home exists, as a user's does; a missing one is
			// refused (homecheck.go; usage.txtar removes it to show so).
			if err := os.MkdirAll(filepath.Join(work, "home"), 0o700); err != nil {
				return err
			}
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(work, "userhome", ".config"))
			env.Setenv("NO_COLOR", "1")
			env.Setenv("GORACE", "atexit_sleep_ms=0")
			env.Setenv("CODEX_HOME", filepath.Join(work, "userhome", ".codex"))
			env.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(work, "userhome", ".claude"))
			env.Setenv("OPENAI_API_KEY", "")
			env.Setenv("ANTHROPIC_API_KEY", "")
			env.Setenv("FIXTURES", fixtures)
			// fixtures.toml reads the real transcripts in place (scan only reads).
			cfg := fmt.Sprintf(`[provider]
kind = "heuristic"
[memories]
max_unused_days = 365
[[sources]]
kind = "codex"
path = %q
[[sources]]
kind = "claude-code"
path = %q
`, filepath.Join(fixtures, "codex", "sessions"), filepath.Join(fixtures, "claude", "projects"))
			if err := os.WriteFile(filepath.Join(work, "fixtures.toml"), []byte(cfg), 0o600); err != nil {
				return err
			}
			return os.MkdirAll(filepath.Join(work, "userhome"), 0o700)
		},
	})
}

// treeCmd is the script command `tree DIR`: one line per file under DIR,
// "<sha256> <mode> <path>" sorted by path (a symbolic link shows its
// target), so a script can record a folder and later `cmp` it byte for
// byte.
func treeCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: tree DIR")
	}
	root := ts.MkAbs(args[0])
	var lines []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		var data []byte
		if d.Type()&fs.ModeSymlink != 0 {
			t, err := os.Readlink(p)
			data = []byte("symlink " + t)
			if err != nil {
				return err
			}
		} else if data, err = os.ReadFile(p); err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		lines = append(lines, fmt.Sprintf("%x %v %s", sha256.Sum256(data), info.Mode().Perm(), filepath.ToSlash(rel)))
		return nil
	})
	ts.Check(err)
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Fprintln(ts.Stdout(), l)
	}
}
