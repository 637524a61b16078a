//go:build linux

package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// smallDisk mounts a tmpfs of size bytes at a new folder and returns it
// with a function that resizes it. It needs root (CAP_SYS_ADMIN).
func smallDisk(t *testing.T, size int64) (string, func(int64)) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root; TestWriteOnAFullDiskSaysSo (internal/store) covers the message without it")
	}
	dir := filepath.Join(t.TempDir(), "disk")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d", size)); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	resize := func(n int64) {
		t.Helper()
		if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_REMOUNT, fmt.Sprintf("size=%d", n)); err != nil {
			t.Fatalf("resize the tmpfs: %v", err)
		}
	}
	return dir, resize
}

func usedBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return int64(st.Blocks-st.Bfree) * int64(st.Bsize)
}

// An extract on a full disk failed with "disk I/O error (4874)",
// left its jobs running for an hour, and the next run, with space again,
// said "claimed by another process". Here the home lives on a real small
// tmpfs that fills up during extraction.
func TestExtractOnAFullDisk(t *testing.T) {
	disk, resize := smallDisk(t, 16<<20)
	dir := t.TempDir()
	src := filepath.Join(dir, "transcripts")
	const threads = 60
	writeJSONLThreads(t, src, threads, time.Now().Add(-24*time.Hour))
	cfgPath := filepath.Join(dir, "config.toml")
	cfg := fmt.Sprintf("[provider]\nkind = \"heuristic\"\n[memories]\nmax_rollouts_per_startup = %d\n[[sources]]\nkind = \"jsonl\"\npath = %q\n", threads, src)
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"MEMCTL_HOME=" + filepath.Join(disk, "home"), "MEMCTL_CONFIG=" + cfgPath}
	if b, err := cliProcess(env, "scan").CombinedOutput(); err != nil {
		t.Fatalf("scan: %v\n%s", err, b)
	}
	// Leave a few pages: the scan fits, the memories do not.
	resize(usedBytes(t, disk) + 48<<10)
	b, err := cliProcess(env, "extract").CombinedOutput()
	if err == nil {
		t.Fatalf("extract on a full disk succeeded; the disk is too big for this test\n%s", b)
	}
	if !strings.Contains(string(b), "is full") || !strings.Contains(string(b), "memctl: hint: free some space") {
		t.Errorf("extract on a full disk does not say the disk is full:\n%s", b)
	}

	// Completely full: the store cannot be opened for writing (SQLite's
	// "disk I/O error (4874)", the shared memory cannot grow). A command
	// that only reads opens it read-only; one that writes says why not.
	os.Remove(filepath.Join(disk, "home", "memories_1.sqlite-shm"))
	filler, _ := os.Create(filepath.Join(disk, "filler"))
	buf := make([]byte, 4096)
	for {
		if _, err := filler.Write(buf); err != nil {
			break
		}
	}
	filler.Close()
	if b, err := cliProcess(env, "status").CombinedOutput(); err != nil {
		t.Errorf("status on a full disk: %v\n%s", err, b)
	}
	b, err = cliProcess(env, "extract").CombinedOutput()
	if err == nil || !strings.Contains(string(b), "is full (0 B free)") || !strings.Contains(string(b), "memctl: hint: free some space") {
		t.Errorf("extract on a full disk: %v\n%s", err, b)
	}

	// Space again: the next run finishes every thread, none "claimed by
	// another process".
	os.Remove(filepath.Join(disk, "filler"))
	resize(16 << 20)
	out, err := cliProcess(env, "extract", "--json").Output()
	if err != nil {
		t.Fatalf("extract with space again: %v\n%s", err, stderrOf(err))
	}
	var res struct {
		Failed     int            `json:"failed"`
		NotClaimed map[string]int `json:"not_claimed"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if res.Failed != 0 || res.NotClaimed["running"] != 0 {
		t.Errorf("extract with space again: %d failed, not claimed %v", res.Failed, res.NotClaimed)
	}
	st, err := cliProcess(env, "status", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var status struct {
		RawMemories int `json:"raw_memories"`
	}
	json.Unmarshal(st, &status)
	if status.RawMemories != threads {
		t.Errorf("%d raw memories after the recovery, want %d", status.RawMemories, threads)
	}
}
