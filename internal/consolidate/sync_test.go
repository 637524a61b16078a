package consolidate

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/memdir"
)

var syncRows = []Selected{
	{
		ThreadID: "0194f5a6-89ab-7cde-8123-456789abcdef", SourceUpdatedAt: 1785840059,
		RawMemory: "\n---\ndescription: fixed flaky CI\n---\nbody\n\n", RolloutSummary: "# Fixed CI\nDetails.",
		RolloutSlug: "fix-ci", RolloutPath: "/home/u/.codex/sessions/a.jsonl", Cwd: "/src/app", GitBranch: "main",
	},
	{
		ThreadID: "0194f5a6-0000-7000-8000-000000000001", SourceUpdatedAt: 1785800000,
		RawMemory: "raw two", RolloutSummary: "summary two",
		RolloutPath: "/home/u/.codex/sessions/b.jsonl", Cwd: "/src/lib",
	},
}

func TestSyncInputsFormat(t *testing.T) {
	root := t.TempDir()
	if err := PrepareLayout(root, "", testNow); err != nil {
		t.Fatal(err)
	}
	if err := syncInputs(root, "v1", syncRows, 256, time.Unix(1785840059, 0), nil); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Join(root, memdir.RolloutSummariesDir))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	var all strings.Builder
	for _, n := range names {
		all.WriteString("== rollout_summaries/" + n + "\n")
		all.WriteString(readFile(t, filepath.Join(root, memdir.RolloutSummariesDir, n)))
	}
	all.WriteString("== raw_memories.md\n")
	all.WriteString(readFile(t, filepath.Join(root, memdir.RawMemoriesFile)))
	goldenFile(t, "sync_v1.golden", all.String())

	// The branch line is present only when known; times are RFC 3339 with +00:00.
	first := readFile(t, filepath.Join(root, memdir.RolloutSummariesDir, "2025-02-11T15-35-19-jqmb-fix_ci.md"))
	if !strings.Contains(first, "updated_at: 2026-08-04T10:40:59+00:00\n") || !strings.Contains(first, "git_branch: main\n") {
		t.Errorf("unexpected header:\n%s", first)
	}
}

func TestRawMemoriesEmptyAndOrder(t *testing.T) {
	if got := string(rawMemoriesFile(nil, nil)); got != "# Raw Memories\n\nNo raw memories yet.\n" {
		t.Errorf("empty raw memories = %q", got)
	}
	got := string(rawMemoriesFile(retained([]Selected{{ThreadID: "b", RawMemory: "B"}, {ThreadID: "a", RawMemory: "A"}}, 0), nil))
	if strings.Index(got, "## Thread `a`") > strings.Index(got, "## Thread `b`") {
		t.Errorf("threads not in ascending id order:\n%s", got)
	}
}

func TestSyncInputsRemovesStaleSummaries(t *testing.T) {
	root := t.TempDir()
	if err := PrepareLayout(root, "", testNow); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, memdir.RolloutSummariesDir)
	writeFile(t, filepath.Join(dir, "stale.md"), "old")
	writeFile(t, filepath.Join(dir, "keep.txt"), "not markdown")
	if err := syncInputs(root, "v2", syncRows, 1, time.Unix(0, 0), nil); err != nil {
		t.Fatal(err)
	}
	if exists(filepath.Join(dir, "stale.md")) {
		t.Error("stale summary kept")
	}
	if !exists(filepath.Join(dir, "keep.txt")) {
		t.Error("non-markdown file removed")
	}
	// maxN = 1 keeps the first row by thread id only.
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("got %d entries, want keep.txt and one summary", len(entries))
	}
	if !exists(filepath.Join(dir, memdir.RolloutSummaryStem(syncRows[1].ThreadID, syncRows[1].SourceUpdatedAt, "")+".md")) {
		t.Error("first row by thread id not written")
	}
	if exists(filepath.Join(root, memdir.RawMemoriesFile)) {
		t.Error("v2 wrote raw_memories.md")
	}
}

func TestParseResourceTime(t *testing.T) {
	ts, ok := parseResourceTime("2026-04-06T11-59-59-some-resource.md")
	if !ok || ts.Unix() != 1775476799 {
		t.Errorf("parse = %v %v, want 1775476799", ts.Unix(), ok)
	}
	for _, bad := range []string{"short.md", "2026-04-06 11-59-59.md", "notatimestamp-at-all.md"} {
		if _, ok := parseResourceTime(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestExtensionResourcePruning(t *testing.T) {
	root := t.TempDir()
	now := time.Unix(1775476799, 0).Add(7 * 24 * time.Hour) // the exact cutoff is 2026-04-06T11-59-59
	ext := filepath.Join(root, memdir.ExtensionsDir)
	files := map[string]bool{ // path → expected to survive
		"team/instructions.md":                      true,
		"team/resources/2026-04-06T11-59-59-cut.md": false, // exactly at the cutoff
		"team/resources/2026-03-01T00-00-00-old.md": false,
		"team/resources/2026-04-06T12-00-00-new.md": true,
		"team/resources/not-a-time.md":              true,
		"team/resources/2026-03-01T00-00-00-x.txt":  true, // not markdown
		"bare/resources/2026-03-01T00-00-00-old.md": true, // no instructions.md
		"ad_hoc/instructions.md":                    true,
		"ad_hoc/notes/2026-03-01T00-00-00-note.md":  true, // notes are never pruned
	}
	for p := range files {
		writeFile(t, filepath.Join(ext, p), "x")
	}
	if err := syncInputs(root, "v1", nil, 256, now, nil); err != nil {
		t.Fatal(err)
	}
	for p, keep := range files {
		if exists(filepath.Join(ext, p)) != keep {
			t.Errorf("%s: survived=%v, want %v", p, !keep, keep)
		}
	}
}
