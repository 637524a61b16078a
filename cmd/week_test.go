package cmd

// A new user's first week, scripted through the built binary: the
// README's commands on a machine with no session yet, sessions arriving
// over the days (the example sessions, each copied in when its day comes,
// the clock pinned with MEMCTL_NOW), a run stopped with Ctrl-C (a real
// SIGINT), sync with a second machine over a bare git remote on disk, a
// lesson proposed to the team and the project's memory written back into
// its AGENTS.md. It checks what the user would: the summary has memory
// in the project's folder, the write-back names no other project, and the
// team file is short enough to review.

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// arrive copies one example session (a path under examples/sessions) to
// where its agent keeps it in home, as if it had just been written.
func arrive(t *testing.T, home, example string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "examples", "sessions", filepath.FromSlash(example)))
	if err != nil {
		t.Fatal(err)
	}
	agent, rest, _ := strings.Cut(example, "/")
	dir := map[string]string{"codex": ".codex", "claude": ".claude"}[agent]
	writeFile(t, filepath.Join(home, dir, filepath.FromSlash(rest)), string(b))
}

// The example sessions, by the day they were written.
const (
	invoicerMonday  = "codex/sessions/2026/11/20/rollout-2026-11-20T09-14-02-01a1f83b-f8ce-7718-a139-873a95bd447e.jsonl"
	recipesWeekend  = "claude/projects/-home-dev-src-recipes/3ceaaf30-8142-48ea-91d9-3080f9b439fc.jsonl"
	invoicerTuesday = "codex/sessions/2026/11/24/rollout-2026-11-24T16-40-11-01a20e6d-e142-7d2e-ab38-6a552c5d6bae.jsonl"
	invoicerRelease = "codex/sessions/2026/11/25/rollout-2026-11-25T10-00-00-01a21225-d97f-7d83-809b-d321ea8ff5f8.jsonl"
)

func TestWeekWalkthrough(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("the walk-through needs git on PATH (sync, team, export)")
	}
	laptop := &walk{t: t, home: t.TempDir()}
	repo := filepath.Join(laptop.home, "src", "invoicer")
	makeRepo(t, repo, "git@github.com:example-org/invoicer.git")

	// Friday 08:00, before any agent session: the README's commands. The
	// first run finds nothing, and its empty consolidation delays nothing.
	laptop.now = "2026-11-20T08:00:00Z"
	cmds := readmeCommands(t)
	laptop.expect(0, cmds[0][1:], "wrote HOME/.memctl/config.toml\n")
	laptop.expect(0, cmds[1][1:], "memctl: no transcripts found", emptyMemory)
	if out, _ := laptop.expect(0, cmds[2][1:]); out != "" {
		t.Errorf("summary of an empty memory printed:\n%s", out)
	}

	// 09:14, the first Codex session; a run at 13:30 (the session is not
	// idle six hours yet, and the empty consolidation was 5.5 hours ago)
	// is the first run: it takes the session and consolidates it.
	arrive(t, laptop.home, invoicerMonday)
	laptop.now = "2026-11-20T13:30:00Z"
	laptop.expect(0, []string{"run"}, "memctl: first run: extracting all 1 past session",
		"extracted 1 thread: 1 with a memory", "v1: consolidation succeeded (1 raw memory)")
	summary := func(w *walk, checkout string) string {
		t.Helper()
		w.dir = checkout
		defer func() { w.dir = "" }()
		out, _ := w.expect(0, cmds[2][1:])
		return out
	}
	if out := summary(laptop, repo); !strings.Contains(out, "## Memory") || !strings.Contains(out, "invoicer") {
		t.Errorf("summary in the invoicer checkout after the first run:\n%s", out)
	}

	// Over the weekend and the next days: a Claude Code session in another
	// project, two more Codex sessions (one an exec). On Wednesday the user
	// tries an agent consolidation and stops it with Ctrl-C: exit 130, the
	// extraction kept, the lock given back, no backoff.
	arrive(t, laptop.home, recipesWeekend)
	arrive(t, laptop.home, invoicerTuesday)
	arrive(t, laptop.home, invoicerRelease)
	laptop.now = "2026-11-25T12:00:00Z"
	laptop.interruptRun()
	out, _ := laptop.expect(0, []string{"status", "--json"})
	var st struct {
		RawMemories       int                                `json:"raw_memories"`
		LastConsolidation struct{ Status, LastError string } `json:"last_consolidation"`
		Backoff           []any                              `json:"backoff"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if st.RawMemories != 3 || st.LastConsolidation.Status != "pending" || st.LastConsolidation.LastError != "" || len(st.Backoff) != 0 {
		t.Errorf("after Ctrl-C: %+v; want 3 raw memories, the consolidation pending, no error, no backoff", st)
	}
	// The next cron run consolidates them, no --force needed.
	laptop.now = "2026-11-25T12:15:00Z"
	laptop.expect(0, []string{"run", "--quiet"})
	if out, _ := laptop.expect(0, []string{"status", "--json"}); !strings.Contains(out, `"selected_for_phase2": 3`) {
		t.Errorf("the run after Ctrl-C did not consolidate the three raw memories:\n%s", out)
	}

	// Sync with the workstation over a bare repository on disk. The
	// workstation has sessions of its own; after taking in the laptop's
	// memories, its first run still takes all of them.
	remote := filepath.Join(t.TempDir(), "memory.git")
	gitRun(t, filepath.Dir(remote), "init", "-q", "--bare", "-b", "main", remote)
	writeFile(t, filepath.Join(laptop.home, ".memctl", "sync", "machine"), "laptop-3f2a9c1e\n")
	laptop.expect(0, []string{"sync", "--remote", remote}, "memctl: sync "+remote+" as laptop-3f2a9c1e: sent ")
	desk := &walk{t: t, home: t.TempDir(), now: "2026-11-27T12:00:00Z"}
	if n := copySessions(t, filepath.Join("..", "examples", "sessions"), desk.home, 1); n != 4 {
		t.Fatalf("the workstation has %d sessions, want 4", n)
	}
	writeFile(t, filepath.Join(desk.home, ".memctl", "sync", "machine"), "desk-9b1c0e77\n")
	desk.expect(0, []string{"sync", "--remote", remote}, "received ", "3 memories added")
	desk.expect(0, []string{"run"}, "memctl: first run: extracting all 3 past sessions",
		"extracted 3 threads: 3 with a memory", "v1: consolidation succeeded (6 raw memories)")
	deskRepo := filepath.Join(desk.home, "src", "invoicer")
	makeRepo(t, deskRepo, "git@github.com:example-org/invoicer.git")
	if out := summary(desk, deskRepo); !strings.Contains(out, "invoicer") {
		t.Errorf("the workstation's summary in the invoicer checkout:\n%s", out)
	}

	// Back on the laptop: one memory's lessons go to the team, for review.
	out, _ = laptop.expect(0, []string{"team", "propose", "--repo", repo, "--author", "Ada <ada@example.com>", "01a1f83b"})
	team, err := os.ReadFile(filepath.Join(repo, filepath.FromSlash(strings.TrimSpace(out))))
	if err != nil {
		t.Fatalf("team propose printed %q: %v", out, err)
	}
	if len(team) >= 1536 {
		t.Errorf("the team file is %d bytes, want under 1.5 KB:\n%s", len(team), team)
	}

	// The project's memory written back into its AGENTS.md: this
	// project's lessons, no other project's name, no path of this machine.
	laptop.expect(0, []string{"export", "--to", "agents-md", "--repo", repo})
	agents, err := os.ReadFile(filepath.Join(repo, "AGENTS.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, other := range []string{"recipes", "/home/dev", laptop.home, "rollout_summaries/"} {
		if strings.Contains(string(agents), other) {
			t.Errorf("AGENTS.md carries %q, which is not this project's:\n%s", other, agents)
		}
	}
	if !bytes.Contains(agents, []byte("memctl")) {
		t.Errorf("AGENTS.md has no memctl block:\n%s", agents)
	}

	// Friday: the summary an agent gets in the checkout has the week in it.
	laptop.now = "2026-11-27T09:00:00Z"
	if out := summary(laptop, repo); !strings.Contains(out, "## Memory") || !strings.Contains(out, "invoicer") {
		t.Errorf("summary at the end of the week:\n%s", out)
	}
}

// interruptRun starts `memctl run` with an agent consolidation that never
// finishes, sends SIGINT once the agent runs, and checks the exit.
func (w *walk) interruptRun() {
	t := w.t
	agent, started := filepath.Join(w.home, "slow-agent.sh"), filepath.Join(w.home, "agent-started")
	writeFile(t, agent, "#!/bin/sh\ncat >/dev/null\n: > '"+started+"'\nsleep 60\n")
	if err := os.Chmod(agent, 0o700); err != nil {
		t.Fatal(err)
	}
	c := w.command(w.env("MEMCTL_CONSOLIDATION_MODE=agent", "MEMCTL_CONSOLIDATION_AGENT_COMMAND="+agent), "run")
	var errOut bytes.Buffer
	c.Stderr = &errOut
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if time.Now().After(deadline) {
			c.Process.Kill()
			t.Fatalf("the agent consolidation never started:\n%s", errOut.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := c.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := c.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != ExitInterrupted {
		t.Fatalf("run after SIGINT: %v, want exit %d\n%s", err, ExitInterrupted, errOut.String())
	}
	if !strings.Contains(errOut.String(), "extracted 2 threads: 2 with a memory") || !strings.HasSuffix(errOut.String(), "memctl: error: interrupted\n") {
		t.Errorf("stderr of the interrupted run:\n%s", errOut.String())
	}
}
