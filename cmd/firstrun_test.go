package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/creack/pty"
)

// The first week's rules of a fresh home, each through the built binary:
// an empty consolidation delays nothing and calls no model, a first run
// cut short is finished by the next, and --all widens the first run.

// emptyMemory is what every path says of a consolidation with nothing
// to consolidate.
const emptyMemory = "v1: the memory is empty: no raw memory or note to consolidate yet, so summary prints nothing\n"

// TestEmptyConsolidationStartsNoCooldown: on a home with no session yet,
// `consolidate`, `extract` then `consolidate` (the README's command table)
// and `run` each consolidate nothing, say so in the same words, and start
// no cooldown: when sessions arrive five minutes later, `run` extracts and
// consolidates them, so summary has something at once.
func TestEmptyConsolidationStartsNoCooldown(t *testing.T) {
	for _, path := range [][]string{{"consolidate"}, {"extract", "consolidate"}, {"run"}} {
		t.Run(strings.Join(path, "-then-"), func(t *testing.T) {
			w := &walk{t: t, home: t.TempDir()}
			w.expect(0, []string{"config", "init"})
			for i, cmd := range path {
				if i == len(path)-1 {
					w.expect(0, []string{cmd}, emptyMemory)
				} else {
					w.expect(0, []string{cmd})
				}
			}
			out, _ := w.expect(0, []string{"status", "--json"})
			var st struct {
				LastConsolidation struct{ Status string } `json:"last_consolidation"`
				MemoryEmpty       bool                    `json:"memory_empty"`
			}
			if err := json.Unmarshal([]byte(out), &st); err != nil || st.LastConsolidation.Status != "done" || !st.MemoryEmpty {
				t.Fatalf("after the empty consolidation: %+v, %v; want it done and the memory empty", st, err)
			}

			copyTree(t, filepath.Join("..", "examples", "sessions", "codex", "sessions"), filepath.Join(w.home, ".codex", "sessions"))
			copyTree(t, filepath.Join("..", "examples", "sessions", "claude", "projects"), filepath.Join(w.home, ".claude", "projects"))
			w.now = "2026-11-27T12:05:00Z"
			_, errOut := w.expect(0, []string{"run"}, "extracted 3 threads: 3 with a memory", "v1: consolidation succeeded (3 raw memories)")
			if strings.Contains(errOut, "cooldown") {
				t.Errorf("the empty consolidation held the first memory back:\n%s", errOut)
			}
			if out, _ := w.expect(0, []string{"summary", "--all-projects"}); !strings.Contains(out, "invoicer") {
				t.Errorf("summary after the sessions arrived:\n%s", out)
			}
			// A consolidation that made memory starts the cooldown, as in Codex.
			w.now = "2026-11-27T12:10:00Z"
			w.expect(0, []string{"consolidate"}, "v1: consolidation skipped cooldown")
		})
	}
}

// TestNoModelCallToConsolidateNothing: with an API key set and a memory
// with nothing in it, neither `run` nor `consolidate --mode model` calls
// the model (a loopback server that fails every request counts them), and
// both exit 0.
func TestNoModelCallToConsolidateNothing(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, `{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}`)
	}))
	defer srv.Close()
	w := &walk{t: t, home: t.TempDir(), extra: []string{"OPENAI_API_KEY=sk-test-0000", "MEMCTL_PROVIDER_BASE_URL=" + srv.URL + "/v1", "MEMCTL_PROVIDER_MAX_RETRIES=0"}}
	w.expect(0, []string{"run"}, "memctl: provider auto picked openai", emptyMemory)
	w.expect(0, []string{"consolidate", "--mode", "model", "--force"}, emptyMemory)
	if n := requests.Load(); n != 0 {
		t.Errorf("the model was called %d times to consolidate nothing", n)
	}
}

// TestRunAllTakesEveryPastSessionOnAFirstRun: the first example of
// `memctl --help`, on a first run over six sessions months old, takes all
// six: --all widens the first run's rule, it does not turn it off.
func TestRunAllTakesEveryPastSessionOnAFirstRun(t *testing.T) {
	w := &walk{t: t, home: t.TempDir(), extra: []string{"MEMCTL_NOW=2027-03-01T12:00:00Z"}}
	if n := copySessions(t, filepath.Join("..", "examples", "sessions"), w.home, 2); n != 8 {
		t.Fatalf("made %d sessions, want 8", n)
	}
	help, _ := w.expect(0, []string{"--help"})
	var example []string
	for _, line := range strings.Split(help, "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[0] == "$" && f[1] == "memctl" {
			example = f[2:]
			break
		}
	}
	if strings.Join(example, " ") != "run --provider heuristic --all" {
		t.Fatalf("the first example of memctl --help is %q; this test expects run --provider heuristic --all", example)
	}
	// Two copies of the examples: six interactive sessions, two exec.
	w.expect(0, example, "memctl: first run: extracting all 6 past sessions with the offline heuristic",
		"extracted 6 threads: 6 with a memory", "v1: consolidation succeeded (6 raw memories)")
}

// stallingProvider is a command provider that answers at once, except
// that from its third call on, while $SLOW exists, it leaves $WAITING and
// hangs: a run to interrupt.
const stallingProvider = `#!/bin/sh
cat >/dev/null
n=$(cat "$CALLS" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$CALLS"
if [ -e "$SLOW" ] && [ $n -ge 3 ]; then : > "$WAITING"; sleep 60; fi
printf '%s' '{"raw_memory":"---\ndescription: a session\n---\n### Task 1\ntask: a task","rollout_summary":"# A session","rollout_slug":"a-session"}'
`

// TestInterruptedFirstRunIsFinished: a first run with a model provider,
// accepted at a terminal and stopped there with Ctrl-C after two of nine
// past sessions (months old, outside Codex's windows). status, threads
// show and the next run agree on what is left: the next run, from cron
// (no terminal, no --yes), takes the seven without asking again, and the
// first run is then over.
func TestInterruptedFirstRunIsFinished(t *testing.T) {
	w := &walk{t: t, home: t.TempDir()}
	if n := copySessions(t, filepath.Join("..", "examples", "sessions"), w.home, 3); n != 12 {
		t.Fatalf("made %d sessions, want 12", n)
	}
	provider := filepath.Join(w.home, "model.sh")
	writeFile(t, provider, stallingProvider)
	if err := os.Chmod(provider, 0o700); err != nil {
		t.Fatal(err)
	}
	slow, waiting := filepath.Join(w.home, "slow"), filepath.Join(w.home, "waiting")
	writeFile(t, slow, "")
	w.extra = []string{"MEMCTL_NOW=2027-03-01T12:00:00Z", "MEMCTL_PROVIDER_KIND=command", "MEMCTL_PROVIDER_COMMAND=" + provider,
		"MEMCTL_CONSOLIDATION_MODE=heuristic", "MEMCTL_EXTRACT_CONCURRENCY=1",
		"CALLS=" + filepath.Join(w.home, "calls"), "SLOW=" + slow, "WAITING=" + waiting}

	screen, err := ctrlCInPTY(t, w.command(w.env(), "run"), "Extract them all now? [y/N] ", "y", waiting)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != ExitInterrupted {
		t.Fatalf("the first run after Ctrl-C: %v, want exit %d\n%s", err, ExitInterrupted, screen)
	}
	inOrder(t, screen, "memctl: first run: 9 past sessions, about ", "Extract them all now? [y/N] ", "memctl: error: interrupted")
	if err := os.Remove(slow); err != nil {
		t.Fatal(err)
	}

	out, _ := w.expect(0, []string{"status", "--json"})
	var st struct {
		RawMemories int `json:"raw_memories"`
		Eligible    int `json:"eligible_threads"`
		Takes       int `json:"next_extract_takes"`
		FirstRun    *struct {
			State        string `json:"state"`
			PastSessions int    `json:"past_sessions"`
		} `json:"first_run"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	left := 9 - st.RawMemories
	if st.RawMemories != 2 || st.FirstRun == nil || st.FirstRun.State != "continues" || st.FirstRun.PastSessions != left ||
		st.Eligible != left || st.Takes != left {
		t.Fatalf("status after Ctrl-C: %s\nwant 2 raw memories and the %d past sessions left eligible and taken next", out, left)
	}
	if text, _ := w.expect(0, []string{"status"}); !strings.Contains(text, fmt.Sprintf("  first run     cut short; the next extract takes the %d past sessions it left\n", left)) {
		t.Errorf("status does not say what the next run takes:\n%s", text)
	}
	if n := eligibleByThreadsShow(w); n != left {
		t.Errorf("threads show calls %d threads eligible, status %d", n, left)
	}

	_, errOut := w.expect(0, []string{"run"},
		fmt.Sprintf("memctl: first run, continued: extracting the %d past sessions it has not taken yet", left),
		fmt.Sprintf("extracted %d threads: %d with a memory", left, left),
		"v1: consolidation succeeded (9 raw memories)")
	if strings.Contains(errOut, "Extract them all now?") || strings.Contains(errOut, "taking 2 of") {
		t.Errorf("the run that finishes an accepted first run asked again or kept the usual limit:\n%s", errOut)
	}
	out, _ = w.expect(0, []string{"status", "--json"})
	st.FirstRun = nil
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.FirstRun != nil || st.Eligible != 0 {
		t.Errorf("after the first run was finished: %s", out)
	}
}

// eligibleByThreadsShow counts the threads `threads show` calls eligible.
func eligibleByThreadsShow(w *walk) int {
	out, _ := w.expect(0, []string{"threads", "list", "--json"})
	var threads []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(out), &threads); err != nil {
		w.t.Fatal(err)
	}
	n := 0
	for _, th := range threads {
		out, _ := w.expect(0, []string{"threads", "show", th.ID, "--json"})
		var doc struct {
			Eligibility struct{ Eligible bool } `json:"eligibility"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			w.t.Fatal(err)
		}
		if doc.Eligibility.Eligible {
			n++
		}
	}
	return n
}

// ctrlCInPTY runs c in a pseudo-terminal, answers prompt, and once the
// file marker exists presses Ctrl-C there (the terminal sends SIGINT to
// memctl and what it runs). It returns what the terminal showed and c's
// exit.
func ctrlCInPTY(t *testing.T, c *exec.Cmd, prompt, answer, marker string) (string, error) {
	t.Helper()
	f, err := pty.StartWithSize(c, &pty.Winsize{Rows: 50, Cols: 400})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	screen := make(chan string, 1)
	var seen atomic.Value
	seen.Store("")
	go func() {
		var all strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			all.Write(buf[:n])
			seen.Store(all.String())
			if err != nil {
				screen <- strings.ReplaceAll(all.String(), "\r", "")
				return
			}
		}
	}()
	until := func(what string, ok func() bool) {
		deadline := time.Now().Add(60 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				c.Process.Kill()
				t.Fatalf("timed out waiting for %s:\n%s", what, seen.Load())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	until("the prompt", func() bool { return strings.Contains(seen.Load().(string), prompt) })
	if _, err := f.Write([]byte(answer + "\n")); err != nil {
		t.Fatal(err)
	}
	until("the stalled call", func() bool { _, err := os.Stat(marker); return err == nil })
	if _, err := f.Write([]byte{0x03}); err != nil { // Ctrl-C
		t.Fatal(err)
	}
	err = c.Wait()
	return <-screen, err
}
