package realagents

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/store"
	"github.com/memctl/memctl/internal/textcut"
)

// turnCount is the citation tally of one agent and mode.
type turnCount struct {
	mode             string
	turns, counted   int
	double, injected int
}

func (c turnCount) String() string {
	return fmt.Sprintf("%s %d/%d counted (%d double, summary in the request %d/%d)", c.mode, c.counted, c.turns, c.double, c.injected, c.turns)
}

const citeTurns = 10 // per mode: 10 non-interactive + 10 interactive = 20 per agent

func citePrompt(mode string, i int) string {
	return fmt.Sprintf("[cite] %s turn %d: how did we fix calc.sh last time?", mode, i)
}

// findThread returns the thread whose preview starts with prompt.
func findThread(t *testing.T, threads []store.Thread, kind, prompt string) store.Thread {
	t.Helper()
	for _, th := range threads {
		if th.SourceKind == kind && strings.HasPrefix(th.Preview, prompt) {
			return th
		}
	}
	var got []string
	for _, th := range threads {
		got = append(got, th.SourceKind+":"+th.Source+":"+th.Preview)
	}
	t.Fatalf("no %s thread with preview %q; threads: %v", kind, prompt, got)
	return store.Thread{}
}

// checkThread asserts what memctl indexed of a session the CLI wrote.
func (w *world) checkThread(th store.Thread, source string, interactive bool) {
	t := w.t
	t.Helper()
	if th.Cwd != w.proj {
		t.Errorf("thread %s: cwd %q, want %q", th.ID, th.Cwd, w.proj)
	}
	if th.Source != source || th.Interactive != interactive {
		t.Errorf("thread %s: source %q interactive %v, want %q %v", th.ID, th.Source, th.Interactive, source, interactive)
	}
	lo, hi := w.start.Add(-time.Minute), time.Now().Add(time.Minute)
	if th.CreatedAt.Before(lo) || th.UpdatedAt.After(hi) || th.UpdatedAt.Before(th.CreatedAt) {
		t.Errorf("thread %s: created %s updated %s, not within this run (%s .. %s)", th.ID, th.CreatedAt, th.UpdatedAt, lo, hi)
	}
	if !strings.HasPrefix(th.Path, w.home+"/") {
		t.Errorf("thread %s: transcript %s is not in the test's home", th.ID, th.Path)
	}
}

// extractAndConsolidate runs Phase 1 and 2 offline and returns the
// extract report.
func (w *world) extractAndConsolidate() map[string]any {
	var rep map[string]any
	if err := json.Unmarshal([]byte(w.memctl("--json", "extract", "--all", "--provider", "heuristic")), &rep); err != nil {
		w.t.Fatal(err)
	}
	if rep["failed"].(float64) != 0 {
		w.t.Fatalf("extract failed: %v", rep)
	}
	w.memctl("consolidate", "--mode", "heuristic", "--force")
	if _, err := os.Stat(filepath.Join(w.memctlHome, "memories", "memory_summary.md")); err != nil {
		w.t.Fatalf("no memory summary after consolidation: %v", err)
	}
	return rep
}

// injectedFor reports whether a request of this turn carried the summary
// scoped to the session's project (docs/projects.md): the hook ran in the
// project folder (work/calc, not a repository, so named "calc") and its
// memory, not the "no memory of this project" line, reached the model.
func injectedFor(reqs []Request) bool {
	for _, q := range reqs {
		if strings.Contains(q.Body, "MEMORY_SUMMARY BEGINS") && strings.Contains(q.Body, "## Project: calc") &&
			!strings.Contains(q.Body, "No memory of this project has been consolidated yet") {
			return true
		}
	}
	return false
}

// tally counts one turn: the usage total must rise by exactly one.
func (w *world) tally(c *turnCount, before int64, injected bool, wait time.Duration) {
	c.turns++
	if injected {
		c.injected++
	}
	switch d := w.waitUsage(before, wait); {
	case d == 1:
		c.counted++
	case d > 1:
		c.double++
		w.t.Errorf("%s turn %d counted %d times", c.mode, c.turns, d)
	}
}

func report(t *testing.T, agent string, counts ...turnCount) {
	t.Helper()
	total, counted := 0, 0
	var parts []string
	for _, c := range counts {
		total += c.turns
		counted += c.counted
		parts = append(parts, c.String())
	}
	line := fmt.Sprintf("realagents: %s citations: %d/%d turns counted; %s", agent, counted, total, strings.Join(parts, "; "))
	fmt.Println(line)
	t.Log(line)
	if counted < total-1 {
		t.Errorf("%s: %d of %d turns counted, want at least %d", agent, counted, total, total-1)
	}
	for _, c := range counts {
		if c.injected < c.turns {
			t.Errorf("%s %s: the summary reached only %d of %d turns", agent, c.mode, c.injected, c.turns)
		}
	}
}

// toolResultWith reports whether a request sent back a tool result that
// contains want (the model's next request carries it).
func toolResultWith(reqs []Request, want string) bool {
	for _, q := range reqs {
		if strings.Contains(q.Body, want) && (strings.Contains(q.Body, `"tool_result"`) || strings.Contains(q.Body, `"function_call_output"`)) {
			return true
		}
	}
	return false
}

// snapshot reads files (absent ones as nil) to compare after an undo.
func snapshot(paths ...string) map[string][]byte {
	out := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err == nil {
			out[p] = b
		} else {
			out[p] = nil
		}
	}
	return out
}

// checkUndo runs `memctl setup --undo` and checks every file is back:
// byte for byte when the agent left it alone, otherwise without any of
// memctl's entries.
func (w *world) checkUndo(agent string, before map[string][]byte, changedByAgent ...string) {
	t := w.t
	t.Helper()
	out := w.memctl("--json", "setup", "--undo", agent)
	mustContain(t, "setup --undo --json", out, `"undone"`)
	mayChange := map[string]bool{}
	for _, p := range changedByAgent {
		mayChange[p] = true
	}
	for p, want := range before {
		got, err := os.ReadFile(p)
		switch {
		case mayChange[p]:
			// (The test's own paths contain "memctl": look for the entries.)
			if strings.Contains(string(got), memctlBin) || strings.Contains(string(got), "memctl setup") || strings.Contains(string(got), `"memctl": {`) {
				t.Errorf("%s still holds memctl's entries after the undo:\n%s", p, textcut.Head(string(got), 2000))
			}
		case want == nil && err == nil:
			t.Errorf("%s was created by setup and is still there after the undo", p)
		case want != nil && string(got) != string(want):
			t.Errorf("%s differs after the undo:\nwant %q\ngot  %q", p, textcut.Head(string(want), 800), textcut.Head(string(got), 800))
		}
	}
}
