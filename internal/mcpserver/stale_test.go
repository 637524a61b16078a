package mcpserver

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/memctl/memctl/internal/evidence"
	"github.com/memctl/memctl/internal/memdir"
)

// TestReadAndSearchFlagStaleMemory: the runner memory rests on a file
// that is then deleted; reading its rollout summary, or a MEMORY.md line
// naming the file, and searching for it carry the notice; unrelated
// results and a server with the checks off carry none.
func TestReadAndSearchFlagStaleMemory(t *testing.T) {
	root := memoryFolder(t)
	project := t.TempDir()
	os.MkdirAll(filepath.Join(project, "ci"), 0o755)
	os.WriteFile(filepath.Join(project, "ci/runner.yml"), []byte("runner: blue\n"), 0o644)
	os.WriteFile(filepath.Join(root, "MEMORY.md"), []byte("# Deploys\nUse the blue runner (ci/runner.yml).\nUser prefers tabs.\n"), 0o600)
	rec := evidence.Record{ThreadID: "t-runner", Cwd: project, RolloutFile: "rollout_summaries/2026-01-01.md", Description: "runner move",
		Items: evidence.Capture(project, evidence.Refs("ci/runner.yml"), evidence.CaptureOptions{})}
	if err := evidence.WriteIndex(filepath.Join(root, memdir.EvidenceIndexFile), []evidence.Record{rec}); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(project, "ci/runner.yml"))

	cs := connect(t, Options{Root: root, StaleChecks: true})
	var read ReadOutput
	call(t, cs, "read", map[string]any{"path": "rollout_summaries/2026-01-01.md"}, &read)
	if len(read.Stale) != 1 || read.Stale[0].ThreadID != "t-runner" || read.Stale[0].Problems[0].Reason != evidence.ReasonDeleted {
		t.Fatalf("read of the stale memory's summary: %+v", read.Stale)
	}
	call(t, cs, "read", map[string]any{"path": "MEMORY.md", "line_offset": 2, "max_lines": 1}, &read)
	if len(read.Stale) != 1 {
		t.Fatalf("a MEMORY.md line naming the deleted file: %+v", read)
	}
	read = ReadOutput{}
	call(t, cs, "read", map[string]any{"path": "MEMORY.md", "line_offset": 3, "max_lines": 1}, &read)
	if len(read.Stale) != 0 {
		t.Fatalf("an unrelated line is flagged: %+v", read)
	}
	var found SearchOutput
	call(t, cs, "search", map[string]any{"queries": []string{"runner"}}, &found)
	if len(found.Matches) == 0 || len(found.Stale) != 1 {
		t.Fatalf("search: %+v", found)
	}
	found = SearchOutput{}
	call(t, cs, "search", map[string]any{"queries": []string{"tabs"}}, &found)
	if len(found.Stale) != 0 {
		t.Fatalf("search for an unrelated line: %+v", found)
	}

	off := connect(t, Options{Root: root})
	read = ReadOutput{}
	call(t, off, "read", map[string]any{"path": "rollout_summaries/2026-01-01.md"}, &read)
	if len(read.Stale) != 0 {
		t.Fatalf("checks off: %+v", read.Stale)
	}
}
