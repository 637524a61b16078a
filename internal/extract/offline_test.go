package extract

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/extract/heuristic"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/rawmemory"
	"github.com/memctl/memctl/internal/redact"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// offlineTranscripts are the transcripts the offline extractor is tested
// on: its rule transcripts and the real fixtures of the sessions package.
func offlineTranscripts(t *testing.T) []sessions.File {
	t.Helper()
	var out []sessions.File
	rules, _ := filepath.Glob(filepath.Join("heuristic", "testdata", "rules", "*.jsonl"))
	for _, p := range rules {
		kind := sessions.KindJSONL
		switch {
		case strings.HasPrefix(filepath.Base(p), "rollout-"):
			kind = sessions.KindCodex
		case strings.HasSuffix(p, ".claude.jsonl"):
			kind = sessions.KindClaudeCode
		}
		out = append(out, sessions.File{Kind: kind, Path: p})
	}
	for _, src := range []sessions.Source{
		{Kind: sessions.KindCodex, Path: "../sessions/testdata/real/codex"},
		{Kind: sessions.KindClaudeCode, Path: "../sessions/testdata/real/claude/projects"},
	} {
		err := filepath.WalkDir(src.Path, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") && !strings.Contains(p, "agent-") {
				out = append(out, sessions.File{Kind: src.Kind, Path: p})
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(out) < 15 {
		t.Fatalf("only %d transcripts found", len(out))
	}
	return out
}

var slugShape = regexp.MustCompile(`^[a-z0-9_-]{0,80}$`)

// What every offline answer must satisfy: it parses as a model answer,
// validates against the schema, stays within the size caps, has a
// filesystem-safe slug, and its raw memory reads back through the one
// parser of the format with every task it wrote.
func TestOfflineShape(t *testing.T) {
	for _, f := range offlineTranscripts(t) {
		meta, _, err := sessions.ReadMeta(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range memversion.All() {
			out, err := Offline(string(v), f, meta, redact.Default().String)
			if err != nil {
				t.Fatalf("%s: %v", f.Path, err)
			}
			if !out.HasOutput(v) {
				t.Errorf("%s %s: no output", f.Path, v)
				continue
			}
			b, err := out.JSON(v)
			if err != nil {
				t.Fatal(err)
			}
			parsed, err := ParseOutput(v, b, nil)
			if err != nil || parsed.RolloutSummary != out.RolloutSummary || parsed.RawMemory != out.RawMemory {
				t.Errorf("%s %s: the answer does not survive ParseOutput: %v", f.Path, v, err)
			}
			inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			if err := compileSchema(t, v).Validate(inst); err != nil {
				t.Errorf("%s %s: schema: %v", f.Path, v, err)
			}
			if len(out.RawMemory) >= 8000 || len(out.RolloutSummary) > MaxSummaryBytesV2 {
				t.Errorf("%s %s: raw memory %d bytes, summary %d bytes", f.Path, v, len(out.RawMemory), len(out.RolloutSummary))
			}
			if !slugShape.MatchString(out.Slug()) {
				t.Errorf("%s: slug %q", f.Path, out.Slug())
			}
			sum := rawmemory.Parse(out.RolloutSummary)
			if len(sum.Tasks) == 0 || sum.Title == "" || sum.Context == "" {
				t.Errorf("%s %s: summary reads back as %+v", f.Path, v, sum)
			}
			if v == memversion.V1 {
				raw := rawmemory.Parse(out.RawMemory)
				if raw.Front.Description == "" || raw.Front.Cwd == "" || len(raw.Tasks) != len(sum.Tasks) {
					t.Errorf("%s: raw memory reads back as %+v", f.Path, raw)
				}
			} else if out.RawMemory != "" {
				t.Errorf("%s: v2 wrote a raw memory", f.Path)
			}
		}
	}
}

// TestOfflineCapKeepsWholeItems: past the extractor's own budget, the cap
// drops whole items from the end, never part of one or of a character,
// whatever multibyte text stands at the cut, and no broken character of
// the transcript is passed on.
func TestOfflineCapKeepsWholeItems(t *testing.T) {
	words := []string{"“quoted”", "é", "日本語", "🙂", "naïve", "plain"}
	for shift := range 12 {
		var b strings.Builder
		b.WriteString("# Title \xe6\x97\n\n")
		for i := 0; b.Len() < heuristicRawCap+2000; i++ {
			b.WriteString("- Final answer: “" + strings.Repeat("x", shift) + words[i%len(words)] + " stays whole " + words[(i+shift)%len(words)] + ".”\n")
		}
		out := offlineOutput(memversion.V1, heuristic.Result{RawMemory: b.String(), RolloutSummary: b.String(), Slug: "s"})
		for _, text := range []string{out.RawMemory, out.RolloutSummary} {
			if !utf8.ValidString(text) || strings.ContainsRune(text, utf8.RuneError) {
				t.Fatalf("shift %d: a broken character is left", shift)
			}
			if len(text) > heuristicSummaryCap || !strings.HasSuffix(text, ".”\n") || strings.Contains(text, "truncated") {
				t.Fatalf("shift %d: an item is cut: …%q", shift, text[max(0, len(text)-60):])
			}
		}
	}
}
