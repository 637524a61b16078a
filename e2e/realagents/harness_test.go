package realagents

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/memctl/memctl/internal/store"
	"github.com/memctl/memctl/internal/testenv"
	"github.com/memctl/memctl/internal/textcut"
)

// The pinned CLI versions (e2e/realagents/agents/package.json pins the
// same; scripts/install-agents.sh installs them).
const (
	claudeVersion = "2.1.328"
	codexVersion  = "0.169.0"
)

var (
	repoRoot   string
	memctlBin  string
	claudeBin  string
	codexBin   string
	skipReason string
)

// TestMain builds memctl once and finds the installed CLIs. The suite runs
// only in the full suite, MEMCTL_FULL=1, or with its own older switch
// MEMCTL_REAL_AGENTS=1 (it drives real programs for minutes);
// then a missing install is a failure, not a skip.
func TestMain(m *testing.M) {
	os.Exit(setupMain(m))
}

func setupMain(m *testing.M) int {
	wd, _ := os.Getwd()
	repoRoot = filepath.Clean(filepath.Join(wd, "..", ".."))
	agents := filepath.Join(repoRoot, ".cache", "agents", "node_modules", ".bin")
	claudeBin, codexBin = filepath.Join(agents, "claude"), filepath.Join(agents, "codex")
	// MEMCTL_REAL_AGENTS=1 is this suite's own switch, older than the
	// full-suite one; either turns it on.
	if os.Getenv("MEMCTL_REAL_AGENTS") != "1" && !testenv.Full() {
		skipReason = "the real-agent suite drives the real Claude Code and Codex CLIs for minutes; run it with: " +
			"bash scripts/install-agents.sh && MEMCTL_FULL=1 go test -count=1 ./e2e/realagents/ (.ci/run does)"
		fmt.Fprintln(os.Stderr, "realagents: SKIPPED:", skipReason)
		return m.Run()
	}
	for _, b := range []string{claudeBin, codexBin} {
		if _, err := os.Stat(b); err != nil {
			fmt.Fprintf(os.Stderr, "realagents: FAIL: the suite is on (MEMCTL_FULL=1 or MEMCTL_REAL_AGENTS=1) but %s is not installed; run scripts/install-agents.sh\n", b)
			return 1
		}
	}
	dir, err := os.MkdirTemp("", "memctl-realagents-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	memctlBin = filepath.Join(dir, "memctl")
	// memctl-summary beside memctl, as the README installs them: setup then
	// writes it into the SessionStart hooks, so the real CLIs run it.
	for _, b := range []struct{ out, pkg string }{{memctlBin, "."}, {filepath.Join(dir, "memctl-summary"), "./cmd/memctl-summary"}} {
		build := exec.Command("go", "build", "-o", b.out, b.pkg)
		build.Dir = repoRoot
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "realagents: build %s: %v\n%s", b.pkg, err, out)
			return 1
		}
	}
	return m.Run()
}

func requireAgents(t *testing.T) {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
}

// trap is an HTTP proxy that refuses everything and records where the
// CLIs tried to go: HTTPS_PROXY points at it, NO_PROXY exempts loopback,
// so any attempt to leave 127.0.0.1 shows up here and fails the test.
type trap struct {
	mu    sync.Mutex
	hosts []string
	srv   *http.Server
	URL   string
}

func newTrap(t *testing.T) *trap {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tr := &trap{URL: "http://" + ln.Addr().String()}
	tr.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tr.mu.Lock()
		tr.hosts = append(tr.hosts, r.Method+" "+r.Host)
		tr.mu.Unlock()
		http.Error(w, "the real-agent suite allows no traffic off loopback", http.StatusForbidden)
	})}
	go tr.srv.Serve(ln)
	t.Cleanup(func() { tr.srv.Close() })
	return tr
}

// knownAttempts are the connections a CLI attempts that no setting turns
// off in the pinned version. The trap refuses them, so nothing leaves the
// machine; any other attempt fails the test.
var knownAttempts = map[string]string{
	"raw.githubusercontent.com:443": "Codex 0.169 TUI fetches announcement_tip.toml on start; no switch",
}

func (tr *trap) Hosts() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return append([]string(nil), tr.hosts...)
}

// world is one test's fresh machine: homes, a project, the stand-ins.
type world struct {
	t                                *testing.T
	root, home, proj                 string
	claudeDir, codexHome, memctlHome string
	anth                             *Anthropic
	oai                              *OpenAI
	trap                             *trap
	env                              []string
	realHomeBefore                   string
	start                            time.Time
	// allowed are attempts off loopback this world's setup causes on
	// purpose (knownAttempts are every world's), with why.
	allowed map[string]string
}

const (
	calcBroken = "add() { expr $1 - $2; }\n"
	testScript = ". ./calc.sh\nif [ \"$(add 2 3)\" = 5 ]; then echo PASS; else echo FAIL; exit 1; fi\n"
)

func newWorld(t *testing.T) *world {
	requireAgents(t)
	// Outside any git repository (Codex would ask to trust the
	// repository's root), and kept when the test fails.
	root, err := os.MkdirTemp("", "memctl-"+strings.ReplaceAll(t.Name(), "/", "-")+"-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !t.Failed() {
			os.RemoveAll(root)
		} else {
			t.Logf("kept %s for inspection", root)
		}
	})
	w := &world{t: t, root: root, home: filepath.Join(root, "home"), proj: filepath.Join(root, "work", "calc"), start: time.Now()}
	w.claudeDir = filepath.Join(w.home, ".claude")
	w.codexHome = filepath.Join(w.home, ".codex")
	w.memctlHome = filepath.Join(w.home, ".memctl")
	for _, d := range []string{w.home, w.proj, w.codexHome, filepath.Join(root, "tmp")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(w.proj, "calc.sh"), []byte(calcBroken), 0o644)
	os.WriteFile(filepath.Join(w.proj, "test.sh"), []byte(testScript), 0o644)
	if w.anth, err = NewAnthropic(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.anth.Close() })
	if w.oai, err = NewOpenAI(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.oai.Close() })
	w.trap = newTrap(t)
	// Only what the CLIs need, nothing of the machine's own environment
	// (no real keys, no real base URLs).
	w.env = []string{
		"HOME=" + w.home, "USER=dev", "LANG=C.UTF-8", "TERM=xterm-256color", "SHELL=/bin/bash",
		"PATH=" + filepath.Dir(memctlBin) + ":/usr/local/bin:/usr/bin:/bin",
		"TMPDIR=" + filepath.Join(root, "tmp"),
		"CLAUDE_CONFIG_DIR=" + w.claudeDir, "CODEX_HOME=" + w.codexHome, "MEMCTL_HOME=" + w.memctlHome,
		"ANTHROPIC_BASE_URL=" + w.anth.URL, "ANTHROPIC_API_KEY=sk-ant-standin-0000000000000000",
		"STANDIN_KEY=sk-standin",
		"HTTPS_PROXY=" + w.trap.URL, "HTTP_PROXY=" + w.trap.URL, "https_proxy=" + w.trap.URL, "http_proxy=" + w.trap.URL,
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
		// Claude Code: no telemetry, error reports, update checks or other
		// calls beside the model's.
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1",
		"DISABLE_AUTOUPDATER=1", "DISABLE_BUG_COMMAND=1", "CLAUDE_CODE_DISABLE_TERMINAL_TITLE=1",
		"CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL=1", "CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL=1",
	}
	w.realHomeBefore = realHomeState()
	t.Cleanup(func() {
		if got := realHomeState(); got != w.realHomeBefore {
			t.Errorf("the agents wrote into the machine's own home:\nbefore %s\nafter  %s", w.realHomeBefore, got)
		}
		var refused []string
		for _, h := range w.trap.Hosts() {
			host := strings.TrimPrefix(h, "CONNECT ")
			why, ok := knownAttempts[host]
			if !ok {
				why, ok = w.allowed[host]
			}
			if ok {
				refused = append(refused, h+" ("+why+")")
				continue
			}
			t.Errorf("traffic off loopback was attempted: %s", h)
		}
		if len(refused) > 0 {
			t.Logf("refused at the trap, as expected: %v", refused)
		}
	})
	return w
}

// realHomeState fingerprints the places the CLIs write by default in the
// machine's real home, to prove a run used only the test's homes.
func realHomeState() string {
	h, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range []string{".claude", ".claude.json", ".codex", ".memctl"} {
		st, err := os.Stat(filepath.Join(h, p))
		if err != nil {
			fmt.Fprintf(&b, "%s:absent ", p)
			continue
		}
		fmt.Fprintf(&b, "%s:%d ", p, st.ModTime().UnixNano())
	}
	return b.String()
}

// run runs a program in the world, bounded in time.
func (w *world) run(timeout time.Duration, dir string, name string, args ...string) (string, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = w.env
	cmd.Stdin = nil
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("%s timed out after %s: %w", filepath.Base(name), timeout, ctx.Err())
	}
	return out.String(), errOut.String(), err
}

// memctl runs the built memctl and fails the test on error.
func (w *world) memctl(args ...string) string {
	w.t.Helper()
	out, errOut, err := w.run(2*time.Minute, w.proj, memctlBin, args...)
	if err != nil {
		w.t.Fatalf("memctl %s: %v\n%s%s", strings.Join(args, " "), err, out, errOut)
	}
	return out
}

// codexArgs points Codex at the Responses stand-in for this run only
// (-c flags, so config.toml holds nothing but what memctl setup wrote).
func (w *world) codexArgs() []string {
	return []string{
		"-c", `model="standin-model"`, "-c", `model_provider="standin"`,
		"-c", `model_providers.standin.name="standin"`, "-c", `model_providers.standin.base_url="` + w.oai.URL + `"`,
		"-c", `model_providers.standin.wire_api="responses"`, "-c", `model_providers.standin.env_key="STANDIN_KEY"`,
		"-c", `model_providers.standin.request_max_retries=0`, "-c", `model_providers.standin.stream_max_retries=0`,
		// No plugin sync (GitHub, chatgpt.com), no announcement tips
		// (raw.githubusercontent.com), no update check, no analytics.
		"-c", `features.plugins=false`, "-c", `features.apps=false`, "-c", `tui.show_tooltips=false`,
		"-c", `check_for_update_on_startup=false`, "-c", `analytics.enabled=false`,
		"-c", `projects."` + w.proj + `".trust_level="trusted"`,
		"-c", `sandbox_mode="danger-full-access"`, "-c", `approval_policy="never"`,
	}
}

// seedClaudeFirstRun answers Claude Code's first-run questions the way a
// user does once (onboarding done, this folder trusted, the API key
// accepted). It is the CLI's own state, not memctl's: memctl setup runs
// after it and merges its MCP entry into the same file.
func (w *world) seedClaudeFirstRun() {
	os.MkdirAll(w.claudeDir, 0o700)
	key := "sk-ant-standin-0000000000000000"
	body := fmt.Sprintf(`{"hasCompletedOnboarding":true,"lastOnboardingVersion":%q,"customApiKeyResponses":{"approved":[%q],"rejected":[]},`+
		`"projects":{%q:{"hasTrustDialogAccepted":true,"hasCompletedProjectOnboarding":true}}}`, claudeVersion, key[len(key)-20:], w.proj)
	if err := os.WriteFile(filepath.Join(w.claudeDir, ".claude.json"), []byte(body+"\n"), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// openStore opens memctl's v1 database for a read.
func (w *world) withStore(f func(st *store.Store)) {
	w.t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(w.memctlHome, "memories_1.sqlite"))
	if err != nil {
		w.t.Fatal(err)
	}
	defer st.Close()
	f(st)
}

// usage sums usage_count over every raw memory.
func (w *world) usage() int64 {
	var n int64
	w.withStore(func(st *store.Store) {
		outs, err := st.AllOutputs(context.Background())
		if err != nil {
			w.t.Fatal(err)
		}
		for _, o := range outs {
			n += o.UsageCount
		}
	})
	return n
}

func (w *world) threads() []store.Thread {
	var out []store.Thread
	w.withStore(func(st *store.Store) {
		ts, err := st.ListThreads(context.Background(), store.ThreadFilter{})
		if err != nil {
			w.t.Fatal(err)
		}
		for _, t := range ts {
			out = append(out, t.Thread)
		}
	})
	return out
}

// waitUsage waits until the usage total passes from, then a moment more
// so a double count would show; it returns the increase.
func (w *world) waitUsage(from int64, timeout time.Duration) int64 {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if n := w.usage(); n > from {
			time.Sleep(700 * time.Millisecond)
			return w.usage() - from
		}
		time.Sleep(150 * time.Millisecond)
	}
	return w.usage() - from
}

var ansiRE = regexp.MustCompile(`\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[()][A-Z0-9]|\x1b[=>78]`)

// tui is an interactive CLI in a pseudo-terminal.
type tui struct {
	t    *testing.T
	cmd  *exec.Cmd
	f    *os.File
	mu   sync.Mutex
	buf  bytes.Buffer
	done chan struct{}
}

func (w *world) startTUI(name string, args ...string) *tui {
	w.t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = w.proj
	cmd.Env = w.env
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 160})
	if err != nil {
		w.t.Fatal(err)
	}
	u := &tui{t: w.t, cmd: cmd, f: f, done: make(chan struct{})}
	go func() {
		b := make([]byte, 8192)
		for {
			n, err := f.Read(b)
			u.mu.Lock()
			u.buf.Write(b[:n])
			u.mu.Unlock()
			if err != nil {
				close(u.done)
				return
			}
		}
	}()
	w.t.Cleanup(func() { u.kill() })
	return u
}

// screen is the output so far without escape sequences.
func (u *tui) screen() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return ansiRE.ReplaceAllString(u.buf.String(), "")
}

// settle waits until the CLI has printed nothing for quiet (at most max).
func (u *tui) settle(quiet, max time.Duration) {
	deadline := time.Now().Add(max)
	last, lastAt := -1, time.Now()
	for time.Now().Before(deadline) {
		u.mu.Lock()
		n := u.buf.Len()
		u.mu.Unlock()
		if n != last {
			last, lastAt = n, time.Now()
		} else if n > 0 && time.Since(lastAt) >= quiet {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// typeLine types text and presses Enter, as a person would: the CLIs
// treat a burst of text with a newline in it as a paste.
func (u *tui) typeLine(text string) {
	u.f.Write([]byte(text))
	// A fixed pause is not enough on a loaded machine: an Enter that comes while the CLI is still drawing the
	// text is read as part of a paste, a newline in the prompt, and the turn is never sent. So wait, as a person
	// would, until the screen has stopped changing (a CLI that animates while idle costs the pause's upper bound).
	time.Sleep(400 * time.Millisecond)
	u.settle(300*time.Millisecond, 3*time.Second)
	u.f.Write([]byte("\r"))
}

// quit types the CLI's exit command and waits for it to end.
func (u *tui) quit(command string) {
	u.typeLine(command)
	select {
	case <-u.done:
	case <-time.After(15 * time.Second):
		u.t.Logf("%s did not exit after %s; killed", filepath.Base(u.cmd.Path), command)
		u.kill()
	}
	u.cmd.Wait()
}

func (u *tui) kill() {
	if u.cmd.Process != nil {
		u.cmd.Process.Kill()
	}
	u.f.Close()
}

// waitFinal waits until the stand-in has given prompt its final answer.
func waitFinal(r interface{ Finals(string) int }, prompt string, n int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if r.Finals(prompt) >= n {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}

func mustContain(t *testing.T, what, s string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(s, want) {
			t.Errorf("%s does not contain %q:\n%s", what, want, textcut.Head(s, 3000))
		}
	}
}
