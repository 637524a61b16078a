package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// barrierProviderScript answers an extraction only once $BARRIER/go
// exists, after leaving a started.<pid> file: the test decides when the
// jobs of one process land.
const barrierProviderScript = `#!/bin/sh
cat >/dev/null
: > "$BARRIER/started.$$"
while [ ! -e "$BARRIER/go" ]; do sleep 0.02; done
printf '{"raw_memory":"---\\ndescription: parser fix\\n---\\n### Task 1\\ntask: fix the parser test","rollout_summary":"# Parser test fixed","rollout_slug":"parser-fix"}'
`

// barrierAgentScript is a consolidation agent that waits for
// $BARRIER/agent-go before writing the artifacts from raw_memories.md.
const barrierAgentScript = `#!/bin/sh
cat >/dev/null
: > "$BARRIER/agent-started.$$"
while [ ! -e "$BARRIER/agent-go" ]; do sleep 0.02; done
{ printf '# Memory\n\n'; cat raw_memories.md; } > "$BARRIER/m.$$" && mv "$BARRIER/m.$$" MEMORY.md
printf "v1\n\n## What's in Memory\n\n- the barrier agent's summary\n" > "$BARRIER/s.$$" && mv "$BARRIER/s.$$" memory_summary.md
`

// parallelHome is a home with n transcripts, the barrier provider and the
// barrier agent; env runs memctl on it.
type parallelHome struct {
	dir, home, barrier string
	env                []string
	ids                []string
}

func newParallelHome(t *testing.T, n int, mode string) *parallelHome {
	t.Helper()
	dir := t.TempDir()
	h := &parallelHome{dir: dir, home: filepath.Join(dir, "home"), barrier: filepath.Join(dir, "barrier")}
	src := filepath.Join(dir, "transcripts")
	writeJSONLThreads(t, src, n, time.Now().Add(-24*time.Hour))
	for i := 0; i < n; i++ {
		h.ids = append(h.ids, fmt.Sprintf("00000000-0000-4000-8000-%012d", i))
	}
	provider, agent := filepath.Join(dir, "provider.sh"), filepath.Join(dir, "agent.sh")
	for p, body := range map[string]string{provider: barrierProviderScript, agent: barrierAgentScript} {
		if err := os.WriteFile(p, []byte(body), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(h.barrier, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`[provider]
kind = "command"
command = [%q]
timeout = "60s"
[consolidation]
mode = %q
agent_command = ["/bin/sh", %q]
agent_timeout = "60s"
[memories]
max_rollouts_per_startup = %d
[[sources]]
kind = "jsonl"
path = %q
`, provider, mode, agent, n, src)
	cfgPath := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	h.env = []string{"MEMCTL_HOME=" + h.home, "MEMCTL_CONFIG=" + cfgPath, "BARRIER=" + h.barrier}
	return h
}

// open creates a barrier file.
func (h *parallelHome) open(t *testing.T, name string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(h.barrier, name), nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

// waitFor waits until a file matching pattern appears in the barrier
// folder, or the process ends (done), or a minute passes.
func (h *parallelHome) waitFor(t *testing.T, pattern string, done <-chan error, what string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if m, _ := filepath.Glob(filepath.Join(h.barrier, pattern)); len(m) > 0 {
			return
		}
		select {
		case err := <-done:
			t.Fatalf("the process ended before %s: %v", what, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// runReportJSON is what these tests read of `run --json`.
type runReportJSON struct {
	Extract struct {
		Claimed int `json:"claimed"`
		Failed  int `json:"failed"`
	} `json:"extract"`
	Consolidate struct {
		Status   string   `json:"status"`
		Selected int      `json:"selected"`
		Passes   int      `json:"passes"`
		Requests []string `json:"requests"`
	} `json:"consolidate"`
}

type started struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan error
}

func startRun(t *testing.T, env []string, args ...string) *started {
	t.Helper()
	s := &started{cmd: cliProcess(env, args...), done: make(chan error, 1)}
	s.cmd.Stdout, s.cmd.Stderr = &s.stdout, &s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.done <- s.cmd.Wait() }()
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			_ = s.cmd.Process.Kill()
		}
	})
	return s
}

func (s *started) report(t *testing.T, name string) runReportJSON {
	t.Helper()
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatalf("%s: %v\nstderr:\n%s", name, err, s.stderr.String())
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("%s did not finish", name)
	}
	var rep runReportJSON
	if err := json.Unmarshal(s.stdout.Bytes(), &rep); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, s.stdout.String())
	}
	return rep
}

// checkFolderHolds checks that raw_memories.md lists every thread.
func checkFolderHolds(t *testing.T, home string, ids []string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(home, "memories", "raw_memories.md"))
	if err != nil {
		t.Fatal(err)
	}
	missing := 0
	for _, id := range ids {
		if !strings.Contains(string(raw), id) {
			missing++
		}
	}
	if missing > 0 {
		t.Errorf("raw_memories.md lacks %d of the %d raw memories extracted:\n%s", missing, len(ids), raw)
	}
}

// Two `memctl run --all` at once. The first to reach Phase 2
// consolidated 0 of the 10 raw memories the other was extracting, and the
// six-hour cooldown then kept them out of the memory folder. Here run A
// claims all ten threads and is held in extraction while run B claims
// none and consolidates the empty set; when A's memories land, A's own
// consolidation must go through the cooldown and take all ten.
func TestParallelRunsConsolidateWhatTheOtherExtracted(t *testing.T) {
	h := newParallelHome(t, 10, "heuristic")
	a := startRun(t, h.env, "run", "--all", "--json")
	h.waitFor(t, "started.*", a.done, "run A's extraction started")
	b := startRun(t, h.env, "run", "--all", "--json")
	repB := b.report(t, "run B")
	if repB.Extract.Claimed != 0 || repB.Consolidate.Status != "succeeded" || repB.Consolidate.Selected != 0 {
		t.Fatalf("run B: claimed %d, consolidation %s with %d selected; want 0, succeeded, 0 (the setup of this test)",
			repB.Extract.Claimed, repB.Consolidate.Status, repB.Consolidate.Selected)
	}
	h.open(t, "go")
	repA := a.report(t, "run A")
	if repA.Extract.Claimed != 10 || repA.Extract.Failed != 0 {
		t.Fatalf("run A extracted %d (%d failed), want 10", repA.Extract.Claimed, repA.Extract.Failed)
	}
	if !strings.HasPrefix(repA.Consolidate.Status, "succeeded") || repA.Consolidate.Selected != 10 {
		t.Errorf("run A's consolidation: %s with %d selected, want succeeded with 10\nstderr:\n%s",
			repA.Consolidate.Status, repA.Consolidate.Selected, a.stderr.String())
	}
	checkFolderHolds(t, h.home, h.ids)
}

// The other order: run B's consolidation (a slow agent) is in
// flight while run A's raw memories land. B selected before they landed;
// when it finishes it must see that and consolidate again, since A's own
// consolidation found the lock held and skipped.
func TestConsolidationRunsAgainWhenMemoriesLandedMeanwhile(t *testing.T) {
	h := newParallelHome(t, 6, "agent")
	a := startRun(t, h.env, "run", "--all", "--json")
	h.waitFor(t, "started.*", a.done, "run A's extraction started")
	// A note gives B's consolidation something to work on: with nothing
	// to consolidate no agent would run.
	writeFile(t, filepath.Join(h.home, "memories", "extensions", "ad_hoc", "notes", "staging.md"), "deploys go through staging first\n")
	b := startRun(t, h.env, "run", "--all", "--json")
	h.waitFor(t, "agent-started.*", b.done, "run B's consolidation agent started")
	h.open(t, "go") // A's memories land while B's agent works
	repA := a.report(t, "run A")
	if repA.Extract.Claimed != 6 || repA.Consolidate.Status != "skipped_running" {
		t.Fatalf("run A: claimed %d, consolidation %s; want 6, skipped_running (the setup of this test)\nstderr:\n%s",
			repA.Extract.Claimed, repA.Consolidate.Status, a.stderr.String())
	}
	h.open(t, "agent-go")
	repB := b.report(t, "run B")
	if !strings.HasPrefix(repB.Consolidate.Status, "succeeded") || repB.Consolidate.Selected != 6 || repB.Consolidate.Passes != 2 {
		t.Errorf("run B's consolidation: %s, %d selected, %d passes; want succeeded, 6, 2\nstderr:\n%s",
			repB.Consolidate.Status, repB.Consolidate.Selected, repB.Consolidate.Passes, b.stderr.String())
	}
	checkFolderHolds(t, h.home, h.ids)
	// Nothing is left to do: the next run is back under the cooldown.
	c := startRun(t, h.env, "run", "--all", "--json")
	if rep := c.report(t, "run C"); rep.Consolidate.Status != "skipped_cooldown" {
		t.Errorf("run C: %s, want skipped_cooldown", rep.Consolidate.Status)
	}
}
