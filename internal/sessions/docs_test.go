package sessions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The example in docs/transcript-format.md must validate against the schema
// and read as a complete thread.
func TestTranscriptFormatDocExample(t *testing.T) {
	doc, err := os.ReadFile("../../docs/transcript-format.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```jsonl\n")
	example, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("no jsonl example in the doc")
	}
	schemaPath, _ := filepath.Abs("../../docs/transcript.schema.json")
	sch, err := jsonschema.NewCompiler().Compile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSpace(example), "\n") {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(line))
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("line %d: %v", i+1, err)
		}
	}
	bad, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"type":"file_change","path":"a","op":"rename"}`))
	if sch.Validate(bad) == nil {
		t.Error("schema accepts an unknown op")
	}

	p := writeFile(t, t.TempDir(), "x.jsonl", example)
	f := File{Kind: KindJSONL, Path: p}
	m, probs, err := ReadMeta(f)
	if err != nil || len(probs) > 0 {
		t.Fatal(err, probs)
	}
	if m.ID != "deploy-bot-2026-03-01-1" || m.Preview != "Why does the nightly deploy fail?" || m.Cwd != "/srv/app" {
		t.Errorf("meta %+v", m)
	}
	evs, _ := collectEvents(t, f)
	if len(evs) != 9 || !evs[8].Final {
		t.Errorf("events:\n%s", describe(evs))
	}
}
