//go:build unix

package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeScript writes an executable /bin/sh program into dir.
func writeScript(t *testing.T, dir, body string) string {
	t.Helper()
	path := filepath.Join(dir, "provider.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func newTestCommand(t *testing.T, argv []string, timeout time.Duration, stderr *bytes.Buffer) Provider {
	t.Helper()
	opts := Options{Kind: KindCommand, Command: argv, Timeout: timeout}
	if stderr != nil {
		opts.Stderr = stderr
	}
	p, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCommandSuccess(t *testing.T) {
	dir := t.TempDir()
	stdinCopy := filepath.Join(dir, "stdin.json")
	script := writeScript(t, dir, `cat > "$1"
echo "thinking..." >&2
printf '%s\n' '`+goodAnswer+`'
`)
	var stderr bytes.Buffer
	p := newTestCommand(t, []string{script, stdinCopy}, 10*time.Second, &stderr)
	if p.Name() != "command" {
		t.Errorf("Name = %q", p.Name())
	}
	resp, err := p.Call(context.Background(), testRequest())
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.JSON) != goodAnswer {
		t.Errorf("JSON = %s", resp.JSON)
	}
	if resp.Usage != (Usage{}) || resp.RateLimit != nil {
		t.Errorf("Usage %+v RateLimit %+v, want none from a program", resp.Usage, resp.RateLimit)
	}
	if stderr.String() != "thinking...\n" {
		t.Errorf("stderr passed on = %q", stderr.String())
	}

	raw, err := os.ReadFile(stdinCopy)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("stdin is not JSON: %v\n%s", err, raw)
	}
	want := map[string]any{
		"kind":             "extract",
		"model":            "test-model",
		"reasoning_effort": "low",
		"system":           "You extract memories.",
		"input":            "first evidence chunk\n\nsecond evidence chunk",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("stdin %s = %q, want %q", k, got[k], v)
		}
	}
	if dig(t, got, "schema", "properties", "raw_memory", "type") != "string" {
		t.Errorf("stdin schema = %v", got["schema"])
	}
	if len(got) != 6 {
		t.Errorf("stdin has keys %v, want exactly the six of the protocol", got)
	}
}

func TestCommandFailures(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		wantErr  []string
		exitCode int // checked when a *CommandError is expected (> 0)
		answer   bool
	}{
		{
			name:     "non-zero exit quotes stderr",
			body:     "cat >/dev/null\necho 'error: model gpt-x not found' >&2\nexit 3\n",
			wantErr:  []string{"exit status 3", "stderr: error: model gpt-x not found"},
			exitCode: 3,
		},
		{
			name:    "bad JSON",
			body:    "cat >/dev/null\necho 'Here is your memory: {oops'\n",
			wantErr: []string{"stdout is not a JSON object"},
			answer:  true,
		},
		{
			name:    "empty stdout",
			body:    "cat >/dev/null\n",
			wantErr: []string{"no answer on stdout"},
			answer:  true,
		},
		{
			name:    "answer breaks schema",
			body:    "cat >/dev/null\necho '{\"rollout_summary\":\"s\"}'\n",
			wantErr: []string{"answer does not match schema", "missing property 'raw_memory'"},
			answer:  true,
		},
		{
			name:     "stderr tail is bounded",
			body:     "cat >/dev/null\ni=0; while [ $i -lt 400 ]; do echo \"noise line $i\" >&2; i=$((i+1)); done\necho 'the real reason' >&2\nexit 1\n",
			wantErr:  []string{"exit status 1", "the real reason", "stderr: …"},
			exitCode: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script := writeScript(t, t.TempDir(), tt.body)
			p := newTestCommand(t, []string{script}, 10*time.Second, nil)
			_, err := p.Call(context.Background(), testRequest())
			if err == nil {
				t.Fatal("no error")
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			if len(err.Error()) > stderrTailLimit+300 {
				t.Errorf("error is %d bytes long", len(err.Error()))
			}
			var ce *CommandError
			var ae *AnswerError
			switch {
			case tt.answer && !errors.As(err, &ae):
				t.Errorf("err = %T, want *AnswerError", err)
			case tt.exitCode > 0 && (!errors.As(err, &ce) || ce.ExitCode != tt.exitCode):
				t.Errorf("err = %#v, want *CommandError with exit %d", err, tt.exitCode)
			}
		})
	}
}

func TestCommandNotFound(t *testing.T) {
	p := newTestCommand(t, []string{filepath.Join(t.TempDir(), "no-such-program")}, time.Second, nil)
	_, err := p.Call(context.Background(), testRequest())
	var ce *CommandError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "no-such-program") {
		t.Fatalf("err = %v", err)
	}
}

// processGone reports whether pid has exited (or is a zombie nobody reaped,
// which happens when a container's init does not reap orphans).
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return os.IsNotExist(err)
	}
	// Format: pid (comm) state ...
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

func TestCommandTimeoutKillsProcessGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	// The program starts a grandchild and waits on it: the kill must reach
	// the grandchild too, or it would run on unseen.
	script := writeScript(t, dir, `cat >/dev/null
sleep 30 &
echo $! > "$1"
echo 'waiting for the model' >&2
wait
`)
	p := newTestCommand(t, []string{script, pidFile}, 300*time.Millisecond, nil)
	start := time.Now()
	_, err := p.Call(context.Background(), testRequest())
	elapsed := time.Since(start)
	var ce *CommandError
	if !errors.As(err, &ce) || !ce.TimedOut {
		t.Fatalf("err = %v, want a timed-out *CommandError", err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err does not wrap context.DeadlineExceeded: %v", err)
	}
	if !strings.Contains(err.Error(), "timed out") || !strings.Contains(err.Error(), "waiting for the model") {
		t.Errorf("error = %q", err)
	}
	if elapsed > 5*time.Second {
		t.Errorf("took %v with a 300ms timeout", elapsed)
	}
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("grandchild %d still running after the timeout", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestCommandContextCancel(t *testing.T) {
	script := writeScript(t, t.TempDir(), "cat >/dev/null\nexec sleep 30\n")
	p := newTestCommand(t, []string{script}, time.Minute, nil)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := p.Call(ctx, testRequest())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("took %v to stop", elapsed)
	}
}

func TestCommandRequiresSchema(t *testing.T) {
	script := writeScript(t, t.TempDir(), "echo '{}'\n")
	p := newTestCommand(t, []string{script}, time.Second, nil)
	req := testRequest()
	req.Schema = nil
	if _, err := p.Call(context.Background(), req); err == nil || !strings.Contains(err.Error(), "no schema") {
		t.Fatalf("err = %v", err)
	}
}
