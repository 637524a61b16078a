//go:build unix

package consolidate

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/memdir"
)

// writeAgent writes a shell-script agent and returns its argv.
func writeAgent(t *testing.T, body string) []string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "agent.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\nset -e\n"+body), 0o700); err != nil {
		t.Fatal(err)
	}
	return []string{"/bin/sh", p}
}

const validAgent = `cat > "$LOG/prompt.txt"
pwd > "$LOG/cwd.txt"
printf '# Task Group: test\n' > MEMORY.md.tmp && mv MEMORY.md.tmp MEMORY.md
printf 'v1\n\n## User Profile\nagent wrote this\n' > memory_summary.md
echo "agent done"
`

func agentEnv(t *testing.T, extra ...string) ([]string, string) {
	logDir := t.TempDir()
	return append([]string{"PATH=" + os.Getenv("PATH"), "LOG=" + logDir}, extra...), logDir
}

func TestAgentConsolidator(t *testing.T) {
	e := newEnv(t)
	env, logDir := agentEnv(t)
	var stderr bytes.Buffer
	res, err := e.run(t, NewAgent(writeAgent(t, validAgent), 10*time.Second, env, &stderr))
	if err != nil || res.Status != StatusSucceeded || res.Consolidator != "agent" {
		t.Fatalf("run = %+v, %v", res, err)
	}
	if got := strings.TrimSpace(readFile(t, filepath.Join(logDir, "cwd.txt"))); got != e.root {
		if real, _ := filepath.EvalSymlinks(e.root); got != real {
			t.Errorf("agent cwd = %q, want %q", got, e.root)
		}
	}
	if !strings.Contains(readFile(t, filepath.Join(logDir, "prompt.txt")), memdir.DiffFile) {
		t.Error("prompt not on stdin")
	}
	if !strings.Contains(stderr.String(), "agent done") {
		t.Error("agent output not passed to stderr")
	}
	if !strings.Contains(readFile(t, filepath.Join(e.root, memdir.SummaryFile)), "agent wrote this") {
		t.Error("agent output not kept")
	}
}

func TestAgentConsolidatorFailures(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "outside.txt")
	if err := os.WriteFile(outside, []byte("untouched"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		script  string
		timeout time.Duration
		status  Status
		errIs   error
	}{
		{"invalid artifacts", "printf 'v2\\n' > memory_summary.md\nrm -f MEMORY.md\n", 10 * time.Second, statusFailedInvalid, errInvalidArtifacts},
		{"symlink to outside", validAgent + "ln -s \"$OUTSIDE\" extensions/ad_hoc/leak.md\n", 10 * time.Second, statusFailedInvalid, errInvalidArtifacts},
		{"non-zero exit", "printf 'v1\\n' > memory_summary.md\nexit 3\n", 10 * time.Second, StatusFailedAgent, nil},
		{"new skill then failure", "mkdir -p skills/new-skill/scripts\nprintf 'x' > skills/new-skill/scripts/a.sh\nexit 3\n", 10 * time.Second, StatusFailedAgent, nil},
		{"hang", "sleep 30 &\necho $! > \"$LOG/child.pid\"\nwait\n", 300 * time.Millisecond, StatusFailedAgent, errAgentTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			if res, err := e.run(t, heuristicThen(nil)); err != nil || res.Status != StatusSucceeded {
				t.Fatalf("first run = %+v, %v", res, err)
			}
			memBefore := readFile(t, filepath.Join(e.root, memdir.MemoryFile))
			sumBefore := readFile(t, filepath.Join(e.root, memdir.SummaryFile))
			e.clock.Advance(7 * time.Hour)
			e.jobs.selection = append(e.jobs.selection, sampleSelection(t)[3])
			env, logDir := agentEnv(t, "OUTSIDE="+outside)
			start := time.Now()
			res, err := e.run(t, NewAgent(writeAgent(t, tt.script), tt.timeout, env, nil))
			if err == nil || res.Status != tt.status || (tt.errIs != nil && !errors.Is(err, tt.errIs)) {
				t.Fatalf("run = %+v, %v", res, err)
			}
			if time.Since(start) > 10*time.Second {
				t.Error("run was not stopped in time")
			}
			if readFile(t, filepath.Join(e.root, memdir.MemoryFile)) != memBefore || readFile(t, filepath.Join(e.root, memdir.SummaryFile)) != sumBefore {
				t.Error("previous artifacts not restored")
			}
			if !exists(filepath.Join(e.root, memdir.DiffFile)) {
				t.Error("diff file not kept")
			}
			if exists(filepath.Join(e.root, memdir.SkillsDir, "new-skill")) {
				t.Error("a failed run's new skill folder was left behind")
			}
			if readFile(t, outside) != "untouched" || exists(filepath.Join(e.root, "extensions", "ad_hoc", "leak.md")) {
				t.Error("symlink kept or its target touched")
			}
			if len(e.jobs.fails) != 1 {
				t.Errorf("fails = %v", e.jobs.fails)
			}
			if b, err := os.ReadFile(filepath.Join(logDir, "child.pid")); err == nil {
				pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
				waitGone(t, pid)
			}
		})
	}
}

// waitGone fails when the process still exists after a short grace period.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("agent child %d survived the timeout", pid)
}

func TestAgentNoCommand(t *testing.T) {
	if _, err := NewAgent(nil, time.Second, nil, nil).Consolidate(context.Background(), &Workspace{Root: t.TempDir()}); err == nil {
		t.Error("empty argv accepted")
	}
}
