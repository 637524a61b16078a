package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The programs under test, built once by TestMain: memctl and
// memctl-summary side by side (memctl-summary hands what it does not answer
// to the memctl beside it), and memctl-summary alone in a folder without
// memctl, where a hand-over fails: a call it answers the same there is one
// it answered itself.
var memctlBin, leanBin, leanAloneBin string

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "memctl-summary-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	memctlBin = filepath.Join(dir, "both", "memctl")
	leanBin = filepath.Join(dir, "both", "memctl-summary")
	leanAloneBin = filepath.Join(dir, "alone", "memctl-summary")
	for _, b := range []struct{ out, pkg string }{{memctlBin, "../.."}, {leanBin, "."}, {leanAloneBin, "."}} {
		if out, err := exec.Command("go", "build", "-o", b.out, b.pkg).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build %s: %v\n%s", b.pkg, err, out)
			return 1
		}
	}
	return m.Run()
}

// result is what a run printed and how it ended.
type result struct {
	stdout, stderr string
	code           int
}

// run runs bin with args in dir, stdin and env (nothing else of this
// process's environment but PATH, so no MEMCTL_ variable of the caller
// leaks in).
func run(t *testing.T, bin, dir, stdin string, env []string, args ...string) result {
	t.Helper()
	c := exec.Command(bin, args...)
	c.Dir = dir
	c.Env = append([]string{"PATH=" + os.Getenv("PATH")}, env...)
	c.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	c.Stdout, c.Stderr = &out, &errOut
	err := c.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s %q: %v", bin, args, err)
	}
	return result{out.String(), errOut.String(), code}
}

// git runs git in dir as a fixed author, failing the test on an error.
func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	c := exec.Command("git", append([]string{"-c", "user.name=T", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	c.Dir = dir
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("git %q: %v\n%s", args, err, out)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

const teamFile = `---
memctl_team: 1
id: 0199a1b2-0000-7000-8000-000000000001
author: T <t@example.com>
project: path:%s
date: 2026-11-20
---

# Run make itest before a pull request

Lessons:
- Check: ` + "`make itest`" + ` passed after the changes to the fixtures.
`

// memctl-summary prints what memctl summary prints, byte for byte, on
// stdout and stderr and with the same exit code, over the same homes: an
// empty one, one with memory and projects (memctl demo's), a repository
// with a team folder (committed and not), with the flags the hooks and
// users give. The calls it should answer itself it answers the same with
// no memctl beside it.
func TestSameOutputAsMemctlSummary(t *testing.T) {
	tmp := t.TempDir()
	userHome := filepath.Join(tmp, "user")
	empty := filepath.Join(tmp, "empty")
	demo := filepath.Join(tmp, "demo")
	elsewhere := filepath.Join(tmp, "elsewhere")
	for _, d := range []string{userHome, empty, elsewhere} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"HOME=" + userHome, "MEMCTL_NOW=2026-12-01T10:00:00Z"}
	if r := run(t, memctlBin, tmp, "", env, "demo", "--dir", demo); r.code != 0 {
		t.Fatalf("memctl demo: exit %d\n%s", r.code, r.stderr)
	}
	home := filepath.Join(demo, "home")

	// A repository with a team folder: one committed file, one not (the
	// summary shows only what HEAD committed).
	repo := filepath.Join(tmp, "repo")
	write(t, filepath.Join(repo, ".memctl", "run-make-itest.md"), fmt.Sprintf(teamFile, repo))
	git(t, repo, "init", "-q")
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "team memory")
	write(t, filepath.Join(repo, ".memctl", "uncommitted.md"), strings.Replace(fmt.Sprintf(teamFile, repo), "make itest", "make other", 2))
	sub := filepath.Join(repo, "internal", "pkg")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}

	// A home whose config memctl refuses: a misspelt key, a redaction
	// pattern that does not compile.
	badConfig := filepath.Join(tmp, "bad-config")
	write(t, filepath.Join(badConfig, "config.toml"), "[memories]\nuse_memoires = true\n")
	badPattern := filepath.Join(tmp, "bad-pattern")
	write(t, filepath.Join(badPattern, "config.toml"), "[redaction]\nextra_patterns = [\"(unclosed\"]\n")

	payload := func(cwd string) string {
		return `{"session_id":"s1","cwd":"` + cwd + `","hook_event_name":"SessionStart"}`
	}
	cases := []struct {
		name  string
		dir   string
		stdin string
		env   []string
		args  []string
		// direct: memctl-summary answers it without memctl.
		direct bool
		// shows and hides: what the summary holds and does not.
		shows, hides string
		code         int // memctl's exit code
	}{
		{name: "empty home", dir: elsewhere, args: []string{"--home", empty}},
		{name: "empty home json", dir: elsewhere, args: []string{"--home", empty, "--json"}},
		{name: "empty home hook", dir: elsewhere, stdin: payload(elsewhere), args: []string{"--home", empty, "--agent", "claude-code"}, direct: true},
		{name: "missing home hook", dir: elsewhere, stdin: payload(elsewhere), args: []string{"--home", filepath.Join(tmp, "none"), "--agent", "codex"}, direct: true},
		{name: "missing home", dir: elsewhere, args: []string{"--home", filepath.Join(tmp, "none")}, code: 2},
		{name: "memory, no project", dir: elsewhere, args: []string{"--home", home}},
		{name: "memory, all projects", dir: elsewhere, args: []string{"--home", home, "--all-projects"}, direct: true, shows: "logrotate"},
		{name: "memory, all projects raw", dir: elsewhere, args: []string{"--home", home, "--all-projects", "--raw"}, direct: true},
		{name: "memory, all projects json", dir: elsewhere, args: []string{"--home", home, "--all-projects", "--json"}, direct: true, shows: `"injected": true`},
		{name: "memory, all projects max tokens", dir: elsewhere, args: []string{"--home", home, "--all-projects", "--max-tokens", "120"}, direct: true},
		{name: "project by name", dir: elsewhere, args: []string{"--home", home, "--project", "recipes"}, direct: true},
		{name: "project by key, raw", dir: elsewhere, args: []string{"--home", home, "--project=git:github.com/example-org/invoicer", "--raw"}, direct: true},
		{name: "project by folder, max tokens", dir: elsewhere, args: []string{"--home", home, "--project", "/home/dev/src/recipes", "--max-tokens=60"}, direct: true},
		{name: "project by a folder memory does not know", dir: elsewhere, args: []string{"--home", home, "--project", "/home/dev/src/invoicer"}},
		{name: "project json", dir: elsewhere, args: []string{"--home", home, "--project", "ops", "--json"}, direct: true},
		{name: "unknown project", dir: elsewhere, args: []string{"--home", home, "--project", "nothing-of-that-name"}, code: 2},
		{name: "hook claude-code", dir: elsewhere, stdin: payload("/home/dev/src/recipes"), args: []string{"--home", home, "--agent", "claude-code"}, direct: true, shows: "scale.py", hides: "nginx"},
		{name: "hook codex", dir: elsewhere, stdin: payload("/home/deploy/ops"), args: []string{"--home", home, "--agent", "codex"}, direct: true, shows: "logrotate", hides: "scale.py"},
		{name: "hook, home from the environment", dir: elsewhere, stdin: payload("/home/dev/src/recipes"), env: []string{"MEMCTL_HOME=" + home}, args: []string{"--agent", "codex"}, direct: true, shows: "scale.py"},
		{name: "hook with config", dir: elsewhere, stdin: payload("/home/dev/src/recipes"), args: []string{"--home", home, "--config", filepath.Join(home, "config.toml"), "--agent", "claude-code"}, direct: true},
		{name: "hook, no payload", dir: elsewhere, args: []string{"--home", home, "--agent", "claude-code"}, direct: true},
		{name: "hook, payload not JSON", dir: elsewhere, stdin: "not json", args: []string{"--home", home, "--agent", "codex"}, direct: true},
		{name: "team folder", dir: sub, args: []string{"--home", home}, direct: true, shows: "make itest", hides: "make other"},
		{name: "team folder json", dir: sub, args: []string{"--home", home, "--json"}, direct: true},
		{name: "team folder raw", dir: sub, args: []string{"--home", home, "--raw"}, direct: true},
		{name: "team folder hook", dir: elsewhere, stdin: payload(sub), args: []string{"--home", home, "--agent", "claude-code"}, direct: true, shows: "make itest", hides: "make other"},
		{name: "team folder, empty home", dir: repo, args: []string{"--home", empty}, direct: true},
		{name: "config error, hook", dir: elsewhere, stdin: payload(elsewhere), args: []string{"--home", badConfig, "--agent", "claude-code"}, code: 2},
		{name: "bad redaction pattern, hook", dir: elsewhere, stdin: payload(elsewhere), args: []string{"--home", badPattern, "--agent", "codex"}, code: 2},
		{name: "help", dir: elsewhere, args: []string{"--help"}},
		{name: "unknown flag", dir: elsewhere, args: []string{"--home", home, "--frobnicate"}, code: 2},
		{name: "bad agent", dir: elsewhere, args: []string{"--home", home, "--agent", "vim"}, code: 2},
		{name: "bad max tokens", dir: elsewhere, args: []string{"--home", home, "--max-tokens", "-1"}, code: 2},
		{name: "quiet and verbose", dir: elsewhere, args: []string{"--home", home, "-q", "-v", "--all-projects"}, code: 2},
		{name: "bad MEMCTL_NOW", dir: elsewhere, env: []string{"MEMCTL_NOW=yesterday"}, args: []string{"--home", home, "--all-projects"}, code: 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := append(append([]string{}, env...), c.env...)
			want := run(t, memctlBin, c.dir, c.stdin, env, append([]string{"summary"}, c.args...)...)
			got := run(t, leanBin, c.dir, c.stdin, env, c.args...)
			if want.code != c.code {
				t.Errorf("memctl summary %q: exit %d, want %d\n%s", c.args, want.code, c.code, want.stderr)
			}
			if !strings.Contains(want.stdout, c.shows) || c.hides != "" && strings.Contains(want.stdout, c.hides) {
				t.Errorf("memctl summary %q should show %q and not %q:\n%s", c.args, c.shows, c.hides, want.stdout)
			}
			if got != want {
				t.Errorf("memctl-summary %q:\n got  %+v\n want %+v", c.args, got, want)
			}
			if c.direct {
				if alone := run(t, leanAloneBin, c.dir, c.stdin, env, c.args...); alone != want {
					t.Errorf("memctl-summary without memctl %q (it should answer this itself):\n got  %+v\n want %+v", c.args, alone, want)
				}
			}
		})
	}
}

// memctl-summary links only the read path: no model SDK, no SQLite, no
// cobra, no HTTP, nothing that is not the summary's (its start cost is the
// size of what it links).
func TestLinksOnlyTheReadPath(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	allowed := []string{
		"github.com/memctl/memctl/",
		"github.com/pelletier/go-toml/v2", // the config
		"golang.org/x/text/",              // Unicode normalisation of the quarantine's words
		"golang.org/x/sys/unix", "golang.org/x/term",
	}
	for _, pkg := range strings.Fields(string(out)) {
		ok := false
		for _, a := range allowed {
			ok = ok || pkg == a || strings.HasPrefix(pkg, a) || strings.HasPrefix(pkg, a+"/")
		}
		if !ok {
			t.Errorf("memctl-summary links %s, which is not the read path's", pkg)
		}
	}
	std, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(std)) {
		switch pkg {
		case "database/sql", "net/http", "encoding/gob", "github.com/memctl/memctl/internal/store", "github.com/memctl/memctl/cmd":
			t.Errorf("memctl-summary links %s", pkg)
		case "net", "net/netip", "net/url":
			// A remote URL and a thread id are read by hand
			// (internal/project, internal/uuidtext): the network
			// packages' start-up is not the summary's to pay.
			t.Errorf("memctl-summary links %s", pkg)
		}
	}
}
