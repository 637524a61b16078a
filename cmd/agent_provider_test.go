//go:build unix

package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/store"
)

// agentWorld is a home whose provider is an agent CLI: a fake `claude`
// or `codex` on PATH that answers --version and the login question as
// the pinned CLIs do, and each request as the file mode says, replaying
// what the pinned CLI printed (internal/model/testdata/agentcli).
type agentWorld struct {
	t                       *testing.T
	dir, home, cfg, src, fx string
	env                     []string
}

func newAgentWorld(t *testing.T, kind, providerLines string) *agentWorld {
	t.Helper()
	dir := t.TempDir()
	w := &agentWorld{t: t, dir: dir, home: filepath.Join(dir, "home"), cfg: filepath.Join(dir, "config.toml"), src: filepath.Join(dir, "transcripts")}
	fx, err := filepath.Abs(filepath.Join("..", "internal", "model", "testdata", "agentcli"))
	if err != nil {
		t.Fatal(err)
	}
	w.fx = fx
	bin := filepath.Join(dir, "bin")
	os.MkdirAll(bin, 0o700)
	prog, version, login := "claude", "2.1.328 (Claude Code)", `echo '{"loggedIn": true, "authMethod": "claude.ai", "subscriptionType": "max"}'`
	if kind == "codex" {
		prog, version, login = "codex", "codex-cli 0.169.0", "echo 'Logged in using ChatGPT' >&2"
	}
	script := fmt.Sprintf(`#!/bin/sh
case "$1" in
--version) echo '%s'; exit 0;;
auth|login) if [ "$(cat '%[3]s/login')" = no ]; then echo '{"loggedIn": false, "authMethod": "none"}'; echo 'Not logged in' >&2; exit 1; fi; %[2]s; exit 0;;
esac
cat > /dev/null
echo "$(pwd)" >> '%[3]s/calls'
case $(cat '%[3]s/mode') in
success) cat '%[4]s/%[5]s-success.out';;
nologin) cat '%[4]s/%[5]s-%[6]s.out'; exit 1;;
ratelimit) cat '%[4]s/%[5]s-429.out'; exit 1;;
text) cat '%[4]s/%[5]s-text.out';;
hang) sleep 30;;
killed) kill -9 $$;;
esac
`, version, login, dir, fx, prog, map[string]string{"claude": "nologin", "codex": "401"}[prog])
	if err := os.WriteFile(filepath.Join(bin, prog), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	w.set("mode", "success")
	w.set("login", "yes")
	os.WriteFile(w.cfg, []byte(fmt.Sprintf("[provider]\nkind = %q\n%s[[sources]]\nkind = \"jsonl\"\npath = %q\n", kind, providerLines, w.src)), 0o600)
	w.env = []string{"MEMCTL_HOME=" + w.home, "MEMCTL_CONFIG=" + w.cfg, "PATH=" + bin + ":/usr/bin:/bin",
		"OPENAI_API_KEY=", "ANTHROPIC_API_KEY=", "HOME=" + filepath.Join(dir, "userhome"), "CODEX_HOME="}
	return w
}

func (w *agentWorld) set(file, value string) {
	if err := os.WriteFile(filepath.Join(w.dir, file), []byte(value), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

func (w *agentWorld) memctl(at time.Time, args ...string) (string, int) {
	w.t.Helper()
	_, stderr, code := runCLI(w.t, append(append([]string{}, w.env...), "MEMCTL_NOW="+at.UTC().Format(time.RFC3339)), "", args...)
	return stderr, code
}

func (w *agentWorld) store() *store.Store {
	w.t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(w.home, "memories_1.sqlite"))
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { st.Close() })
	return st
}

// session writes one more transcript.
func (w *agentWorld) session(id string, at time.Time) {
	ts := at.UTC().Format(time.RFC3339)
	body := fmt.Sprintf(`{"type":"session","id":%q,"cwd":"/src/calc","source":"cli","timestamp":%q}
{"type":"message","role":"user","text":"the test in test.sh fails; fix calc.sh","timestamp":%q}
{"type":"message","role":"assistant","text":"Fixed add in calc.sh; sh test.sh passes.","final":true,"timestamp":%q}
`, id, ts, ts, ts)
	if err := os.WriteFile(filepath.Join(w.src, id+".jsonl"), []byte(body), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// calls is how many requests the fake CLI answered.
func (w *agentWorld) calls() int {
	b, _ := os.ReadFile(filepath.Join(w.dir, "calls"))
	return strings.Count(string(b), "\n")
}

// TestAgentProviderFaults: each way the CLI fails is said in memctl's
// words with the CLI's own message, exits 3 (some jobs failed), keeps
// every raw memory already stored, and the thread is extracted once the
// fault is gone and its backoff is over. A rate limit also stops the
// next runs from calling until it resets.
func TestAgentProviderFaults(t *testing.T) {
	t0 := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		kind, mode, providerLines string
		want                      []string
	}{
		{"claude-code", "nologin", "", []string{"claude-code: Claude Code is not logged in (it said: Not logged in · Please run /login); run `claude auth login`"}},
		{"codex", "nologin", "", []string{"codex: Codex is not logged in (it said: unexpected status 401 Unauthorized"}},
		{"claude-code", "ratelimit", "", []string{"claude-code: Claude Code is rate-limited (it said: API Error", "extraction waits 1h0m0s"}},
		{"codex", "ratelimit", "", []string{"codex: Codex is rate-limited (it said: You’ve hit your usage limit. Try again later.)"}},
		{"claude-code", "hang", "timeout = \"1s\"\n", []string{"claude-code: no answer from claude within 1s (provider.timeout); it and everything it started were killed"}},
		{"codex", "killed", "", []string{"codex: codex was killed before it answered (signal: killed)"}},
		{"claude-code", "text", "", []string{`claude-code: Claude Code answered with text, not the schema's JSON: "Done."`}},
		{"codex", "text", "", []string{`codex: Codex answered with text, not the schema's JSON: "Scripted session"`}},
	} {
		t.Run(tt.kind+" "+tt.mode, func(t *testing.T) {
			w := newAgentWorld(t, tt.kind, tt.providerLines)
			writeJSONLThreads(t, w.src, 2, t0.Add(-48*time.Hour))
			if stderr, code := w.memctl(t0, "extract", "--all"); code != 0 {
				t.Fatalf("first extraction: exit %d\n%s", code, stderr)
			}
			before, _ := w.store().AllOutputs(context.Background())
			if len(before) != 2 {
				t.Fatalf("%d raw memories after the first extraction, want 2", len(before))
			}
			// A new session, and the fault.
			w.session("00000000-0000-4000-8000-0000000000aa", t0.Add(-24*time.Hour))
			w.set("mode", tt.mode)
			stderr, code := w.memctl(t0, "extract", "--all")
			if code != ExitPartial {
				t.Fatalf("extract with the fault: exit %d, want %d\n%s", code, ExitPartial, stderr)
			}
			for _, want := range append(tt.want, "1 of 1 jobs failed") {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
			st := w.store()
			if after, _ := st.AllOutputs(context.Background()); len(after) != 2 {
				t.Errorf("%d raw memories after the failure, want the 2 kept", len(after))
			}
			job, err := st.Job(context.Background(), store.KindStage1, "00000000-0000-4000-8000-0000000000aa")
			if err != nil || job.Status == "running" || !strings.Contains(job.LastError, tt.want[0][:20]) {
				t.Errorf("the failed job: %+v %v", job, err)
			}
			calls := w.calls()
			if tt.mode == "ratelimit" {
				// The next run within the hour calls nothing.
				stderr, code := w.memctl(t0.Add(30*time.Minute), "extract", "--all")
				if code != 0 || !strings.Contains(stderr, "extract skipped: "+tt.kind+" rate limit reached") || w.calls() != calls {
					t.Errorf("extract during the rate limit: exit %d, %d calls made\n%s", code, w.calls()-calls, stderr)
				}
			}
			// Fixed, and past the backoff: the thread is extracted.
			w.set("mode", "success")
			if stderr, code := w.memctl(t0.Add(2*time.Hour), "extract", "--all"); code != 0 || !strings.Contains(stderr, "extracted 1 thread: 1 with a memory") {
				t.Errorf("the retry: exit %d\n%s", code, stderr)
			}
			if after, _ := w.store().AllOutputs(context.Background()); len(after) != 3 {
				t.Errorf("%d raw memories after the retry, want 3", len(after))
			}
		})
	}
}

// TestAgentProviderRefusedBeforeClaim: a CLI that is not installed, or
// holds no login, is refused before any thread is claimed (exit 2), with
// what to do.
func TestAgentProviderRefusedBeforeClaim(t *testing.T) {
	t0 := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name, kind string
		prepare    func(w *agentWorld)
		want       string
	}{
		{"claude missing", "claude-code", func(w *agentWorld) { os.Remove(filepath.Join(w.dir, "bin", "claude")) },
			"claude-code: cannot run claude: claude: not found on PATH; install Claude Code, or set provider.command to the path of claude"},
		{"claude logged out", "claude-code", func(w *agentWorld) { w.set("login", "no") },
			"claude-code: Claude Code 2.1.328, not logged in; run `claude auth login` (or `claude`, then /login), then run memctl again"},
		{"codex logged out", "codex", func(w *agentWorld) { w.set("login", "no") },
			"codex: Codex 0.169.0, not logged in; run `codex login`, then run memctl again"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newAgentWorld(t, tt.kind, "")
			writeJSONLThreads(t, w.src, 2, t0.Add(-48*time.Hour))
			tt.prepare(w)
			for _, args := range [][]string{{"extract", "--all"}, {"run", "--all"}} {
				stderr, code := w.memctl(t0, args...)
				if code != ExitUsage || !strings.Contains(stderr, tt.want) {
					t.Errorf("memctl %s: exit %d, want %d saying %q\n%s", strings.Join(args, " "), code, ExitUsage, tt.want, stderr)
				}
			}
			if _, err := os.Stat(filepath.Join(w.home, "memories_1.sqlite")); err == nil {
				if jobs, _ := w.store().Jobs(context.Background()); len(jobs) != 0 {
					t.Errorf("jobs after a refused provider: %+v", jobs)
				}
			}
			if w.calls() != 0 {
				t.Errorf("%d requests made", w.calls())
			}
		})
	}
}
