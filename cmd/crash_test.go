package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/owner"
	"github.com/memctl/memctl/internal/store"
	"github.com/memctl/memctl/internal/testenv"
)

// crashProviderScript answers every extraction after a pause long enough
// for a kill to land while jobs hold leases.
const crashProviderScript = `#!/bin/sh
cat >/dev/null
sleep 0.25
printf '{"raw_memory":"---\\ndescription: crash test memory\\n---\\n### Task 1\\ntask: survive a kill","rollout_summary":"# Survived a kill\\n\\nThe run was killed and resumed.","rollout_slug":"crash-test"}'
`

// crashAgentScript is a consolidation agent that writes the artifacts
// slowly but each one atomically (temp file outside the folder, then
// rename), as a well-behaved agent should. It records its pid so the test
// can kill it too: memctl starts it in its own process group, so killing
// memctl leaves it running.
const crashAgentScript = `#!/bin/sh
echo $$ >> "$CRASH_AGENT_PIDS"
cat >/dev/null
sleep 0.15
{ printf '# Memory\n\nWritten by the crash-test agent.\n\n'; cat raw_memories.md; } > "$CRASH_AGENT_TMP/m.$$"
mv "$CRASH_AGENT_TMP/m.$$" MEMORY.md
sleep 0.15
printf "v1\n\n## What's in Memory\n\n- the crash-test agent's summary\n" > "$CRASH_AGENT_TMP/s.$$"
mv "$CRASH_AGENT_TMP/s.$$" memory_summary.md
`

// TestRunSurvivesSIGKILL kills `memctl run` at random moments (during
// extraction with a slow command provider, and during consolidation with
// the heuristic or a slow agent consolidator) and checks after every kill
// that the database is intact and that every artifact in the memory
// folder is complete. A final run, with the clock two leases later,
// must finish all the work.
//
// MEMCTL_CRASH_SEED replays a logged seed.
func TestRunSurvivesSIGKILL(t *testing.T) {
	testenv.RequireFull(t, "the crash suite kills real memctl processes for several seconds")
	if testing.Short() {
		t.Skip("kills real processes for several seconds")
	}
	seed := time.Now().UnixNano()
	if s := os.Getenv("MEMCTL_CRASH_SEED"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("MEMCTL_CRASH_SEED: %v", err)
		}
		seed = n
	}
	t.Logf("seed %d (MEMCTL_CRASH_SEED=%d replays it)", seed, seed)
	rng := rand.New(rand.NewSource(seed))

	const threads = 12
	const iterations = 14
	dir := t.TempDir()
	// The home exists before the first run, as a home MEMCTL_HOME names
	// must: a kill before the run made it would leave nothing to check.
	home := emptyHome(t, dir, 0)
	src := filepath.Join(dir, "transcripts")
	agentTmp := filepath.Join(dir, "agent-tmp")
	pidFile := filepath.Join(dir, "agent.pids")
	if err := os.MkdirAll(agentTmp, 0o700); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now().UTC().Truncate(time.Second)
	writeJSONLThreads(t, src, threads, t0.Add(-24*time.Hour))
	provider := filepath.Join(dir, "provider.sh")
	agent := filepath.Join(dir, "agent.sh")
	if err := os.WriteFile(provider, []byte(crashProviderScript), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(agent, []byte(crashAgentScript), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`[provider]
kind = "command"
command = [%q]
timeout = "30s"
[consolidation]
mode = "heuristic"
agent_command = ["/bin/sh", %q]
agent_timeout = "30s"
[extract]
concurrency = 4
[[sources]]
kind = "jsonl"
path = %q
`, provider, agent, src)
	cfgPath := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(home, "memories")
	dbPath := filepath.Join(home, store.FileName("v1"))
	baseEnv := []string{"MEMCTL_HOME=" + home, "MEMCTL_CONFIG=" + cfgPath,
		"CRASH_AGENT_PIDS=" + pidFile, "CRASH_AGENT_TMP=" + agentTmp}
	// Each iteration is 2h10m after the previous one, so the leases (1 h)
	// and backoffs (1 h) a killed run left behind have expired and the
	// next run really works instead of skipping.
	const step = 2*time.Hour + 10*time.Minute
	nowAt := func(i int) time.Time { return t0.Add(time.Duration(i) * step) }

	kills, finished, tempLeftovers := 0, 0, 0
	stages := map[string]int{}
	var modes []string
	for i := 0; i < iterations; i++ {
		now := nowAt(i)
		// Give some threads a new version so extraction has work again;
		// sometimes none, so the kill lands in consolidation.
		touched := 0
		forceConsolidation := i%4 == 3
		if !forceConsolidation && rng.Intn(3) > 0 {
			touched = 1 + rng.Intn(threads)
			for _, n := range rng.Perm(threads)[:touched] {
				appendTurn(t, src, n, now.Add(-time.Minute), i)
			}
		}
		mode := "heuristic"
		if forceConsolidation || rng.Intn(2) == 0 {
			mode = "agent"
		}
		modes = append(modes, mode)
		delay := time.Duration(20+rng.Intn(781)) * time.Millisecond
		if forceConsolidation {
			// Nothing to extract but what earlier kills left: the agent
			// is most likely writing now.
			delay = time.Duration(60+rng.Intn(300)) * time.Millisecond
		}
		env := append(append([]string{}, baseEnv...), "MEMCTL_NOW="+now.Format(time.RFC3339))
		args := []string{"run", "--all", "--max", "50", "--force", "--mode", mode, "--json"}
		if forceConsolidation {
			// Earlier kills may have left versions to extract; consolidate
			// alone makes sure this kill lands in Phase 2.
			args = []string{"consolidate", "--force", "--mode", mode, "--json"}
		}
		c := cliProcess(env, args...)
		var out, errOut strings.Builder
		c.Stdout, c.Stderr = &out, &errOut
		os.Remove(pidFile)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- c.Wait() }()
		select {
		case err := <-done:
			finished++
			if err != nil {
				t.Errorf("iteration %d finished before the kill but failed: %v\n%s", i, err, errOut.String())
			}
			t.Logf("iteration %d: %s, %d threads touched, mode %s, finished before the %v kill", i, args[0], touched, mode, delay)
		case <-time.After(delay):
			_ = c.Process.Kill()
			<-done
			kills++
			// An agent is in its own process group and outlives memctl;
			// a crash of the whole machine kills it too, so do the same
			// before looking at the folder.
			agents := killAgents(t, pidFile)
			stage := heldLeases(t, env)
			if agents > 0 {
				stage += fmt.Sprintf(" (%d agent still running)", agents)
			}
			stages[stage]++
			t.Logf("iteration %d: %s, %d threads touched, mode %s, SIGKILL after %v during %s", i, args[0], touched, mode, delay, stage)
		}

		checkIntegrity(t, dbPath, fmt.Sprintf("after iteration %d", i))
		tempLeftovers += checkMemoryFolder(t, root, fmt.Sprintf("after iteration %d", i))
		if t.Failed() {
			t.Fatalf("stopping at iteration %d (seed %d)", i, seed)
		}
	}
	t.Logf("%d iterations: %d killed, %d finished first; modes %v; kills by stage %v; %d leftover temp files seen", iterations, kills, finished, modes, stages, tempLeftovers)
	if kills == 0 {
		t.Fatalf("no run was killed; the provider is too fast for this test")
	}

	// Recovery: seven hours after the last iteration every lease, backoff
	// and the six-hour cooldown have passed; a plain run finishes it all.
	final := nowAt(iterations).Add(7 * time.Hour)
	env := append(append([]string{}, baseEnv...), "MEMCTL_NOW="+final.Format(time.RFC3339))
	c := cliProcess(env, "run", "--all", "--max", "50", "--json")
	b, err := c.Output()
	if err != nil {
		t.Fatalf("recovery run: %v\nstdout:\n%s\nstderr:\n%s", err, b, stderrOf(err))
	}
	var rep struct {
		Extract struct {
			Failed int `json:"failed"`
		} `json:"extract"`
		Consolidate struct {
			Status   string `json:"status"`
			Selected int    `json:"selected"`
		} `json:"consolidate"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("recovery run output: %v\n%s", err, b)
	}
	if rep.Extract.Failed != 0 || !strings.HasPrefix(rep.Consolidate.Status, "succeeded") || rep.Consolidate.Selected != threads {
		t.Errorf("recovery run: extract failed %d, consolidate %q with %d selected; want 0, succeeded…, %d", rep.Extract.Failed, rep.Consolidate.Status, rep.Consolidate.Selected, threads)
	}
	list, err := cliProcess(env, "threads", "list", "--json").Output()
	if err != nil {
		t.Fatalf("threads list: %v\n%s", err, stderrOf(err))
	}
	var rows []struct {
		ID        string `json:"id"`
		HasMemory bool   `json:"has_memory"`
	}
	if err := json.Unmarshal(list, &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != threads {
		t.Errorf("%d threads listed, want %d", len(rows), threads)
	}
	for _, r := range rows {
		if !r.HasMemory {
			t.Errorf("thread %s has no memory after the recovery run", r.ID)
		}
	}
	checkIntegrity(t, dbPath, "after the recovery run")
	checkMemoryFolder(t, root, "after the recovery run")
	sums, _ := filepath.Glob(filepath.Join(root, "rollout_summaries", "*.md"))
	if len(sums) != threads {
		t.Errorf("%d rollout summaries after the recovery run, want %d: %v", len(sums), threads, sums)
	}
	raw, _ := os.ReadFile(filepath.Join(root, "raw_memories.md"))
	for _, r := range rows {
		if !strings.Contains(string(raw), r.ID) {
			t.Errorf("raw_memories.md lacks thread %s", r.ID)
		}
	}
	// The diff file exists only while a consolidation is in flight.
	if _, err := os.Lstat(filepath.Join(root, "phase2_workspace_diff.md")); err == nil {
		t.Errorf("phase2_workspace_diff.md left behind after a successful run")
	}
}

// stderrOf returns the stderr that exec.Cmd.Output captured, if any.
func stderrOf(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(ee.Stderr)
	}
	return ""
}

// appendTurn gives thread n a new version: one more exchange, stamped at.
func appendTurn(t *testing.T, src string, n int, at time.Time, iteration int) {
	t.Helper()
	id := fmt.Sprintf("00000000-0000-4000-8000-%012d", n)
	f, err := os.OpenFile(filepath.Join(src, id+".jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ts := at.UTC().Format(time.RFC3339)
	fmt.Fprintf(f, "{\"type\":\"message\",\"role\":\"user\",\"text\":\"and now part %d\",\"timestamp\":%q}\n", iteration, ts)
	fmt.Fprintf(f, "{\"type\":\"message\",\"role\":\"assistant\",\"text\":\"part %d done\",\"final\":true,\"timestamp\":%q}\n", iteration, ts)
}

// heldLeases names the stage a killed run was in from the leases it left
// behind, as `memctl status` reports them.
func heldLeases(t *testing.T, env []string) string {
	t.Helper()
	b, err := cliProcess(env, "status", "--json").Output()
	if err != nil {
		t.Errorf("status after a kill: %v\n%s", err, stderrOf(err))
		return "unknown"
	}
	var st struct {
		Running []struct {
			Kind string `json:"kind"`
		} `json:"running"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Errorf("status after a kill: %v\n%s", err, b)
		return "unknown"
	}
	extract, consolidate := false, false
	for _, r := range st.Running {
		switch r.Kind {
		case "memory_stage1":
			extract = true
		case "memory_consolidate_global":
			consolidate = true
		}
	}
	switch {
	case consolidate:
		return "consolidation"
	case extract:
		return "extraction"
	}
	return "no lease held"
}

// killAgents kills the process group of every agent that recorded its pid
// and waits until each is gone (or a zombie nobody reaps). It returns how
// many were still alive.
func killAgents(t *testing.T, pidFile string) int {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		return 0
	}
	alive := 0
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil || pid <= 1 {
			continue
		}
		if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && processState(string(st)) != "Z" {
			alive++
		}
		// memctl puts the agent in a group of its own: pgid == pid.
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_ = syscall.Kill(pid, syscall.SIGKILL)
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			if err != nil || processState(string(st)) == "Z" {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	return alive
}

// processState returns the state letter of a /proc/<pid>/stat line.
func processState(stat string) string {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 || i+2 >= len(stat) {
		return ""
	}
	return stat[i+2 : i+3]
}

// checkIntegrity opens the database as memctl does and runs SQLite's
// integrity check.
func checkIntegrity(t *testing.T, dbPath, when string) {
	t.Helper()
	if _, err := os.Stat(dbPath); errors.Is(err, fs.ErrNotExist) {
		return // killed before the database was created
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Errorf("%s: open %s: %v", when, dbPath, err)
		return
	}
	defer st.Close()
	res, err := st.IntegrityCheck(ctx)
	if err != nil || res != "ok" {
		t.Errorf("%s: integrity_check = %q, %v", when, res, err)
	}
}

// checkMemoryFolder verifies that every file an agent reads in the memory
// folder is complete and that nothing unexpected sits at its top. It
// returns the number of memctl temp files found (they are dot files, so
// an agent reading the documented names never sees them).
func checkMemoryFolder(t *testing.T, root, when string) int {
	t.Helper()
	if _, err := os.Stat(root); errors.Is(err, fs.ErrNotExist) {
		return 0
	}
	complete := func(rel, prefix string, mustContain ...string) {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if errors.Is(err, fs.ErrNotExist) {
			return
		}
		if err != nil {
			t.Errorf("%s: read %s: %v", when, rel, err)
			return
		}
		s := string(b)
		if !strings.HasPrefix(s, prefix) || !strings.HasSuffix(s, "\n") {
			t.Errorf("%s: %s is not complete (%d bytes): starts %q, ends %q", when, rel, len(s), head(s, 40), tail(s, 40))
		}
		for _, m := range mustContain {
			if !strings.Contains(s, m) {
				t.Errorf("%s: %s lacks %q:\n%s", when, rel, m, s)
			}
		}
	}
	complete("memory_summary.md", "v1\n", "## What's in Memory")
	complete("MEMORY.md", "# Memory\n")
	complete("raw_memories.md", "# Raw Memories\n")
	complete("extensions/ad_hoc/instructions.md", "")

	known := map[string]bool{"MEMORY.md": true, "memory_summary.md": true, "raw_memories.md": true,
		"rollout_summaries": true, "extensions": true, "skills": true, "phase2_workspace_diff.md": true,
		"projects": true, ".evidence.tsv": true}
	temps := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".memctl-tmp-") || strings.HasPrefix(d.Name(), ".tmp-") {
			temps++
			t.Logf("%s: leftover temp file %s", when, rel)
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			t.Errorf("%s: symlink %s in the memory folder", when, rel)
		}
		if !strings.Contains(rel, "/") && !known[rel] {
			t.Errorf("%s: unexpected %s at the top of the memory folder", when, rel)
		}
		if strings.HasPrefix(rel, "projects/") && !d.IsDir() {
			switch {
			case rel == "projects/index.json":
				b, err := os.ReadFile(p)
				if err != nil || !json.Valid(b) {
					t.Errorf("%s: projects/index.json is not whole JSON (%v): %q", when, err, tail(string(b), 40))
				}
			case strings.HasSuffix(rel, ".md"):
				complete(rel, "## ")
			default:
				t.Errorf("%s: unexpected file %s", when, rel)
			}
		}
		if strings.HasPrefix(rel, "rollout_summaries/") {
			if !strings.HasSuffix(rel, ".md") {
				t.Errorf("%s: unexpected file %s", when, rel)
			} else {
				complete(rel, "thread_id: ", "\nrollout_path: ", "# Survived a kill")
			}
		}
		return nil
	})
	if err != nil {
		t.Errorf("%s: walk %s: %v", when, root, err)
	}
	return temps
}

func head(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// ranHome is a home after one `memctl run --all` (the heuristic
// provider) over two JSON Lines threads, and the environment of a memctl
// process that uses it.
func ranHome(t *testing.T) (home string, env []string) {
	t.Helper()
	dir := t.TempDir()
	home = filepath.Join(dir, "home")
	src := filepath.Join(dir, "transcripts")
	writeJSONLThreads(t, src, 2, time.Now().Add(-24*time.Hour))
	cfgPath := filepath.Join(dir, "config.toml")
	cfg := fmt.Sprintf("[provider]\nkind = \"heuristic\"\n[[sources]]\nkind = \"jsonl\"\npath = %q\n", src)
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env = []string{"MEMCTL_HOME=" + home, "MEMCTL_CONFIG=" + cfgPath}
	if b, err := cliProcess(env, "run", "--all").CombinedOutput(); err != nil {
		t.Fatalf("run: %v\n%s", err, b)
	}
	return home, env
}

// TestConsolidationClearsCrashLeftovers plants what a process killed
// inside WriteFileAtomic leaves behind (a .memctl-tmp-* file next to its
// target) and checks that the next consolidation neither feeds it to the
// consolidator as a change nor keeps it.
func TestConsolidationClearsCrashLeftovers(t *testing.T) {
	home, env := ranHome(t)
	root := filepath.Join(home, "memories")
	leftovers := []string{
		filepath.Join(root, ".memctl-tmp-1234567"),
		filepath.Join(root, "rollout_summaries", ".memctl-tmp-7654321"),
	}
	// Abandoned temp files are old; a fresh one may belong to a writer
	// that is about to rename it, so it is left alone (but never diffed).
	old := time.Now().Add(-2 * time.Hour)
	for _, p := range leftovers {
		if err := os.WriteFile(p, []byte("thread_id: half a fi"), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, old, old)
	}
	fresh := filepath.Join(root, ".memctl-tmp-in-flight")
	os.WriteFile(fresh, []byte("being written"), 0o600)
	b, err := cliProcess(env, "consolidate", "--force", "--json").Output()
	if err != nil {
		t.Fatalf("consolidate: %v\n%s", err, stderrOf(err))
	}
	if strings.Contains(string(b), ".memctl-tmp-") {
		t.Errorf("a crashed writer's temp file became part of the Phase 2 diff:\n%s", b)
	}
	for _, p := range leftovers {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s is still there after a consolidation", p)
		}
	}
	if _, err := os.Lstat(fresh); err != nil {
		t.Errorf("a fresh temp file (a live writer's) was deleted: %v", err)
	}
}

// writeThenWaitAgentScript writes the artifacts as a consolidation agent
// does, says so, and then waits: the test kills memctl right after the
// agent wrote memory_summary.md, before memctl's own work after it.
const writeThenWaitAgentScript = `#!/bin/sh
cat >/dev/null
{ printf '# Memory\n\n'; cat raw_memories.md; } > "$BARRIER/m.$$" && mv "$BARRIER/m.$$" MEMORY.md
printf "v1\n\n## What's in Memory\n\n- see projects/personal.md and each project's summary\n" > "$BARRIER/s.$$" && mv "$BARRIER/s.$$" memory_summary.md
: > "$BARRIER/agent-wrote"
while [ ! -e "$BARRIER/agent-go" ]; do sleep 0.02; done
`

// kill -9 of consolidate left a memory_summary.md whose read
// path names projects/ files that were not written yet (3 of 20 kills).
// Here the kill lands right after the consolidator wrote the summary; the
// project layer it points at must already be whole.
func TestKilledConsolidationLeavesNoDanglingPointers(t *testing.T) {
	h := newParallelHome(t, 4, "agent")
	h.open(t, "go")
	agent := filepath.Join(h.dir, "agent.sh")
	if err := os.WriteFile(agent, []byte(writeThenWaitAgentScript), 0o700); err != nil {
		t.Fatal(err)
	}
	if b, err := cliProcess(h.env, "extract").CombinedOutput(); err != nil {
		t.Fatalf("extract: %v\n%s", err, b)
	}
	a := startRun(t, h.env, "consolidate")
	h.waitFor(t, "agent-wrote", a.done, "the agent wrote the summary")
	killRun(t, a)
	t.Cleanup(func() { h.open(t, "agent-go") })

	root := filepath.Join(h.home, "memories")
	if _, err := os.Stat(filepath.Join(root, "memory_summary.md")); err != nil {
		t.Fatalf("the agent's summary is not there: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(root, "projects", "index.json"))
	if err != nil {
		t.Fatalf("memory_summary.md is there but the project layer it points at is not: %v", err)
	}
	var ix struct {
		Projects []struct {
			Dir   string   `json:"dir"`
			Files []string `json:"files"`
		} `json:"projects"`
	}
	if err := json.Unmarshal(b, &ix); err != nil {
		t.Fatalf("projects/index.json: %v", err)
	}
	if len(ix.Projects) != 3 {
		t.Errorf("the index lists %d projects, want 3", len(ix.Projects))
	}
	want := []string{"projects/personal.md"}
	for _, p := range ix.Projects {
		want = append(want, "projects/"+p.Dir+"/summary.md")
		want = append(want, p.Files...)
	}
	for _, rel := range want {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel))); err != nil {
			t.Errorf("the index points at %s, which is missing", rel)
		}
	}
	// The next run finishes the work.
	h.open(t, "agent-go")
	if b, err := cliProcess(h.env, "consolidate", "--force", "--mode", "heuristic").CombinedOutput(); err != nil {
		t.Fatalf("consolidate after the kill: %v\n%s", err, b)
	}
	checkFolderHolds(t, h.home, h.ids)
}

// A killed rollback left .memctl-tmp-* files that stayed until
// they were an hour old, and only a consolidation that got the lock
// removed them. Every command that writes the memory folder clears a dead
// writer's temporary files when it starts, even when it then skips.
func TestWritingCommandsClearADeadWritersTempFiles(t *testing.T) {
	home, env := ranHome(t)
	root := filepath.Join(home, "memories")
	dead := exec.Command("/bin/sh", "-c", "exit 0")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	// The name a writer gives its temporary file: its host's tag and pid.
	hash, _, _ := strings.Cut(owner.TempTag(), "-")
	tag := hash + "-" + strconv.Itoa(dead.Process.Pid)
	for _, args := range [][]string{
		{"note", "add", "--slug", "deploy", "Deploys go through the staging cluster first."},
		{"consolidate"},   // skipped: the cooldown holds
		{"rollback", "1"}, // the folder already holds it: nothing to write
		{"run"},
	} {
		leftovers := []string{
			filepath.Join(root, ".memctl-tmp-"+tag+"-1234567"),
			filepath.Join(root, "rollout_summaries", ".memctl-tmp-"+tag+"-7654321"),
			filepath.Join(root, "projects", ".memctl-tmp-"+tag+"-1111111"),
		}
		for _, p := range leftovers {
			if err := os.WriteFile(p, []byte("thread_id: half a fi"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if b, err := cliProcess(env, args...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, b)
		}
		for _, p := range leftovers {
			if _, err := os.Lstat(p); err == nil {
				t.Errorf("memctl %s: %s, left by a writer that has exited, is still there", strings.Join(args, " "), p)
			}
		}
	}
}

// cliProcess is memctlProcess for this file's tests, with the race
// runtime's one-second sleep at exit turned off (GORACE atexit_sleep_ms),
// so a -race run does not spend a second per process doing nothing.
func cliProcess(env []string, args ...string) *exec.Cmd {
	race := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	return memctlProcess(append(append([]string{}, env...), "GORACE="+race), args...)
}
