package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/testenv"
)

// TestInspectorCLI drives a real server binary with the official MCP
// inspector (npx @modelcontextprotocol/inspector --cli), fetched from the
// npm registry, so it runs only in the full suite (.ci/run fetches the
// inspector first); there MEMCTL_INSPECTOR=0 still turns it off, which
// .ci/run does when the registry cannot be reached:
//
//	MEMCTL_FULL=1 go test -run TestInspectorCLI ./internal/mcpserver/
func TestInspectorCLI(t *testing.T) {
	testenv.RequireFull(t, "the MCP inspector check fetches @modelcontextprotocol/inspector from the npm registry")
	if os.Getenv("MEMCTL_INSPECTOR") == "0" {
		t.Skip("MEMCTL_INSPECTOR=0: the MCP inspector check is turned off")
	}
	npx, err := exec.LookPath("npx")
	if err != nil {
		t.Skip("npx is not on PATH; install Node.js to run the MCP inspector check")
	}

	dir := t.TempDir()
	bin := filepath.Join(dir, "testserver")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	build := exec.Command("go", "build", "-o", bin, "./internal/testserver")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build test server: %v\n%s", err, out)
	}
	root := filepath.Join(dir, "memories")
	if err := os.MkdirAll(filepath.Join(root, "skills"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "MEMORY.md"), []byte("# Memory\nblue runner\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	inspect := func(args ...string) []byte {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, npx, append([]string{"-y", "@modelcontextprotocol/inspector", "--cli", bin, root}, args...)...)
		cmd.Stderr = &testWriter{t}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("inspector %v: %v\n%s", args, err, out)
		}
		return out
	}

	var tools struct {
		Tools []struct {
			Name        string `json:"name"`
			Annotations struct {
				ReadOnlyHint bool `json:"readOnlyHint"`
			} `json:"annotations"`
		} `json:"tools"`
	}
	out := inspect("--method", "tools/list")
	if err := json.Unmarshal(out, &tools); err != nil {
		t.Fatalf("tools/list output is not JSON: %v\n%s", err, out)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		if tool.Name != "add_ad_hoc_note" && !tool.Annotations.ReadOnlyHint {
			t.Errorf("%s is not marked read-only", tool.Name)
		}
	}
	slices.Sort(names)
	if want := []string{"add_ad_hoc_note", "list", "read", "search"}; !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}

	var called struct {
		StructuredContent struct {
			Entries []struct {
				Path string `json:"path"`
			} `json:"entries"`
		} `json:"structuredContent"`
		IsError bool `json:"isError"`
	}
	out = inspect("--method", "tools/call", "--tool-name", "list")
	if err := json.Unmarshal(out, &called); err != nil {
		t.Fatalf("tools/call output is not JSON: %v\n%s", err, out)
	}
	if called.IsError || len(called.StructuredContent.Entries) != 2 || called.StructuredContent.Entries[0].Path != "MEMORY.md" {
		t.Fatalf("list via inspector: %s", out)
	}
}

// testWriter forwards a child's stderr to the test log.
type testWriter struct{ t *testing.T }

func (w *testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}
