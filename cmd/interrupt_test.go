package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/store"
)

// TestInterruptReleasesClaims sends SIGINT to an extract that is waiting on
// a slow model: it must exit 130 and give back every claim, so the next run
// does not wait an hour for the leases to expire.
func TestInterruptReleasesClaims(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	src := filepath.Join(dir, "transcripts")
	writeJSONLThreads(t, src, 4, time.Now().Add(-24*time.Hour))
	provider := filepath.Join(dir, "slow.sh")
	os.WriteFile(provider, []byte("#!/bin/sh\ncat >/dev/null\nsleep 30\n"), 0o700)
	cfgPath := filepath.Join(dir, "config.toml")
	os.WriteFile(cfgPath, []byte(fmt.Sprintf("[provider]\nkind = \"command\"\ncommand = [%q]\n[memories]\nmax_rollouts_per_startup = 4\n[[sources]]\nkind = \"jsonl\"\npath = %q\n", provider, src)), 0o600)
	env := []string{"MEMCTL_HOME=" + home, "MEMCTL_CONFIG=" + cfgPath}

	c := memctlProcess(env, "extract")
	var stderr bytes.Buffer
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the four jobs are claimed and running.
	dbPath := filepath.Join(home, "memories_1.sqlite")
	deadline := time.Now().Add(20 * time.Second)
	for {
		if n := runningJobs(t, dbPath); n == 4 {
			break
		}
		if time.Now().After(deadline) {
			c.Process.Kill()
			t.Fatalf("jobs never started running; stderr:\n%s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.Process.Signal(syscall.SIGINT)
	err := c.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != ExitInterrupted {
		t.Fatalf("exit = %v, want %d; stderr:\n%s", err, ExitInterrupted, stderr.String())
	}
	if n := runningJobs(t, dbPath); n != 0 {
		t.Errorf("%d jobs still hold a lease after the interrupt", n)
	}
	st, err := store.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	jobs, _ := st.Jobs(context.Background())
	for _, j := range jobs {
		if j.Kind == store.KindStage1 && (j.RetryRemaining != store.DefaultRetries || j.LastError != "") {
			t.Errorf("interrupted job %s was counted as a failure: %+v", j.Key, j)
		}
	}
}

func runningJobs(t *testing.T, dbPath string) int {
	t.Helper()
	if _, err := os.Stat(dbPath); err != nil {
		return -1
	}
	st, err := store.Open(context.Background(), dbPath)
	if err != nil {
		return -1
	}
	defer st.Close()
	s, err := st.Status(context.Background())
	if err != nil {
		return -1
	}
	return len(s.Running)
}

// Ctrl-C during consolidate exited 130 but left the job failed
// and backing off for an hour (labelled failed_agent in model mode), so
// even `consolidate --force` was skipped. Now the previous memory stays,
// the lock is given back as it was and the next plain run consolidates.
func TestInterruptConsolidateGivesLockBack(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	src := filepath.Join(dir, "transcripts")
	writeJSONLThreads(t, src, 3, time.Now().Add(-24*time.Hour))
	provider := filepath.Join(dir, "slow.sh")
	os.WriteFile(provider, []byte("#!/bin/sh\ncat >/dev/null\nsleep 30\n"), 0o700)
	cfgPath := filepath.Join(dir, "config.toml")
	os.WriteFile(cfgPath, []byte(fmt.Sprintf("[provider]\nkind = \"command\"\ncommand = [%q]\n[[sources]]\nkind = \"jsonl\"\npath = %q\n", provider, src)), 0o600)
	env := []string{"MEMCTL_HOME=" + home, "MEMCTL_CONFIG=" + cfgPath}
	if out, err := memctlProcess(env, "extract", "--provider", "heuristic", "--all").CombinedOutput(); err != nil {
		t.Fatalf("extract: %v\n%s", err, out)
	}

	c := memctlProcess(env, "consolidate", "--mode", "model")
	var stderr bytes.Buffer
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(home, "memories_1.sqlite")
	waitForProvider(t, c, filepath.Join(home, "memories", "phase2_workspace_diff.md"), &stderr)
	c.Process.Signal(syscall.SIGINT)
	err := c.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != ExitInterrupted {
		t.Fatalf("exit = %v, want %d; stderr:\n%s", err, ExitInterrupted, stderr.String())
	}
	if got := stderr.String(); got != "memctl: error: interrupted\n" {
		t.Errorf("stderr = %q", got)
	}
	st, err := store.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	j, err := st.Job(context.Background(), store.KindConsolidate, store.GlobalKey)
	st.Close()
	if err != nil || j.Status != "pending" || j.RetryAt != nil || j.LastError != "" || j.RetryRemaining != store.DefaultRetries {
		t.Fatalf("consolidation job after the interrupt = %+v, %v; want pending, no backoff, no error", j, err)
	}
	if _, err := os.Stat(filepath.Join(home, "memories", "MEMORY.md")); !os.IsNotExist(err) {
		t.Errorf("MEMORY.md exists after an interrupted first consolidation: %v", err)
	}
	out, err := memctlProcess(env, "consolidate", "--mode", "heuristic").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "v1: consolidation succeeded (") {
		t.Fatalf("next consolidate: %v\n%s", err, out)
	}
}

// waitForProvider waits until a consolidation has written its diff file,
// that is, until the consolidator (the slow provider) is running.
func waitForProvider(t *testing.T, c *exec.Cmd, diffFile string, stderr *bytes.Buffer) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(diffFile); err == nil {
			time.Sleep(200 * time.Millisecond) // let the provider process start
			return
		}
		if time.Now().After(deadline) {
			c.Process.Kill()
			t.Fatalf("the consolidation never reached the provider; stderr:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
