package consolidate

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/model"
)

// fakeProvider answers structured calls from a function and keeps the requests.
type fakeProvider struct {
	mu     sync.Mutex
	reqs   []model.Request
	answer func(i int, req model.Request) (string, error)
}

func (p *fakeProvider) Name() string { return "fake" }

func (p *fakeProvider) Call(ctx context.Context, req model.Request) (model.Response, error) {
	p.mu.Lock()
	i := len(p.reqs)
	p.reqs = append(p.reqs, req)
	p.mu.Unlock()
	s, err := p.answer(i, req)
	if err != nil {
		return model.Response{}, err
	}
	return model.Response{JSON: json.RawMessage(s), Usage: model.Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15}}, nil
}

func answerJSON(memory, summary string, skills ...modelSkill) string {
	if skills == nil {
		skills = []modelSkill{}
	}
	b, _ := json.Marshal(modelAnswer{MemoryMD: memory, MemorySummaryMD: summary, Skills: skills})
	return string(b)
}

func TestModelConsolidatorRun(t *testing.T) {
	e := newEnv(t)
	p := &fakeProvider{answer: func(i int, req model.Request) (string, error) {
		return answerJSON("# Task Group: billing\n", "v1\n\n## User Profile\nsecret sk-123\n",
			modelSkill{Name: "Fix Flaky CI", SkillMD: "---\nname: fix-flaky-ci\n---\n"}), nil
	}}
	o := e.opts(NewModel(p, "gpt-test"))
	o.Redact = func(s string) string { return strings.ReplaceAll(s, "sk-123", "[REDACTED_SECRET]") }
	res, err := Run(context.Background(), e.jobs, o)
	if err != nil || res.Status != StatusSucceeded {
		t.Fatalf("run = %+v, %v", res, err)
	}
	if res.Usage.TotalTokens != 15 || res.Consolidator != "model" {
		t.Errorf("result = %+v", res)
	}
	if len(p.reqs) != 1 {
		t.Fatalf("%d calls", len(p.reqs))
	}
	req := p.reqs[0]
	if req.Kind != "consolidate" || req.Model != "gpt-test" || len(req.Input) != 2 {
		t.Errorf("request = %+v", req)
	}
	if !strings.Contains(req.System, "You cannot open files") || !strings.Contains(req.Input[0], "(missing)") {
		t.Error("first run must say that the files are missing")
	}
	if !strings.Contains(req.Input[1], "## Input raw_memories.md") {
		t.Errorf("first run does not send every input:\n%s", req.Input[1])
	}
	if got := readFile(t, filepath.Join(e.root, memdir.SkillsDir, "fix-flaky-ci", "SKILL.md")); !strings.Contains(got, "name: fix-flaky-ci") {
		t.Errorf("skill = %q", got)
	}
	if strings.Contains(readFile(t, filepath.Join(e.root, memdir.SummaryFile)), "sk-123") {
		t.Error("model output not redacted")
	}

	// Incremental: only the change is sent, the current files come along.
	e.jobs.selection = append(e.jobs.selection, sampleSelection(t)[3])
	e.clock.Advance(7 * time.Hour)
	res, err = Run(context.Background(), e.jobs, o)
	if err != nil || res.Status != StatusSucceeded {
		t.Fatalf("second run = %+v, %v", res, err)
	}
	req = p.reqs[1]
	if !strings.Contains(req.Input[0], "# Task Group: billing") || !strings.Contains(req.Input[0], "skills/fix-flaky-ci/SKILL.md") {
		t.Errorf("current files not sent:\n%s", req.Input[0])
	}
	if !strings.Contains(req.Input[1], "## Added rollout_summaries/") || !strings.Contains(req.Input[1], "## Modified raw_memories.md") ||
		strings.Contains(req.Input[1], "## Input ") {
		t.Errorf("incremental material wrong:\n%s", req.Input[1])
	}
}

func TestModelConsolidatorChunksAndMerges(t *testing.T) {
	root := t.TempDir()
	if err := PrepareLayout(root, "", testNow); err != nil {
		t.Fatal(err)
	}
	var sel []Selected
	for i := 0; i < 6; i++ {
		sel = append(sel, Selected{ThreadID: "t" + itoa8(uint32(i)), SourceUpdatedAt: int64(i), RolloutSummary: strings.Repeat("evidence line\n", 100), RawMemory: "r"})
	}
	if err := syncInputs(root, "v1", sel, 0, testNow, nil); err != nil {
		t.Fatal(err)
	}
	cur, _ := Snapshot(root)
	changes := diffSnapshots(nil, cur)
	ws := &Workspace{Root: root, Version: "v1", Selected: sel, Changes: changes, DiffFile: renderDiffFile(changes, nil, cur), Prompt: "PROMPT"}
	p := &fakeProvider{answer: func(i int, req model.Request) (string, error) {
		// Each call must see what the previous one produced.
		if i > 0 && !strings.Contains(req.Input[0], "memory after call "+itoa8(uint32(i-1))) {
			return "", errors.New("previous result not passed on")
		}
		return answerJSON("memory after call "+itoa8(uint32(i)), "v1\nsummary", modelSkill{Name: "s", SkillMD: "k"}), nil
	}}
	mc := &modelConsolidator{provider: p, chunkBytes: 2000}
	usage, err := mc.Consolidate(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.reqs) < 4 {
		t.Fatalf("only %d calls for ~9 KB of material with a 2 KB budget", len(p.reqs))
	}
	for _, r := range p.reqs {
		if len(r.Input[1]) > 2000+100 {
			t.Errorf("chunk of %d bytes", len(r.Input[1]))
		}
	}
	if usage.TotalTokens != int64(15*len(p.reqs)) {
		t.Errorf("usage = %+v", usage)
	}
	if got := readFile(t, filepath.Join(root, memdir.MemoryFile)); got != "memory after call "+itoa8(uint32(len(p.reqs)-1)) {
		t.Errorf("MEMORY.md = %q", got)
	}
}

func TestSanitizeSkillName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"fix-ci", "fix-ci"},
		{"Fix Flaky CI!", "fix-flaky-ci"},
		{"a_b__c", "a-b-c"},
		{strings.Repeat("x", 80), strings.Repeat("x", 64)},
		{"../evil", ""}, {"a/b", ""}, {`a\b`, ""}, {"..", ""}, {"", ""}, {"  ", ""}, {"!!!", ""},
	}
	for _, tt := range tests {
		got, err := sanitizeSkillName(tt.in)
		if tt.want == "" {
			if !errors.Is(err, errUnsafeSkillName) {
				t.Errorf("SanitizeSkillName(%q) = %q, %v; want refusal", tt.in, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("SanitizeSkillName(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestModelEvilSkillNameRefused(t *testing.T) {
	e := newEnv(t)
	p := &fakeProvider{answer: func(i int, req model.Request) (string, error) {
		return answerJSON("m", "v1\n", modelSkill{Name: "../evil", SkillMD: "pwned"}), nil
	}}
	res, err := Run(context.Background(), e.jobs, e.opts(NewModel(p, "")))
	if !errors.Is(err, errUnsafeSkillName) || res.Status != statusFailedModel {
		t.Fatalf("run = %+v, %v", res, err)
	}
	parent := filepath.Dir(e.root)
	if entries, _ := os.ReadDir(parent); len(entries) != 1 {
		t.Errorf("something was written beside the root: %v", entries)
	}
	if exists(filepath.Join(e.root, memdir.MemoryFile)) || exists(filepath.Join(e.root, memdir.SkillsDir)) {
		t.Error("a refused answer left files behind")
	}
}

func TestModelBadAnswerFails(t *testing.T) {
	e := newEnv(t)
	p := &fakeProvider{answer: func(i int, req model.Request) (string, error) {
		return `{"memory_md":"m","memory_summary_md":"v1\n","skills":[],"extra":1}`, nil
	}}
	res, err := Run(context.Background(), e.jobs, e.opts(NewModel(p, "")))
	if err == nil || res.Status != statusFailedModel {
		t.Fatalf("run = %+v, %v", res, err)
	}
}

func TestModelV2SchemaAndOutput(t *testing.T) {
	e := newEnv(t)
	p := &fakeProvider{answer: func(i int, req model.Request) (string, error) {
		return `{"memory_summary_md":` + mustJSON(validV2) + `}`, nil
	}}
	o := e.opts(NewModel(p, ""))
	o.Version = "v2"
	res, err := Run(context.Background(), e.jobs, o)
	if err != nil || res.Status != StatusSucceeded {
		t.Fatalf("run = %+v, %v", res, err)
	}
	var schema map[string]any
	if err := json.Unmarshal(p.reqs[0].Schema, &schema); err != nil {
		t.Fatal(err)
	}
	if req := schema["required"].([]any); len(req) != 1 || req[0] != "memory_summary_md" {
		t.Errorf("v2 schema required = %v", req)
	}
	if strings.Contains(p.reqs[0].Input[1], memdir.RawMemoriesFile) {
		t.Error("v2 material mentions raw_memories.md")
	}
	if exists(filepath.Join(e.root, memdir.MemoryFile)) {
		t.Error("v2 wrote MEMORY.md")
	}
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestChunkMaterial(t *testing.T) {
	big := strings.Repeat("line of text\n", 1000) // 13,000 bytes
	chunks := chunkMaterial([]string{"a", big, "b"}, 4000)
	var joined strings.Builder
	for _, c := range chunks {
		if len(c) > 4001 {
			t.Errorf("chunk of %d bytes", len(c))
		}
		joined.WriteString(c)
	}
	if got := strings.ReplaceAll(joined.String(), "\n", ""); got != "a"+strings.ReplaceAll(big, "\n", "")+"b" {
		t.Error("chunks lose material")
	}
	if len(chunkMaterial(nil, 10)) != 1 {
		t.Error("no material must still make one call")
	}
}

// The model's skill list is complete, so a skill it was shown and dropped
// goes; but folders it never saw (another name, no SKILL.md) are kept, with
// their helper files.
func TestModelKeepsSkillFoldersItNeverSaw(t *testing.T) {
	e := newEnv(t)
	write := func(rel, body string) {
		p := filepath.Join(e.root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte(body), 0o600)
	}
	write("skills/My_Skill/SKILL.md", "---\nname: my-skill\n---\n")
	write("skills/My_Skill/scripts/run.sh", "echo run\n")
	write("skills/deploy/scripts/deploy.sh", "echo deploy\n")
	write("skills/old-skill/SKILL.md", "---\nname: old-skill\n---\n")
	p := &fakeProvider{answer: func(i int, req model.Request) (string, error) {
		return answerJSON("# Task Group: x\n", "v1\n\n## User Profile\nx\n",
			modelSkill{Name: "My_Skill", SkillMD: "---\nname: my-skill\n---\nupdated\n"}), nil
	}}
	res, err := Run(context.Background(), e.jobs, e.opts(NewModel(p, "m")))
	if err != nil || res.Status != StatusSucceeded {
		t.Fatalf("run = %+v, %v", res, err)
	}
	for _, kept := range []string{"skills/My_Skill/scripts/run.sh", "skills/deploy/scripts/deploy.sh", "skills/my-skill/SKILL.md"} {
		if _, err := os.Stat(filepath.Join(e.root, filepath.FromSlash(kept))); err != nil {
			t.Errorf("%s lost: %v", kept, err)
		}
	}
	if _, err := os.Stat(filepath.Join(e.root, "skills", "old-skill")); err == nil {
		t.Error("a skill the model was shown and dropped is still there")
	}
}
