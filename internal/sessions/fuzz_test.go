package sessions

import (
	"os"
	"path/filepath"
	"testing"
)

// fuzzReader runs every entry point on data saved as a transcript of kind;
// the readers must neither panic nor fail on content alone.
func fuzzReader(f *testing.F, kind Kind, name string) {
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		file := File{Kind: kind, Path: p}
		if _, _, err := ReadMeta(file); err != nil {
			t.Fatalf("ReadMeta: %v", err)
		}
		if _, err := Events(file, func(Event) error { return nil }); err != nil {
			t.Fatalf("Events: %v", err)
		}
		for _, v := range []string{"v1", "v2"} {
			s, err := PrepareInput(file, InputOptions{Version: v, TokenLimit: 64})
			if err != nil {
				t.Fatalf("PrepareInput %s: %v", v, err)
			}
			if len(s) > 64*4+64 {
				t.Fatalf("PrepareInput %s: %d bytes over budget", v, len(s))
			}
		}
	})
}

func FuzzCodexReader(f *testing.F) {
	f.Add([]byte(codexEnvelopeCase))
	f.Add([]byte(codexLegacyCase))
	fuzzReader(f, KindCodex, "rollout-2026-01-01T10-00-00-11111111-2222-3333-4444-555555555555.jsonl")
}

func FuzzClaudeReader(f *testing.F) {
	f.Add([]byte(claudeCase))
	fuzzReader(f, KindClaudeCode, "44444444-2222-3333-4444-555555555555.jsonl")
}

func FuzzJSONLReader(f *testing.F) {
	f.Add([]byte(jsonlCase))
	fuzzReader(f, KindJSONL, "run.jsonl")
}
