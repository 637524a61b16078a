package cmd

// The newcomer walk-through, scripted: a fresh home holding the
// example sessions where Codex and Claude Code keep theirs, the README's
// commands, a second run, Ctrl-C in consolidate, forgetting a thread, a
// typo'd source, an unreadable folder and a bad flag, each as a real memctl
// process (a real SIGINT for Ctrl-C), asserting messages and exit codes.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// walk is one user's machine: a home folder and the environment a shell
// would give memctl there (nothing from the machine running the tests).
type walk struct {
	t    *testing.T
	home string
	// prefix runs memctl under another program (setpriv, to take root's
	// power to read any folder away); nil: directly.
	prefix []string
	// now, when set, moves the pinned clock (RFC 3339).
	now string
	// extra is more environment, after (so over) the defaults.
	extra []string
	// dir, when set, is the folder memctl runs in; else the home.
	dir string
}

func (w *walk) env(extra ...string) []string {
	env := []string{"HOME=" + w.home, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + os.TempDir(),
		"MEMCTL_TEST_AS_CLI=1", "NO_COLOR=1", "GORACE=atexit_sleep_ms=0",
		// The example sessions are dated 20–26 November 2026; the clock is
		// pinned a day after the last, so the age and idle windows hold.
		"MEMCTL_NOW=2026-11-27T12:00:00Z"}
	if w.now != "" {
		env = append(env, "MEMCTL_NOW="+w.now) // the last value wins
	}
	env = append(env, w.extra...)
	return append(env, extra...)
}

func (w *walk) command(env []string, args ...string) *exec.Cmd {
	self, err := os.Executable()
	if err != nil {
		w.t.Fatal(err)
	}
	argv := append(append(append([]string{}, w.prefix...), self), args...)
	c := exec.Command(argv[0], argv[1:]...)
	c.Env, c.Dir = env, w.home
	if w.dir != "" {
		c.Dir = w.dir
	}
	return c
}

// memctl runs one command and returns stdout, stderr (with the home as
// HOME) and the exit code.
func (w *walk) memctl(env []string, args ...string) (string, string, int) {
	w.t.Helper()
	c := w.command(env, args...)
	var out, errOut bytes.Buffer
	c.Stdout, c.Stderr = &out, &errOut
	err := c.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		w.t.Fatalf("memctl %s: %v", strings.Join(args, " "), err)
	}
	clean := func(s string) string { return strings.ReplaceAll(s, w.home, "HOME") }
	return clean(out.String()), clean(errOut.String()), code
}

// expect runs a command and checks its exit code and that stderr holds
// each wanted line, in order; it returns stdout and stderr.
func (w *walk) expect(code int, args []string, wantLines ...string) (string, string) {
	w.t.Helper()
	out, errOut, got := w.memctl(w.env(), args...)
	if got != code {
		w.t.Fatalf("memctl %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), got, code, out, errOut)
	}
	rest := errOut
	for _, want := range wantLines {
		i := strings.Index(rest, want)
		if i < 0 {
			w.t.Errorf("memctl %s: stderr lacks (after the lines before it) %q\nstderr:\n%s", strings.Join(args, " "), want, errOut)
			continue
		}
		rest = rest[i+len(want):]
	}
	return out, errOut
}

func TestNewcomerWalkthrough(t *testing.T) {
	w := &walk{t: t, home: t.TempDir()}
	copyTree(t, filepath.Join("..", "examples", "sessions", "codex", "sessions"), filepath.Join(w.home, ".codex", "sessions"))
	copyTree(t, filepath.Join("..", "examples", "sessions", "claude", "projects"), filepath.Join(w.home, ".claude", "projects"))
	cfgPath := filepath.Join(w.home, ".memctl", "config.toml")
	// The oldest session comes later, as a new one would: the first run
	// takes every past session, the second the new one.
	later := filepath.Join(w.home, ".codex", "sessions", "2026", "11", "20")
	if err := os.Rename(later, filepath.Join(w.home, "later")); err != nil {
		t.Fatal(err)
	}

	// The README's commands, as the README writes them.
	cmds := readmeCommands(t)
	if len(cmds) != 3 || cmds[0][1] != "config" || cmds[1][1] != "run" || cmds[2][1] != "summary" {
		t.Fatalf("the README's commands are %q; this walk-through expects config init, run, summary", cmds)
	}
	w.expect(0, cmds[0][1:], "wrote HOME/.memctl/config.toml\n")
	w.expect(0, cmds[1][1:],
		"memctl: provider auto picked heuristic",
		"extracted 2 threads: 2 with a memory",
		"v1: consolidation succeeded (2 raw memories)")
	// The home folder holds no project's memory: summary prints nothing
	// there and says so, naming the projects that have memory.
	if out, _ := w.expect(0, cmds[2][1:], "so summary printed nothing; projects in memory: example-org/invoicer, recipes"); out != "" {
		t.Errorf("summary in a folder with no memory printed:\n%s", out)
	}
	if out, _ := w.expect(0, append(cmds[2][1:], "--project", "example-org/invoicer")); !strings.Contains(out, "## Memory") || !strings.Contains(out, "invoicer") {
		t.Errorf("summary after the first run:\n%s", out)
	}

	if err := os.Rename(filepath.Join(w.home, "later"), later); err != nil {
		t.Fatal(err)
	}
	// A second run, a minute later: the third thread is extracted, the
	// consolidation waits for its cooldown and says so with the real counts
	// and the override. (In the same second as the first run's
	// consolidation, the extraction could have overlapped it, and the
	// consolidation would run: docs/concurrency.md.)
	w.now = "2026-11-27T12:01:00Z"
	w.expect(0, []string{"run"},
		"extracted 1 thread: 1 with a memory",
		"v1: consolidation skipped cooldown: the last run succeeded at 2026-11-27T12:00:00Z and the next is due at 2026-11-27T18:00:00Z; "+
			"3 raw memories stored, 2 of them in the last consolidation; `memctl consolidate --force` runs it now\n")
	w.now = ""

	// Ctrl-C during a model consolidation: exit 130, the previous memory
	// stays, and nothing is left failed or backing off.
	w.interruptConsolidation()
	memBefore := readFileString(t, filepath.Join(w.home, ".memctl", "memories", "MEMORY.md"))
	out, _ := w.expect(0, []string{"status", "--json"})
	var st struct {
		LastConsolidation struct{ Status, LastError string } `json:"last_consolidation"`
		Backoff           []any                              `json:"backoff"`
		StageRuns         []struct{ Stage, Status string }   `json:"stage_runs"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if st.LastConsolidation.Status != "pending" || st.LastConsolidation.LastError != "" || len(st.Backoff) != 0 {
		t.Errorf("after Ctrl-C: consolidation %+v, backoff %v; want pending, no error, no backoff", st.LastConsolidation, st.Backoff)
	}
	for _, r := range st.StageRuns {
		if r.Stage == "consolidate" && r.Status != "interrupted" {
			t.Errorf("the consolidate stage is recorded as %q, want interrupted", r.Status)
		}
	}
	if memBefore == "" || !strings.Contains(memBefore, "invoicer") {
		t.Errorf("MEMORY.md after Ctrl-C is not the first consolidation's:\n%s", memBefore)
	}
	// No --force needed: the interrupted run left no cooldown and no backoff.
	w.expect(0, []string{"consolidate"}, "v1: consolidation succeeded (3 raw memories)")

	// Forgetting a thread says the folder keeps it until the next run.
	w.expect(0, []string{"threads", "forget", "01a1f83b"},
		"forgot 01a1f83b-f8ce-7718-a139-873a95bd447e: its raw memory is deleted, but the memory folder keeps what it learned from it until the next consolidation\n",
		"memctl: hint: `memctl consolidate --force` rewrites the folder now\n")

	// A typo in a [[sources]] path: named, with the reason, exit 1; and the
	// default folders the block stops reading are said.
	cfg := readFileString(t, cfgPath)
	writeFile(t, cfgPath, cfg+"\n[[sources]]\nkind = \"claude-code\"\npath = \"~/.claude/projectz\"\n")
	w.expect(1, []string{"scan"},
		"scanned 0 transcripts: 0 added, 0 updated, 0 unchanged, 1 problem\n",
		"memctl: hint: HOME/.codex/sessions is not read: [[sources]] in HOME/.memctl/config.toml replaces the default folders (an entry with kind = \"codex\" and no path reads it too)\n",
		"memctl: hint: HOME/.claude/projects is not read: [[sources]] in HOME/.memctl/config.toml replaces the default folders (an entry with kind = \"claude-code\" and no path reads it too)\n",
		"memctl: error: cannot read the claude-code source HOME/.claude/projectz: no such folder\n",
		"memctl: hint: fix the path of that [[sources]] entry in HOME/.memctl/config.toml, or remove the entry\n")
	w.expect(1, []string{"run"}, "memctl: error: cannot read the claude-code source HOME/.claude/projectz: no such folder\n")
	if out, _ := w.expect(0, []string{"status"}); !strings.Contains(out, "  claude-code HOME/.claude/projectz: cannot read: no such folder\n") ||
		!strings.Contains(out, "  codex       HOME/.codex/sessions: not read ([[sources]] in the config replaces the default folders)\n") {
		t.Errorf("status does not list the sources:\n%s", out)
	}
	// Fixed: the two agents' default folders, named by kind alone.
	writeFile(t, cfgPath, cfg+"\n[[sources]]\nkind = \"codex\"\n[[sources]]\nkind = \"claude-code\"\n")
	if _, errOut := w.expect(0, []string{"scan"}, "scanned 4 transcripts: 0 added, 0 updated, 4 unchanged, 0 problems\n"); strings.Contains(errOut, "hint") {
		t.Errorf("hints with every default folder listed:\n%s", errOut)
	}
	writeFile(t, cfgPath, cfg)

	// An unreadable default folder: reported, not skipped without a word.
	projects := filepath.Join(w.home, ".claude", "projects")
	reason := w.makeUnreadable(projects)
	w.expect(1, []string{"scan"},
		"scanned 3 transcripts: 0 added, 0 updated, 3 unchanged, 1 problem\n",
		"memctl: error: cannot read the claude-code source HOME/.claude/projects: "+reason+"\n",
		"memctl: hint: memctl reads the agents' default folders when they exist; fix the folder, or list the sources to read in [[sources]] of HOME/.memctl/config.toml (see docs/config.md)\n")
	w.expect(1, []string{"run"},
		"extracted 0 threads",
		"v1: consolidation skipped cooldown",
		"memctl: error: cannot read the claude-code source HOME/.claude/projects: "+reason+"\n")
	if out, _ := w.expect(0, []string{"status"}); !strings.Contains(out, "  claude-code HOME/.claude/projects: cannot read: "+reason+"\n") {
		t.Errorf("status does not say the folder cannot be read:\n%s", out)
	}
	// A folder inside a readable source: a warning, like an unreadable
	// file, and the rest of the source is read (exit 0).
	if reason == "permission denied" {
		os.Chmod(projects, 0o700)
		day := filepath.Join(w.home, ".codex", "sessions", "2026", "11", "24")
		os.Chmod(day, 0)
		w.expect(0, []string{"scan"},
			"memctl: warning: HOME/.codex/sessions/2026/11/24: cannot read this folder: permission denied\n",
			"scanned 3 transcripts: 0 added, 0 updated, 3 unchanged, 1 problem\n")
		os.Chmod(day, 0o700)
	} else {
		t.Logf("a folder inside a source cannot be made unreadable here (%s); that case is not exercised", reason)
	}
	w.prefix = nil
	os.Chmod(projects, 0o700)

	// A bad flag or a mistyped command: exit 2, said in memctl's words
	// (the flag, the value, what it takes; the closest name), nothing on
	// stdout.
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--max", "abc"}, "memctl: error: --max: invalid value \"abc\": want an integer\nmemctl: hint: run with --help for usage\n"},
		{[]string{"run", "--bogus"}, "memctl: error: unknown flag: --bogus\nmemctl: hint: run with --help for usage\n"},
		{[]string{"run", "--dryrun"}, "memctl: error: unknown flag: --dryrun\nmemctl: hint: did you mean --dry-run?\n"},
		{[]string{"stauts"}, "memctl: error: unknown command \"stauts\" for \"memctl\"\nmemctl: hint: did you mean memctl status?\n"},
	} {
		out, errOut := w.expect(2, tt.args)
		if out != "" || errOut != tt.want {
			t.Errorf("memctl %s: stdout %q, stderr %q; want nothing on stdout and %q", strings.Join(tt.args, " "), out, errOut, tt.want)
		}
	}
}

// interruptConsolidation starts a model consolidation whose provider
// never answers, sends SIGINT once the provider runs, and checks the exit.
func (w *walk) interruptConsolidation() {
	t := w.t
	slow := filepath.Join(w.home, "slow-provider.sh")
	writeFile(t, slow, "#!/bin/sh\ncat >/dev/null\nsleep 30\n")
	os.Chmod(slow, 0o700)
	c := w.command(w.env("MEMCTL_PROVIDER_KIND=command", "MEMCTL_PROVIDER_COMMAND="+slow), "consolidate", "--mode", "model", "--force")
	var errOut bytes.Buffer
	c.Stderr = &errOut
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	waitForProvider(t, c, filepath.Join(w.home, ".memctl", "memories", "phase2_workspace_diff.md"), &errOut)
	start := time.Now()
	c.Process.Signal(syscall.SIGINT)
	err := c.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != ExitInterrupted {
		t.Fatalf("consolidate after SIGINT: %v, want exit %d\n%s", err, ExitInterrupted, errOut.String())
	}
	if got := errOut.String(); got != "memctl: error: interrupted\n" {
		t.Errorf("stderr after Ctrl-C = %q", got)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("memctl took %v to stop after SIGINT (the provider was not killed)", el)
	}
}

// makeUnreadable makes dir a folder memctl cannot list, even when the
// tests run as root (who reads any folder whatever its mode), and returns
// the reason memctl should give. Root loses that power when memctl runs
// under setpriv without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH; without
// setpriv the folder becomes a link to itself, which fails for everyone.
func (w *walk) makeUnreadable(dir string) string {
	t := w.t
	if err := os.Chmod(dir, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	if _, err := os.ReadDir(dir); err != nil {
		return "permission denied" // not root: the mode is enough
	}
	if setpriv, err := exec.LookPath("setpriv"); err == nil {
		prefix := []string{setpriv, "--bounding-set", "-dac_override,-dac_read_search"}
		works := exec.Command(setpriv, append(prefix[1:], "true")...).Run() == nil
		if works && exec.Command(setpriv, append(prefix[1:], "ls", dir)...).Run() != nil {
			w.prefix = prefix
			t.Logf("running as root: memctl runs under %s so that mode 000 really denies it", strings.Join(prefix, " "))
			return "permission denied"
		}
	}
	t.Logf("running as root without a working setpriv: %s becomes a link to itself", dir)
	os.Chmod(dir, 0o700)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dir, dir); err != nil {
		t.Fatal(err)
	}
	return "too many levels of symbolic links"
}

// readmeCommands are the memctl command lines of the README's "Use it on
// your own sessions" block, comments cut.
func readmeCommands(t *testing.T) [][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)## Use it on your own sessions\n+```sh\n(.*?)```").FindStringSubmatch(string(b))
	if m == nil {
		t.Fatal(`README.md has no "Use it on your own sessions" sh block`)
	}
	var out [][]string
	for _, line := range strings.Split(m[1], "\n") {
		line, _, _ = strings.Cut(line, "#")
		if f := strings.Fields(line); len(f) > 0 && f[0] == "memctl" {
			out = append(out, f)
		}
	}
	return out
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func readFileString(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A new user's first day on a machine with no agent sessions
// yet: the README's commands say that nothing was found and where memctl
// looked, summary injects nothing, and setup keeps a symlinked agent config
// (a dotfiles repository) a link, through setup and undo.
func TestNewcomerEmptyHome(t *testing.T) {
	w := &walk{t: t, home: t.TempDir()}
	cmds := readmeCommands(t)
	w.expect(0, cmds[0][1:], "wrote HOME/.memctl/config.toml\n")
	w.expect(0, cmds[1][1:],
		"memctl: no transcripts found: HOME/.claude/projects (Claude Code) and HOME/.codex/sessions (Codex) do not exist\n",
		"memctl: hint: memctl reads the folders where Claude Code and Codex keep their sessions",
		"v1: the memory is empty: no raw memory or note to consolidate yet, so summary prints nothing\n")
	if out, errOut := w.expect(0, cmds[2][1:]); out != "" || errOut != "" {
		t.Errorf("summary of an empty memory: stdout %d bytes, stderr %q; want nothing\n%s", len(out), errOut, out)
	}
	if out, _ := w.expect(0, []string{"status"}); !strings.Contains(out, "  memory        empty: nothing consolidated yet, so summary prints nothing\n") ||
		!strings.Contains(out, "  claude-code HOME/.claude/projects: does not exist (nothing to read)\n") {
		t.Errorf("status of an empty home:\n%s", out)
	}

	// ~/.claude/settings.json is a link into a dotfiles repository.
	dotfiles := filepath.Join(w.home, "dotfiles", "claude", "settings.json")
	writeFile(t, dotfiles, "{\n  \"theme\": \"dark\"\n}\n")
	link := filepath.Join(w.home, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "dotfiles", "claude", "settings.json"), link); err != nil {
		t.Fatal(err)
	}
	isLink := func(when string) {
		t.Helper()
		if to, err := os.Readlink(link); err != nil || to != filepath.Join("..", "dotfiles", "claude", "settings.json") {
			t.Errorf("%s: %s is no longer the link into the dotfiles repository (%q, %v)", when, link, to, err)
		}
	}
	w.expect(0, []string{"setup", "claude-code", "--memctl", "/usr/local/bin/memctl"}, "memctl: wrote HOME/.claude/settings.json\n")
	isLink("after setup")
	if b := readFileString(t, dotfiles); !strings.Contains(b, "summary --agent claude-code") || !strings.Contains(b, `"theme": "dark"`) {
		t.Errorf("the dotfiles copy was not edited:\n%s", b)
	}
	w.expect(0, []string{"setup", "--undo", "claude-code"}, "memctl: restored HOME/.claude/settings.json\n")
	isLink("after undo")
	if b := readFileString(t, dotfiles); b != "{\n  \"theme\": \"dark\"\n}\n" {
		t.Errorf("undo did not restore the dotfiles copy:\n%s", b)
	}
}

// The README's first-run block on a home holding 44 sessions
// from months ago (the example sessions, copied with new ids) takes them
// all, says so, and leaves a memory folder that holds every one; Codex's
// windows (idle sessions of the last ten days, two a run) took none.
func TestNewcomerFirstRunTakesHistory(t *testing.T) {
	w := &walk{t: t, home: t.TempDir(), extra: []string{"MEMCTL_NOW=2027-03-01T12:00:00Z"}}
	const copies = 14
	if all := copySessions(t, filepath.Join("..", "examples", "sessions"), w.home, copies); all != 4*copies {
		t.Fatalf("made %d sessions, want %d", all, 4*copies)
	}
	// One example session of four is a Codex exec session, which Codex
	// never turns into memory.
	n := 3 * copies
	cmds := readmeCommands(t)
	w.expect(0, cmds[0][1:])
	want := fmt.Sprintf("memctl: first run: extracting all %d past sessions with the offline heuristic; later runs take sessions idle for 6 hours, updated within 10 days, 2 at a time\n", n)
	w.expect(0, cmds[1][1:], want,
		fmt.Sprintf("extracted %d threads: %d with a memory, 0 with nothing worth keeping, 0 failed; not claimed: %d non-interactive (exec) sessions\n", n, n, copies),
		fmt.Sprintf("v1: consolidation succeeded (%d raw memories); generation 1\n", n))
	ents, err := os.ReadDir(filepath.Join(w.home, ".memctl", "memories", "rollout_summaries"))
	if err != nil || len(ents) != n {
		t.Errorf("the memory folder holds %d rollout summaries (%v), want %d", len(ents), err, n)
	}
	// The home folder has no memory of its own: the summary of every
	// project is what --all-projects prints.
	if out, _ := w.expect(0, append(cmds[2][1:], "--all-projects")); !strings.Contains(out, "## Memory") {
		t.Errorf("summary after the first run:\n%s", out)
	}
	// The next run is not a first run: Codex's windows again.
	if _, errOut := w.expect(0, []string{"run"}, "extracted 0 threads"); strings.Contains(errOut, "first run") {
		t.Errorf("a second run is treated as a first:\n%s", errOut)
	}
}

// copySessions copies the Codex and Claude Code example sessions under
// from into home's agent folders copies times, each copy with new session
// ids, and returns the number of sessions made.
func copySessions(t *testing.T, from, home string, copies int) int {
	t.Helper()
	idRe := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	n := 0
	for _, agent := range []struct{ src, dst string }{
		{filepath.Join(from, "codex", "sessions"), filepath.Join(home, ".codex", "sessions")},
		{filepath.Join(from, "claude", "projects"), filepath.Join(home, ".claude", "projects")},
	} {
		for i := range copies {
			// A new id per session id: its last 12 digits replaced by the copy.
			newID := func(id string) string { return fmt.Sprintf("%s%012x", id[:24], 0xc0de00+i) }
			err := filepath.WalkDir(agent.src, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				rel, _ := filepath.Rel(agent.src, p)
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				out := filepath.Join(agent.dst, idRe.ReplaceAllStringFunc(rel, newID))
				if err := os.MkdirAll(filepath.Dir(out), 0o700); err != nil {
					return err
				}
				if !strings.Contains(rel, "subagents") {
					n++
				}
				return os.WriteFile(out, idRe.ReplaceAllFunc(b, func(id []byte) []byte { return []byte(newID(string(id))) }), 0o600)
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	return n
}
