package extract

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/memctl/memctl/internal/redact"
	"github.com/memctl/memctl/internal/redact/redacttest"
	"github.com/memctl/memctl/internal/sessions"
)

// TestIssue24PhaseOneInputHoldsNoSecret renders the Phase 1 input of a
// Codex rollout and a Claude Code session whose tool outputs carry every
// family of the leak corpus on every boundary, for v1 (serialised items)
// and v2 (rendered rows), and runs the offline extractor on them: no
// secret may be in what a model would be sent or what would be stored.
func TestIssue24PhaseOneInputHoldsNoSecret(t *testing.T) {
	cases := redacttest.Cases()
	dir := t.TempDir()
	files := map[string]sessions.File{
		"codex":       {Kind: sessions.KindCodex, Path: writeCodexCases(t, dir, cases)},
		"claude-code": {Kind: sessions.KindClaudeCode, Path: writeClaudeCases(t, dir, cases)},
	}
	red := redact.Default().String
	for format, f := range files {
		for _, v := range []string{"v1", "v2"} {
			in, err := sessions.PrepareInput(f, sessions.InputOptions{Version: v, TokenLimit: 10_000_000, Redact: red})
			if err != nil {
				t.Fatal(err)
			}
			out, err := Offline(v, f, sessions.Meta{ID: "leak", Kind: f.Kind, Path: f.Path, Cwd: "/src/leaks", Interactive: true}, red)
			if err != nil {
				t.Fatal(err)
			}
			stored := out.RawMemory + "\n" + out.RolloutSummary
			seen := map[string]bool{}
			for _, m := range markerRe().FindAllString(in, -1) {
				seen[m] = true
			}
			leaks := 0
			for i, c := range cases {
				if !seen[caseMarker(i)] {
					t.Fatalf("%s %s: case %d (%s on %s) is not in the input: the test proves nothing", format, v, i, c.Family, c.Boundary)
				}
			}
			for what, text := range map[string]string{"model input": in, "offline memory": stored} {
				for _, i := range secretsIn(text, cases) {
					leaks++
					t.Errorf("%s %s: %s on %s reached the %s", format, v, cases[i].Family, cases[i].Boundary, what)
				}
			}
			t.Logf("%s %s: %d cases, %d leaked", format, v, len(cases), leaks)
		}
	}
}

func caseMarker(i int) string { return fmt.Sprintf("leakcase-%04d", i) }

var markerRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`leakcase-\d{4}`) })

// secretsIn returns the cases whose secret text holds, in one pass over
// text (every secret is longer than eight bytes).
func secretsIn(text string, cases []redacttest.Case) []int {
	const k = 8
	byPrefix := map[string][]int{}
	for i, c := range cases {
		byPrefix[c.Secret[:k]] = append(byPrefix[c.Secret[:k]], i)
	}
	found := map[int]bool{}
	var out []int
	for i := 0; i+k <= len(text); i++ {
		for _, ci := range byPrefix[text[i:i+k]] {
			if !found[ci] && strings.HasPrefix(text[i:], cases[ci].Secret) {
				found[ci] = true
				out = append(out, ci)
			}
		}
	}
	return out
}

func writeCodexCases(t *testing.T, dir string, cases []redacttest.Case) string {
	t.Helper()
	var b strings.Builder
	line := func(typ string, payload map[string]any) {
		j, _ := json.Marshal(map[string]any{"timestamp": "2026-01-02T10:00:00Z", "type": typ, "payload": payload})
		b.Write(j)
		b.WriteByte('\n')
	}
	id := "00000000-0000-4000-8000-000000002401"
	line("session_meta", map[string]any{"id": id, "timestamp": "2026-01-02T10:00:00Z", "cwd": "/src/leaks", "source": "cli"})
	line("response_item", map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "check the deployment config"}}})
	for i, c := range cases {
		call := fmt.Sprintf("call_%d", i)
		args, _ := json.Marshal(map[string]any{"command": []string{"bash", "-lc", "cat " + caseMarker(i)}})
		line("response_item", map[string]any{"type": "function_call", "name": "shell", "arguments": string(args), "call_id": call})
		line("response_item", map[string]any{"type": "function_call_output", "call_id": call, "output": c.Text})
	}
	line("response_item", map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": "The config is in place."}}})
	p := filepath.Join(dir, "rollout-2026-01-02T10-00-00-"+id+".jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeClaudeCases(t *testing.T, dir string, cases []redacttest.Case) string {
	t.Helper()
	var b strings.Builder
	id := "00000000-0000-4000-8000-000000002402"
	line := func(typ string, msg map[string]any) {
		j, _ := json.Marshal(map[string]any{"type": typ, "sessionId": id, "cwd": "/src/leaks", "timestamp": "2026-01-02T10:00:00Z", "message": msg})
		b.Write(j)
		b.WriteByte('\n')
	}
	line("user", map[string]any{"role": "user", "content": "check the deployment config"})
	for i, c := range cases {
		tid := fmt.Sprintf("toolu_%d", i)
		line("assistant", map[string]any{"id": fmt.Sprintf("m%d", i), "role": "assistant", "content": []any{
			map[string]any{"type": "tool_use", "id": tid, "name": "Bash", "input": map[string]any{"command": "cat " + caseMarker(i)}}}})
		line("user", map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": tid, "content": c.Text}}})
	}
	line("assistant", map[string]any{"id": "mz", "role": "assistant", "content": []any{map[string]any{"type": "text", "text": "The config is in place."}}})
	p := filepath.Join(dir, id+".jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
