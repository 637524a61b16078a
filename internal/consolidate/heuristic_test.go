package consolidate

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memmodel"
	"github.com/memctl/memctl/internal/memversion"
)

func loadRaw(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sampleSelection is three memories over two projects and four days, so
// both the recent-days index and the older topics appear.
func sampleSelection(t *testing.T) []Selected {
	day := int64(86400)
	base := int64(1785840059) // 2026-08-04T10:40:59Z
	return []Selected{
		{ThreadID: "019b7f94-51b4-7593-922e-ba12b5b73b52", SourceUpdatedAt: base, RawMemory: loadRaw(t, "raw_ci.md"),
			RolloutSummary: "# Pinned the Postgres image to fix flaky CI\n\nRollout context: billing repo.", RolloutSlug: "flaky-ci",
			RolloutPath: "/home/dev/.codex/sessions/2026/08/04/rollout-a.jsonl", Cwd: "/home/dev/src/billing", GitBranch: "fix-ci"},
		{ThreadID: "019e1625-789d-76c0-80ab-3724b5ddb799", SourceUpdatedAt: base - day, RawMemory: loadRaw(t, "raw_sqlite.md"),
			RolloutSummary: "# Built the SQLite store\n\nDetails.", RolloutSlug: "sqlite-store",
			RolloutPath: "/home/dev/.claude/projects/memctl/b.jsonl", Cwd: "/home/dev/src/memctl"},
		{ThreadID: "4c2ddfdc-b619-4525-8d03-1950fb1b0257", SourceUpdatedAt: base - 5*day, RawMemory: loadRaw(t, "raw_docs.md"),
			RolloutSummary: "# Rewrote the README quick start\n\nDetails.", RolloutSlug: "readme",
			RolloutPath: "/home/dev/.claude/projects/billing/c.jsonl", Cwd: "/home/dev/src/billing"},
		// A raw memory a model wrote loosely: no front matter, bold labels.
		{ThreadID: "agent-36541525", SourceUpdatedAt: base - 9*day, RawMemory: loadRaw(t, "raw_free.md"),
			RolloutSummary: "# Investigated a slow Docker build", RolloutSlug: "docker build",
			RolloutPath: "/tmp/private/agent-36541525.jsonl", Cwd: "/tmp/private"},
	}
}

func runHeuristic(t *testing.T, version memversion.Version, sel []Selected) string {
	t.Helper()
	root := t.TempDir()
	if err := PrepareLayout(root, "", testNow); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "extensions", "ad_hoc", "notes", "2026-08-01T09-00-00-no-force-push.md"),
		"Never force-push to main; open a PR instead.\n")
	writeFile(t, filepath.Join(root, "extensions", "ad_hoc", "notes", "2026-08-02T09-00-00-staging.md"),
		"The staging database is reset every Sunday night.\n")
	ws := &Workspace{Root: root, Version: version, Selected: sel, Now: time.Unix(1785840059, 0)}
	if _, err := NewHeuristic().Consolidate(context.Background(), ws); err != nil {
		t.Fatal(err)
	}
	if err := Validate(root, version); err != nil {
		t.Fatalf("heuristic output invalid: %v", err)
	}
	return root
}

func TestHeuristicV1Golden(t *testing.T) {
	root := runHeuristic(t, "v1", sampleSelection(t))
	memory := readFile(t, filepath.Join(root, memdir.MemoryFile))
	summary := readFile(t, filepath.Join(root, memdir.SummaryFile))
	goldenFile(t, "heuristic_v1_MEMORY.md.golden", memory)
	goldenFile(t, "heuristic_v1_summary.md.golden", summary)

	for _, want := range []string{
		"# Task Group: billing (/home/dev/src/billing)",
		"applies_to: cwd=/home/dev/src/billing; reuse_rule=",
		"- rollout_summaries/" + memdir.RolloutSummaryStem("019b7f94-51b4-7593-922e-ba12b5b73b52", 1785840059, "flaky-ci") + ".md (cwd=/home/dev/src/billing, rollout_path=/home/dev/.codex/sessions/2026/08/04/rollout-a.jsonl, updated_at=2026-08-04T10:40:59+00:00, thread_id=019b7f94-51b4-7593-922e-ba12b5b73b52",
		"## Task 2: speed up the go test step, partial",
		"[Task 1, Task 3]", // the same preference from two tasks is merged
		"## Failures and how to do differently",
		"[ad-hoc note] Never force-push to main",
	} {
		if !strings.Contains(memory, want) {
			t.Errorf("MEMORY.md lacks %q", want)
		}
	}
	for _, want := range []string{
		"\n## User Profile\n", "Go", "SQLite", "\n#### 2026-08-04\n", "\n#### 2026-07-30\n", "\n### Older Memory Topics\n",
		"- [ad-hoc note] Never force-push to main; open a PR instead.",
		"- [ad-hoc note] The staging database is reset every Sunday night.",
		"learnings: The integration job uses the postgres:latest service image",
	} {
		if !strings.Contains(summary, want) {
			t.Errorf("memory_summary.md lacks %q", want)
		}
	}
	// Only the three newest memory days get dated sections.
	if strings.Contains(summary, "#### 2026-07-26") {
		t.Error("a fourth day is listed as recent")
	}
	if !strings.Contains(summary, "\n#### /tmp/private\n\n- Investigated a slow Docker build") {
		t.Errorf("the loosely written memory is not an older topic:\n%s", summary)
	}
}

func TestHeuristicIsDeterministic(t *testing.T) {
	a := runHeuristic(t, "v1", sampleSelection(t))
	b := runHeuristic(t, "v1", sampleSelection(t))
	for _, f := range []string{memdir.MemoryFile, memdir.SummaryFile} {
		if readFile(t, filepath.Join(a, f)) != readFile(t, filepath.Join(b, f)) {
			t.Errorf("%s differs between identical runs", f)
		}
	}
}

func TestHeuristicV2Golden(t *testing.T) {
	sel := sampleSelection(t)
	for i := range sel {
		sel[i].RawMemory = "" // v2 stores no raw memory
	}
	root := runHeuristic(t, "v2", sel)
	summary := readFile(t, filepath.Join(root, memdir.SummaryFile))
	goldenFile(t, "heuristic_v2_summary.md.golden", summary)
	if exists(filepath.Join(root, memdir.MemoryFile)) {
		t.Error("v2 wrote MEMORY.md")
	}
	stem := memdir.RolloutSummaryStem(sel[0].ThreadID, sel[0].SourceUpdatedAt, sel[0].RolloutSlug)
	want := "- rollout_summaries/" + stem + ".md — Pinned the Postgres image to fix flaky CI; thread_id=" + sel[0].ThreadID
	if !strings.Contains(summary, want) {
		t.Errorf("summary lacks pointer %q:\n%s", want, summary)
	}
}

func TestHeuristicV2FitsUnder10000Bytes(t *testing.T) {
	var sel []Selected
	for i := 0; i < 256; i++ {
		id := "thread-" + strings.Repeat("x", i%7) + itoa8(uint32(i))
		sel = append(sel, Selected{
			ThreadID: id, SourceUpdatedAt: 1785840059 - int64(i)*86400/4, RolloutSlug: "s",
			RolloutSummary: "# Worked on a long task number " + itoa8(uint32(i)) + " with many details\n\nReusable knowledge:\n- fact " + itoa8(uint32(i)) + " " + strings.Repeat("word ", 30),
			Cwd:            "/src/project-" + itoa8(uint32(i%5)),
		})
	}
	root := runHeuristic(t, "v2", sel)
	data := readFile(t, filepath.Join(root, memdir.SummaryFile))
	if len(data) >= summaryV2Target {
		t.Errorf("v2 summary is %d bytes", len(data))
	}
}

func TestHeuristicEmptySelection(t *testing.T) {
	root := t.TempDir()
	for _, v := range memversion.All() {
		dir := filepath.Join(root, string(v))
		if err := PrepareLayout(dir, "", testNow); err != nil {
			t.Fatal(err)
		}
		if _, err := NewHeuristic().Consolidate(context.Background(), &Workspace{Root: dir, Version: v}); err != nil {
			t.Fatal(err)
		}
		if err := Validate(dir, v); err != nil {
			t.Errorf("%s: %v", v, err)
		}
	}
}

func TestHeuristicRedactsOutput(t *testing.T) {
	root := t.TempDir()
	if err := PrepareLayout(root, "", testNow); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "extensions", "ad_hoc", "notes", "2026-08-01T09-00-00-key.md"), "use token sk-SECRETSECRET for staging")
	ws := &Workspace{Root: root, Version: "v1", Redact: func(s string) string { return strings.ReplaceAll(s, "sk-SECRETSECRET", "[REDACTED_SECRET]") }}
	if _, err := NewHeuristic().Consolidate(context.Background(), ws); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{memdir.MemoryFile, memdir.SummaryFile} {
		if strings.Contains(readFile(t, filepath.Join(root, f)), "sk-SECRET") {
			t.Errorf("%s leaks the secret", f)
		}
	}
}

func TestHeuristicV1SummaryIsBounded(t *testing.T) {
	var sel []Selected
	raw := loadRaw(t, "raw_ci.md")
	for i := 0; i < 256; i++ {
		// Each description differs: identical memories merge into one line.
		distinct := strings.Replace(raw, "description: Fixed", "description: ("+itoa8(uint32(i))+") Fixed", 1)
		sel = append(sel, Selected{ThreadID: "t" + itoa8(uint32(i)), SourceUpdatedAt: 1785840059 - int64(i%4)*86400, RawMemory: distinct, Cwd: "/src/p"})
	}
	root := runHeuristic(t, "v1", sel)
	summary := readFile(t, filepath.Join(root, memdir.SummaryFile))
	if len(summary) > 16*1024 {
		t.Errorf("v1 summary is %d bytes for 256 memories", len(summary))
	}
	if !strings.Contains(summary, "more recent topics; search MEMORY.md") {
		t.Error("recent topics not capped")
	}
}

// The offline extractor writes "- none" for empty lists and "- … N more"
// when it cuts one; neither is memory.
func TestHeuristicReadsExtractorShape(t *testing.T) {
	sel := []Selected{{ThreadID: "t1", SourceUpdatedAt: 1785840059, RawMemory: loadRaw(t, "raw_extractor.md"), Cwd: "/home/dev/src/memctl"}}
	mems := memmodel.Parse(sel)
	if len(mems) != 1 || len(mems[0].Tasks) != 2 {
		t.Fatalf("parsed %+v", mems)
	}
	t1, t2 := mems[0].Tasks[0], mems[0].Tasks[1]
	if len(t1.Failures) != 0 || len(t1.Refs) != 1 || len(t2.Prefs) != 0 || len(t2.Failures) != 1 {
		t.Errorf("placeholders kept: %+v / %+v", t1, t2)
	}
	memory := renderMemoryMD(mems, nil)
	for _, want := range []string{"## Task 1: add a --json flag to the status command, success", "## Task 2: update the docs, uncertain",
		"- `make docs` failed: mdbook not installed; install it with cargo install mdbook [Task 2]"} {
		if !strings.Contains(memory, want) {
			t.Errorf("MEMORY.md lacks %q:\n%s", want, memory)
		}
	}
	if strings.Contains(memory, "- none") {
		t.Error("a placeholder reached MEMORY.md")
	}
}

// The profile's stack comes from the commands a memory ran and the files it
// names, not its words: an Elixir session that talked about AWS,
// Azure and the OpenAI API is an Elixir session.
func TestProfileStackFromCommandsAndFiles(t *testing.T) {
	raw := "---\ndescription: wire tracing into the Phoenix app\ntask_outcome: success\nkeywords: aws, azure, openai\n---\n\n" +
		"### Task 1\ntask: wire tracing\n\nReusable knowledge:\n" +
		"- The user asked whether AWS X-Ray, Azure Monitor or the OpenAI API could receive the traces; none is used here.\n" +
		"- `mix test test/spotter/tracing_test.exs` passed after `lib/spotter/tracing.ex` matched on {:ok, ctx}.\n"
	sel := []Selected{{ThreadID: "t1", SourceUpdatedAt: 1785840059, RawMemory: raw, Cwd: "/home/dev/src/spotter"}}
	mems := memmodel.Parse(sel)
	profile := userProfile(mems, groupByCwd(mems))
	if !strings.Contains(profile, "Languages and tools seen: Elixir.") {
		t.Errorf("profile lacks the stack shown by mix and the .ex file:\n%s", profile)
	}
	for _, word := range []string{"AWS", "Azure", "OpenAI"} {
		if strings.Contains(profile, word) {
			t.Errorf("profile names %s, which the session only talked about:\n%s", word, profile)
		}
	}
}

// Identical memories fold into one index line that counts the others:
// thirteen sessions that recited the same answer must not push
// the session that fixed the bug out of the summary.
func TestIdenticalMemoriesFoldIntoOneLine(t *testing.T) {
	base := int64(1785840059)
	recital := "---\ndescription: answered from memory how the deploy works\ntask_outcome: success\n---\n\n### Task 1\ntask: how does the deploy work\n"
	var sel []Selected
	for i := 0; i < 13; i++ {
		sel = append(sel, Selected{ThreadID: "recital-" + itoa8(uint32(i+1)), SourceUpdatedAt: base - int64(i)*60, RawMemory: recital, Cwd: "/src/shop"})
	}
	sel = append(sel, Selected{ThreadID: "the-fix", SourceUpdatedAt: base - 86400, Cwd: "/src/shop",
		RawMemory: "---\ndescription: fixed the cart total rounding\ntask_outcome: success\n---\n\n### Task 1\ntask: fix rounding\n"})
	layer, err := buildProjectLayer(memmodel.Parse(sel), nil)
	if err != nil {
		t.Fatal(err)
	}
	summaries := 0
	for name, b := range layer {
		if path.Base(name) != memdir.ProjectSummaryFile {
			continue
		}
		summaries++
		if ps := string(b); strings.Count(ps, "answered from memory how the deploy works") != 1 || !strings.Contains(ps, "seen in 13 sessions") {
			t.Errorf("the project summary does not fold the recital into one counted line:\n%s", ps)
		}
	}
	if summaries != 1 {
		t.Errorf("%d project summaries, want 1", summaries)
	}
	for _, v := range []memversion.Version{"v1", "v2"} {
		root := runHeuristic(t, v, sel)
		summary := readFile(t, filepath.Join(root, memdir.SummaryFile))
		index := summary[strings.Index(summary, "## What's in Memory"):]
		if n := strings.Count(index, "answered from memory how the deploy works"); n != 1 {
			t.Errorf("%s: the recital has %d lines in the index, want one:\n%s", v, n, summary)
		}
		if !strings.Contains(summary, "cover 14 session(s)") {
			t.Errorf("%s: the profile does not count every session:\n%s", v, summary)
		}
		if !strings.Contains(summary, "seen in 13 sessions") {
			t.Errorf("%s: the folded line does not count the others:\n%s", v, summary)
		}
		if !strings.Contains(summary, "fixed the cart total rounding") {
			t.Errorf("%s: the fix left the summary:\n%s", v, summary)
		}
	}
}
