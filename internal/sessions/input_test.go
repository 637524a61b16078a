package sessions

import (
	"encoding/json"
	"math/rand"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/textcut"
)

// The streamed head/tail cut must equal the in-memory one.
func TestHeadTailMatchesTruncateTokens(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	alphabet := []string{"a", "é", "€", "😀", "\n", "z"}
	for i := 0; i < 300; i++ {
		var b strings.Builder
		n := rng.Intn(200)
		for j := 0; j < n; j++ {
			b.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		s := b.String()
		limit := 1 + rng.Intn(30)
		budget := limit * 4
		h := newHeadTail(budget/2, budget-budget/2)
		for k := 0; k < len(s); {
			m := min(len(s)-k, 1+rng.Intn(7))
			h.writeString(s[k : k+m])
			k += m
		}
		if got, want := h.truncateTokensStream(limit), textcut.MiddleTokens(s, limit); got != want {
			t.Fatalf("limit %d, %q:\n got %q\nwant %q", limit, s, got, want)
		}
	}
}

func TestPrepareInputV1Real(t *testing.T) {
	f := File{Kind: KindCodex, Path: realCodex + "/2026/05/11/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"}
	full, err := PrepareInput(f, InputOptions{Version: "v1", TokenLimit: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	var items []map[string]any
	if err := json.Unmarshal([]byte(full), &items); err != nil {
		t.Fatalf("v1 input is not a JSON array: %v", err)
	}
	counts := map[string]int{}
	for _, it := range items {
		typ, _ := it["type"].(string)
		counts[typ]++
		if it["role"] == "developer" {
			t.Error("developer message kept")
		}
		if _, ok := it["encrypted_content"]; ok {
			t.Error("encrypted content kept")
		}
	}
	// 386-line fixture: 13 assistant + 3 user messages (the first loses its
	// AGENTS.md part and keeps the environment context); reasoning dropped.
	want := map[string]int{"message": 16, "function_call": 99, "function_call_output": 99, "custom_tool_call": 3, "custom_tool_call_output": 3, "web_search_call": 3}
	for k, v := range want {
		if counts[k] != v {
			t.Errorf("%s: %d, want %d", k, counts[k], v)
		}
	}
	if counts["reasoning"] != 0 || strings.Contains(full, "# AGENTS.md instructions") || !strings.Contains(full, "<environment_context>") {
		t.Error("filter wrong")
	}
	cut, _ := PrepareInput(f, InputOptions{TokenLimit: 1000, Redact: func(s string) string { return strings.ReplaceAll(s, "codemie", "[R]") }})
	red := strings.ReplaceAll(full, "codemie", "[R]")
	if cut != textcut.MiddleTokens(red, 1000) {
		t.Error("streamed v1 differs from truncating the whole redacted array")
	}
	if len(cut) > 4000+40 || !strings.Contains(cut, " tokens truncated…") {
		t.Errorf("cut length %d", len(cut))
	}
}

func TestPrepareInputImagesAndAgents(t *testing.T) {
	dir := t.TempDir()
	lines := `{"timestamp":"2026-01-01T10:00:00Z","type":"session_meta","payload":{"id":"66666666-2222-3333-4444-555555555555","cwd":"/i","source":"cli"}}
{"timestamp":"2026-01-01T10:00:01Z","type":"response_item","payload":{"type":"message","role":"user","status":"completed","content":[{"type":"input_text","text":"  # agents.md instructions for /i\n<INSTRUCTIONS>x</instructions>  "},{"type":"input_text","text":"<skill>\nbody\n</skill>"}]}}
{"timestamp":"2026-01-01T10:00:02Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"look at this"},{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgoAAAA"}]}}
{"timestamp":"2026-01-01T10:00:03Z","type":"response_item","payload":{"type":"function_call_output","call_id":"v","output":[{"type":"input_image","image_url":"data:image/png;base64,AAAA"}]}}
{"timestamp":"2026-01-01T10:00:04Z","type":"response_item","payload":{"type":"message","role":"assistant","encrypted_content":"zzz","content":[{"type":"output_text","text":"ok"}]}}
`
	p := writeFile(t, dir, "rollout-2026-01-01T10-00-00-66666666-2222-3333-4444-555555555555.jsonl", lines)
	got, err := PrepareInput(File{Kind: KindCodex, Path: p}, InputOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"type":"message","role":"user","content":[{"type":"input_text","text":"look at this"},{"type":"input_text","text":"[image omitted]"}]},{"type":"function_call_output","call_id":"v","output":[{"type":"input_text","text":"[image omitted]"}]},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]}]`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestPrepareInputV2Selection(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString(`{"timestamp":"2026-01-01T10:00:00Z","type":"session_meta","payload":{"id":"77777777-2222-3333-4444-555555555555","cwd":"/v","source":"cli"}}` + "\n")
	item := func(payload string) {
		b.WriteString(`{"timestamp":"2026-01-01T10:00:01Z","type":"response_item","payload":` + payload + "}\n")
	}
	big := strings.Repeat("o", 20000)
	item(`{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>e</environment_context>"}]}`)
	item(`{"type":"message","role":"user","content":[{"type":"input_text","text":"first ask"}]}`)
	item(`{"type":"function_call","name":"shell","arguments":"{}","call_id":"a"}`)
	item(`{"type":"function_call_output","call_id":"a","output":"` + big + `"}`)
	item(`{"type":"message","role":"assistant","phase":"commentary","content":[{"type":"output_text","text":"thinking aloud"}]}`)
	item(`{"type":"function_call","name":"request_user_input","arguments":"{\"q\":\"which db?\"}","call_id":"q1"}`)
	item(`{"type":"function_call_output","call_id":"q1","output":"{\"answers\":{\"db\":{\"answers\":[\"sqlite\"]}}}"}`)
	item(`{"type":"message","role":"assistant","phase":"final_answer","content":[{"type":"output_text","text":"final words"}]}`)
	p := writeFile(t, dir, "rollout-2026-01-01T10-00-00-77777777-2222-3333-4444-555555555555.jsonl", b.String())
	f := File{Kind: KindCodex, Path: p}

	all, err := PrepareInput(f, InputOptions{Version: "v2", TokenLimit: 100000})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"[harness context]\n", "[human user]\n", "[tool]\n", "[assistant commentary]\n", "[assistant final]\n",
		"Assistant question: {\"q\":\"which db?\"}\nHuman reply: {", " chars truncated…"} {
		if !strings.Contains(all, s) {
			t.Errorf("full v2 lacks %q", s)
		}
	}
	if strings.Contains(all, v2Omitted) {
		t.Error("nothing should be omitted at a large budget")
	}
	// The tool output row is capped at 7,904 bytes before the 9,904 row cap.
	for _, row := range strings.Split(all, "[tool]\n") {
		if len(row) > v2RowMax+200 {
			t.Errorf("row of %d bytes", len(row))
		}
	}

	// A small budget keeps human words and the final answer, newest first,
	// and marks the gaps.
	small, _ := PrepareInput(f, InputOptions{Version: "v2", TokenLimit: 200})
	if len(small) > 800 {
		t.Errorf("v2 output %d bytes over budget", len(small))
	}
	if !strings.Contains(small, "first ask") || !strings.Contains(small, "final words") || !strings.Contains(small, v2Omitted) {
		t.Errorf("small selection:\n%s", small)
	}
	if strings.Contains(small, "ooooo") || strings.Contains(small, "[tool]") {
		t.Errorf("low tiers kept at a small budget:\n%s", small)
	}
	if strings.Index(small, "first ask") > strings.Index(small, "final words") {
		t.Error("rows not in source order")
	}
	if strings.Contains(small, v2Omitted+v2Omitted) {
		t.Error("consecutive omitted markers")
	}
}

func TestPrepareInputAllRealFixtures(t *testing.T) {
	for _, src := range []Source{{Kind: KindCodex, Path: realCodex}, {Kind: KindClaudeCode, Path: realClaude}} {
		for rel, f := range discoverAll(t, src) {
			for _, v := range []string{"v1", "v2"} {
				s, err := PrepareInput(f, InputOptions{Version: v, TokenLimit: 20000})
				if err != nil {
					t.Fatalf("%s %s: %v", rel, v, err)
				}
				if len(s) > 80000+40 {
					t.Errorf("%s %s: %d bytes over budget", rel, v, len(s))
				}
				if v == "v1" && len(s) < 80000 && !json.Valid([]byte(s)) {
					t.Errorf("%s: v1 not valid JSON", rel)
				}
			}
		}
	}
}
