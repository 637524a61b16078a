//go:build linux

package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The read commands work on a home that cannot be written: a read-only
// folder or file system, or a full disk. A write (cite's usage record)
// fails with a message saying why, after the reply was printed.

// readHome is a home with one consolidated memory, and the environment
// of the memctl processes that read it.
type readHome struct {
	dir  string
	home string
	env  []string
}

const readHomePref = "Always run make check before pushing, because the CI queue is slow."

// newReadHome makes the home under parent (a folder on the disk under
// test).
func newReadHome(t *testing.T, parent string) *readHome {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "transcripts")
	const ts = "2026-06-01T10:00:00Z"
	writeFile(t, filepath.Join(src, "s1.jsonl"), strings.Join([]string{
		fmt.Sprintf(`{"type":"session","id":"11111111-0000-4000-8000-000000000001","cwd":%q,"source":"cli","timestamp":%q}`, dir, ts),
		fmt.Sprintf(`{"type":"message","role":"user","text":%q,"timestamp":%q}`, readHomePref, ts),
		fmt.Sprintf(`{"type":"message","role":"assistant","text":"Understood.","final":true,"timestamp":%q}`, ts),
	}, "\n")+"\n")
	cfg := filepath.Join(dir, "config.toml")
	writeFile(t, cfg, fmt.Sprintf("[provider]\nkind = \"heuristic\"\n[[sources]]\nkind = \"jsonl\"\npath = %q\n", src))
	h := &readHome{dir: dir, home: filepath.Join(parent, "home"),
		env: []string{"HOME=" + dir, "MEMCTL_CONFIG=" + cfg, "MEMCTL_NOW=2026-06-02T12:00:00Z"}}
	h.env = append(h.env, "MEMCTL_HOME="+h.home)
	if _, errOut, code := runCLI(t, h.env, "", "run", "--all"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errOut)
	}
	return h
}

// readOnlyFolder makes dir read-only for this process: a tmpfs remounted
// read-only when the tests run as root (permissions do not stop root),
// else its mode bits.
func readOnlyFolder(t *testing.T) (dir string, freeze func()) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "disk")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		return dir, func() {
			_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
				if err == nil {
					_ = os.Chmod(p, fi.Mode().Perm()&^0o222)
				}
				return nil
			})
			t.Cleanup(func() {
				_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
					if err == nil {
						_ = os.Chmod(p, fi.Mode().Perm()|0o200)
					}
					return nil
				})
			})
		}
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=67108864"); err != nil {
		t.Fatalf("mount a tmpfs: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir, func() {
		if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
			t.Fatalf("remount read-only: %v", err)
		}
	}
}

// checkReads runs every read command on the home and checks that each
// succeeds and finds the memory; then cite, which writes.
func (h *readHome) checkReads(t *testing.T, why string) {
	t.Helper()
	out := filepath.Join(h.dir, "export.jsonl")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"status", "--json"}, `"raw_memories": 1`},
		{[]string{"search", "make check"}, "[check]"},
		{[]string{"memories", "list"}, "11111111-0000-4000-8000-000000000001"},
		{[]string{"memories", "show", "11111111"}, readHomePref},
		{[]string{"doctor"}, ""},
		{[]string{"export", "-o", out}, ""},
		{[]string{"cite", "--dry-run", "--id", "11111111-0000-4000-8000-000000000001"}, ""},
		{[]string{"summary", "--raw", "--project", h.dir}, "make check"},
	} {
		stdout, errOut, code := runCLI(t, h.env, "", tt.args...)
		if code != 0 || !strings.Contains(stdout, tt.want) {
			t.Errorf("%s: memctl %s: exit %d\n%s%s", why, strings.Join(tt.args, " "), code, stdout, errOut)
		}
	}
	if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), "Always run make check") {
		t.Errorf("%s: the export: %v\n%.300s", why, err, b)
	}

	// MCP search, through the official client.
	cmd := memctlProcess(h.env, "mcp")
	cmd.Dir = h.dir
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "readonly-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("%s: mcp: %v", why, err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "make check", "project": "*"}})
	cs.Close()
	if err != nil || res.IsError {
		t.Errorf("%s: MCP search: %v %+v", why, err, res)
	} else if b, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(b), "11111111-0000-4000-8000-000000000001") {
		t.Errorf("%s: MCP search found nothing: %s", why, b)
	}

	// cite records a use: it prints the reply, then fails saying why
	// nothing was counted.
	stdout, errOut, code := runCLI(t, h.env, "The reply.\n<oai-mem-citation><rollout_ids>11111111-0000-4000-8000-000000000001</rollout_ids></oai-mem-citation>\n", "cite")
	if code != ExitError || strings.TrimSpace(stdout) != "The reply." || !strings.Contains(errOut, "record citation usage: the database") ||
		!strings.Contains(errOut, "can only be read, not written") {
		t.Errorf("%s: cite: exit %d\n%s%s", why, code, stdout, errOut)
	}
}

func TestReadCommandsWorkOnAReadOnlyHome(t *testing.T) {
	disk, freeze := readOnlyFolder(t)
	h := newReadHome(t, disk)
	freeze()
	h.checkReads(t, "read-only home")
}

func TestReadCommandsWorkOnAFullDisk(t *testing.T) {
	disk, _ := smallDisk(t, 32<<20)
	h := newReadHome(t, disk)
	filler, err := os.Create(filepath.Join(disk, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 1<<20)
	for {
		if _, err := filler.Write(chunk); err != nil {
			break
		}
	}
	for {
		if _, err := filler.Write(chunk[:4096]); err != nil {
			break
		}
	}
	filler.Close()
	h.checkReads(t, "full disk")
}
