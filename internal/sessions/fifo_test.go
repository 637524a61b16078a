//go:build unix

package sessions

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO named like a transcript (or an old-layout sub-agent file) must be
// skipped, never opened: opening it would block the scan forever.
func TestDiscoverSkipsFIFOs(t *testing.T) {
	projects := filepath.Join(t.TempDir(), "projects")
	proj := filepath.Join(projects, "-w")
	os.MkdirAll(proj, 0o700)
	os.WriteFile(filepath.Join(proj, "11111111-2222-4333-8444-555555555555.jsonl"),
		[]byte(`{"type":"user","sessionId":"11111111-2222-4333-8444-555555555555","message":{"role":"user","content":"hi"}}`+"\n"), 0o600)
	for _, name := range []string{"agent-zz.jsonl", "22222222-2222-4333-8444-555555555555.jsonl"} {
		if err := syscall.Mkfifo(filepath.Join(proj, name), 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	done := make(chan int, 1)
	go func() {
		n := 0
		_ = Discover(context.Background(), Source{Kind: KindClaudeCode, Path: projects}, func(File) error { n++; return nil })
		done <- n
	}()
	select {
	case n := <-done:
		if n != 1 {
			t.Errorf("discovered %d threads, want 1", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Discover blocked on a FIFO")
	}
}
