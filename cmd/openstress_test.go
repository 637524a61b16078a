package cmd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/testenv"
)

// startCPUBurners starts n processes that spin until the test ends, so
// the stress tests below run on a loaded machine: that is when a SQLite
// open that does not wait its turn shows "database is locked".
func startCPUBurners(t *testing.T, n int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var cmds []*exec.Cmd
	for i := 0; i < n; i++ {
		c := exec.CommandContext(ctx, os.Args[0])
		c.Env = append(os.Environ(), "MEMCTL_TEST_BURN_CPU=1")
		if err := c.Start(); err != nil {
			cancel()
			t.Fatalf("start CPU burner: %v", err)
		}
		cmds = append(cmds, c)
	}
	t.Cleanup(func() {
		cancel()
		for _, c := range cmds {
			_ = c.Wait()
		}
	})
}

// burnCPU spins on every core until killed; the test binary runs it when
// MEMCTL_TEST_BURN_CPU=1.
func burnCPU() {
	var wg sync.WaitGroup
	for i := 0; i < runtime.NumCPU(); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := uint64(1)
			for {
				x = x*6364136223846793005 + 1442695040888963407
				if x == 0 {
					return
				}
			}
		}()
	}
	wg.Wait()
}

// emptyHome makes round r's home folder, with nothing in it: the store is
// created by whichever process opens it first.
func emptyHome(t *testing.T, dir string, r int) string {
	t.Helper()
	home := filepath.Join(dir, fmt.Sprintf("home-%d", r))
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	return home
}

// runAtOnce starts every command, then waits for all of them, and fails
// the test for each one that exits non-zero or mentions a locked or busy
// database on stderr.
func runAtOnce(t *testing.T, round int, cmds []*exec.Cmd) {
	t.Helper()
	outs := make([]bytes.Buffer, len(cmds))
	for i, c := range cmds {
		c.Stdout = &outs[i]
		c.Stderr = &outs[i]
	}
	var wg sync.WaitGroup
	errs := make([]error, len(cmds))
	for i, c := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.Run()
		}()
	}
	wg.Wait()
	for i, err := range errs {
		text := strings.ToLower(outs[i].String())
		if err != nil || strings.Contains(text, "locked") || strings.Contains(text, "sqlite_busy") {
			t.Errorf("round %d, process %d (%s): %v\n%s", round, i, strings.Join(cmds[i].Args[1:], " "), err, outs[i].String())
		}
	}
}

// TestStressFirstOpenUnderLoad starts 16 processes at once on a home
// folder with nothing in it yet (a home named by MEMCTL_HOME must exist),
// 50 times, while CPU burners keep every core busy. Every process must
// create and open the store, switch it to WAL and run the migrations, or
// find that done, without an error.
func TestStressFirstOpenUnderLoad(t *testing.T) {
	testenv.RequireFull(t, "the stress storm starts 800 memctl processes against CPU burners")
	startCPUBurners(t, 1)
	dir := t.TempDir()
	const procs, rounds = 16, 50
	for r := 0; r < rounds; r++ {
		home := emptyHome(t, dir, r)
		env := []string{"MEMCTL_HOME=" + home}
		cmds := make([]*exec.Cmd, procs)
		for i := range cmds {
			cmds[i] = memctlProcess(env, "status", "--json")
		}
		runAtOnce(t, r, cmds)
		if t.Failed() {
			return
		}
	}
}

// TestStressMixedStagesOnFreshHome is the same storm with the stages a
// host agent starts at once: extract (from cron), cite (a Stop hook) and
// summary (a SessionStart hook), on a fresh home each round.
func TestStressMixedStagesOnFreshHome(t *testing.T) {
	testenv.RequireFull(t, "the stress storm starts hundreds of memctl processes against CPU burners")
	startCPUBurners(t, 1)
	dir := t.TempDir()
	src := filepath.Join(dir, "transcripts")
	writeJSONLThreads(t, src, 4, time.Now().Add(-24*time.Hour))
	cfgPath := filepath.Join(dir, "config.toml")
	cfg := fmt.Sprintf("[provider]\nkind = \"heuristic\"\n[[sources]]\nkind = \"jsonl\"\npath = %q\n", src)
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	reply := "Done.\n<oai-mem-citation>\n<rollout_ids>\n00000000-0000-4000-8000-000000000001\n</rollout_ids>\n</oai-mem-citation>\n"
	const procs, rounds = 16, 50
	for r := 0; r < rounds; r++ {
		home := emptyHome(t, dir, r)
		env := []string{"MEMCTL_HOME=" + home, "MEMCTL_CONFIG=" + cfgPath}
		cmds := make([]*exec.Cmd, procs)
		for i := range cmds {
			switch i % 4 {
			case 0:
				cmds[i] = memctlProcess(env, "extract", "--quiet")
			case 1:
				cmds[i] = memctlProcess(env, "cite")
				cmds[i].Stdin = strings.NewReader(reply)
			case 2:
				cmds[i] = memctlProcess(env, "summary")
			default:
				cmds[i] = memctlProcess(env, "status")
			}
		}
		runAtOnce(t, r, cmds)
		if t.Failed() {
			return
		}
	}
}
