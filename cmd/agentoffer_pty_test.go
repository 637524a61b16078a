package cmd

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// offerWorld is a machine with no API key and a logged-in Claude Code: a
// fake `claude` on PATH that answers --version and `auth status` as the
// pinned CLI does and each request with what the pinned CLI printed,
// noting every request it gets (none may come before a yes).
type offerWorld struct {
	*walk
	calls string
}

func newOfferWorld(t *testing.T) *offerWorld {
	w := &offerWorld{walk: &walk{t: t, home: t.TempDir()}}
	copyTree(t, filepath.Join("..", "examples", "sessions", "codex", "sessions"), filepath.Join(w.home, ".codex", "sessions"))
	copyTree(t, filepath.Join("..", "examples", "sessions", "claude", "projects"), filepath.Join(w.home, ".claude", "projects"))
	fx, err := filepath.Abs(filepath.Join("..", "internal", "model", "testdata", "agentcli"))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(w.home, "bin")
	os.MkdirAll(bin, 0o700)
	w.calls = filepath.Join(w.home, "calls")
	writeFile(t, filepath.Join(bin, "claude"), fmt.Sprintf(`#!/bin/sh
case "$1" in
--version) echo '2.1.328 (Claude Code)'; exit 0;;
auth) echo '{"loggedIn": true, "authMethod": "claude.ai", "subscriptionType": "max"}'; exit 0;;
esac
cat > /dev/null
echo request >> '%s'
case "$*" in
*memory_summary_md*) cat '%[2]s/claude-consolidate.out';;
*) cat '%[2]s/claude-success.out';;
esac
`, w.calls, fx))
	os.Chmod(filepath.Join(bin, "claude"), 0o700)
	w.extra = []string{"PATH=" + bin + ":/usr/bin:/bin"}
	return w
}

func (w *offerWorld) requests() int {
	b, _ := os.ReadFile(w.calls)
	return strings.Count(string(b), "\n")
}

// inPTY runs c in a pseudo-terminal, answering each prompt as it shows,
// and returns what the terminal showed.
func inPTY(t *testing.T, c *exec.Cmd, prompts, answers []string) (string, error) {
	t.Helper()
	f, err := pty.StartWithSize(c, &pty.Winsize{Rows: 50, Cols: 400})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var mu sync.Mutex
	var out bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	text := func() string { mu.Lock(); defer mu.Unlock(); return strings.ReplaceAll(out.String(), "\r", "") }
	pos := 0 // each prompt is looked for after the one before
	for i, p := range prompts {
		deadline := time.Now().Add(60 * time.Second)
		for !strings.Contains(text()[pos:], p) {
			if time.Now().After(deadline) {
				c.Process.Kill()
				t.Fatalf("no prompt %q:\n%s", p, text())
			}
			time.Sleep(20 * time.Millisecond)
		}
		pos += strings.Index(text()[pos:], p) + len(p)
		if _, err := f.Write([]byte(answers[i] + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	err = c.Wait()
	<-done
	return text(), err
}

// inOrder checks that s holds wants, each after the one before.
func inOrder(t *testing.T, s string, wants ...string) {
	t.Helper()
	rest := s
	for _, want := range wants {
		i := strings.Index(rest, want)
		if i < 0 {
			t.Errorf("lacks (after the lines before it) %q:\n%s", want, s)
			return
		}
		rest = rest[i+len(want):]
	}
}

// TestRunOffersTheLoggedInCLI: with no API key and Claude Code logged in,
// the first `memctl run` at a terminal says what the CLI would be sent
// and asks; a no keeps the offline heuristic, spends nothing and is not
// asked again; a yes writes provider.kind into the config, and then the
// first run's backlog is asked about as for every model provider.
func TestRunOffersTheLoggedInCLI(t *testing.T) {
	const offered = "memctl: Claude Code 2.1.328, logged in with a claude.ai subscription (max), can write memory with a model instead of the offline heuristic (provider.kind = auto found no API key)\nmemctl: through that login this run would make "
	const prompt = "memctl: use Claude Code for memory? [y/N] "
	t.Run("no", func(t *testing.T) {
		w := newOfferWorld(t)
		screen, err := inPTY(t, w.command(w.env(), "run"), []string{prompt}, []string{"n"})
		if err != nil {
			t.Fatalf("memctl run: %v\n%s", err, screen)
		}
		inOrder(t, screen, offered, "calls (3 sessions to extract, about ", prompt,
			"memctl: keeping the offline heuristic; memctl will not ask again", "provider auto picked heuristic",
			"extracted 3 threads: 3 with a memory")
		if n := w.requests(); n != 0 {
			t.Errorf("%d requests reached Claude Code after a no", n)
		}
		if _, err := os.Stat(filepath.Join(w.home, ".memctl", "config.toml")); err == nil {
			t.Error("a config file was written after a no")
		}
		screen, err = inPTY(t, w.command(w.env(), "run"), nil, nil)
		if err != nil || strings.Contains(screen, "can write memory with a model") {
			t.Errorf("the offer came again after a no: %v\n%s", err, screen)
		}
	})
	t.Run("yes", func(t *testing.T) {
		w := newOfferWorld(t)
		backlog := "Extract them all now? [y/N] "
		screen, err := inPTY(t, w.command(w.env(), "run"), []string{prompt, backlog}, []string{"y", "y"})
		if err != nil {
			t.Fatalf("memctl run: %v\n%s", err, screen)
		}
		cfgPath := filepath.Join(w.home, ".memctl", "config.toml")
		inOrder(t, screen, offered, prompt, `memctl: wrote provider.kind = "claude-code" to `+cfgPath,
			"memctl: first run: 3 past sessions, about ", " input tokens for claude-code (haiku). "+backlog,
			"extracted 3 threads: 3 with a memory", "consolidation succeeded")
		if n := w.requests(); n != 4 {
			t.Errorf("%d requests reached Claude Code, want 3 extractions and a consolidation", n)
		}
		if b, _ := os.ReadFile(cfgPath); !strings.HasPrefix(string(b), "[provider]\nkind = \"claude-code\"  # chosen at memctl run's offer on ") {
			t.Errorf("config:\n%s", b)
		}
	})
}

// TestOfferSaidOnceWithoutATerminal: from cron (no terminal, no --yes)
// the offer is a notice, said once, and nothing is spent; --yes takes it.
func TestOfferSaidOnceWithoutATerminal(t *testing.T) {
	w := newOfferWorld(t)
	_, stderr, code := w.memctl(w.env(), "run")
	if code != 0 || !strings.Contains(stderr, "can write memory with a model") ||
		!strings.Contains(stderr, "memctl: hint: `memctl run --yes` takes it (or answer y at a terminal), or set provider.kind = \"claude-code\"; memctl says this once") {
		t.Fatalf("first run: exit %d\n%s", code, stderr)
	}
	_, stderr, code = w.memctl(w.env(), "run")
	if code != 0 || strings.Contains(stderr, "can write memory") {
		t.Errorf("second run said it again: exit %d\n%s", code, stderr)
	}
	if n := w.requests(); n != 0 {
		t.Fatalf("%d requests without a yes", n)
	}
	_, stderr, code = w.memctl(w.env(), "run", "--yes")
	if code != 0 || !strings.Contains(stderr, "memctl: using Claude Code (--yes)") || !strings.Contains(stderr, `memctl: wrote provider.kind = "claude-code"`) {
		t.Errorf("run --yes: exit %d\n%s", code, stderr)
	}
}

// TestDoctorReportsTheLoggedInCLI: doctor, at a terminal, names the CLI,
// its version and login and how to use it, and spends nothing.
func TestDoctorReportsTheLoggedInCLI(t *testing.T) {
	w := newOfferWorld(t)
	screen, err := inPTY(t, w.command(w.env(), "doctor"), nil, nil)
	if err != nil {
		t.Fatalf("doctor: %v\n%s", err, screen)
	}
	inOrder(t, screen, "info agent_cli: claude-code",
		"Claude Code 2.1.328, logged in with a claude.ai subscription (max): it can write memory with a model instead of the offline heuristic",
		"fix: memctl run offers it and spends nothing before you say yes")
	if n := w.requests(); n != 0 {
		t.Errorf("doctor made %d requests", n)
	}
}
