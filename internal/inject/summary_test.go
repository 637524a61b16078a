package inject

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/golden"
	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/team"
	"github.com/memctl/memctl/internal/textcut"
	"github.com/memctl/memctl/templates"
)

const (
	beginLine = "========= MEMORY_SUMMARY BEGINS ========="
	endLine   = "========= MEMORY_SUMMARY ENDS ========="
)

func writeSummary(t testing.TB, root, text string) {
	t.Helper()
	if err := os.MkdirAll(root, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, memdir.SummaryFile), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestSummaryRendersSummaryOnceWithBasePath(t *testing.T) {
	for _, version := range memversion.All() {
		t.Run(string(version), func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "memories")
			writeSummary(t, root, "\n\n  v1\n## User preferences\n- prefers tabs   \n\n")
			res, err := Summary(root, version, 0, false, "")
			if err != nil {
				t.Fatal(err)
			}
			if !res.Injected || res.Truncated {
				t.Fatalf("Injected=%v Truncated=%v", res.Injected, res.Truncated)
			}
			want := beginLine + "\nv1\n## User preferences\n- prefers tabs\n" + endLine
			if strings.Count(res.Text, want) != 1 {
				t.Errorf("trimmed summary not found exactly once between the markers:\n%s", res.Text)
			}
			if strings.Count(res.Text, "prefers tabs") != 1 {
				t.Errorf("summary rendered more than once")
			}
			if !strings.Contains(res.Text, root+"/extensions/ad_hoc/notes/") {
				t.Errorf("base path not rendered into the notes location")
			}
			if strings.Contains(res.Text, "{{") {
				t.Errorf("placeholder left in output")
			}
			if res.ApproxTokens != textcut.ApproxTokens(res.Text) {
				t.Errorf("ApproxTokens = %d, want %d", res.ApproxTokens, textcut.ApproxTokens(res.Text))
			}
		})
	}
}

func TestSummaryV2ReadsOnlyItsOwnRoot(t *testing.T) {
	home := t.TempDir()
	writeSummary(t, filepath.Join(home, "memories"), "v1\nonly the v1 pipeline ran\n")
	res, err := Summary(filepath.Join(home, "memories_v2"), "v2", 0, false, "")
	if err != nil || res.Injected || res.Text != "" {
		t.Fatalf("v2 with only a v1 summary: got %+v, %v; want nothing injected", res, err)
	}
	writeSummary(t, filepath.Join(home, "memories_v2"), "v1\nfrom v2\n")
	res, err = Summary(filepath.Join(home, "memories_v2"), "v2", 0, false, "")
	if err != nil || !res.Injected || strings.Contains(res.Text, "only the v1 pipeline ran") || !strings.Contains(res.Text, "from v2") {
		t.Fatalf("v2 summary: got %+v, %v", res, err)
	}
}

func TestSummaryNothingToInject(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name  string
		setup func(root string)
	}{
		{"missing folder", func(string) {}},
		{"missing file", func(root string) { _ = os.MkdirAll(root, 0o700) }},
		{"blank file", func(root string) { writeSummary(t, root, " \n\t\n") }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_"))
			tt.setup(root)
			res, err := Summary(root, "v1", 0, false, "")
			if err != nil || !reflect.DeepEqual(res, SummaryResult{}) {
				t.Fatalf("got %+v, %v; want zero result and no error", res, err)
			}
		})
	}
}

// An unreadable summary injects nothing (Codex 8.1): the hook that runs
// before every turn must not fail the agent over it.
func TestSummaryUnreadableInjectsNothing(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, memdir.SummaryFile), 0o700); err != nil {
		t.Fatal(err)
	}
	res, err := Summary(root, "v1", 0, false, "")
	if err != nil || res.Injected || res.Text != "" {
		t.Fatalf("a directory in place of the summary: %+v, %v", res, err)
	}
}

func TestSummaryRawAndTruncation(t *testing.T) {
	root := t.TempDir()
	writeSummary(t, root, strings.Repeat("a", 30)+strings.Repeat("b", 30))
	res, err := Summary(root, "v1", 10, true, "")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Repeat("a", 20) + "…5 tokens truncated…" + strings.Repeat("b", 20)
	if res.Text != want || !res.Truncated || !res.Injected {
		t.Fatalf("got %+v, want text %q truncated", res, want)
	}
	// The default budget keeps a 10,000-byte summary whole.
	writeSummary(t, root, strings.Repeat("x", 10000))
	res, err = Summary(root, "v1", 0, true, "")
	if err != nil || res.Truncated || len(res.Text) != 10000 || res.ApproxTokens != 2500 {
		t.Fatalf("10,000 bytes at the default budget: %d bytes, truncated=%v, err=%v", len(res.Text), res.Truncated, err)
	}
}

func TestSummaryTemplateOverrideAndPlaceholdersInSummary(t *testing.T) {
	root := t.TempDir()
	writeSummary(t, root, "keep {{ base_path }} literally")
	tmplDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(tmplDir, "read_path.md"), []byte("at {{ base_path }}: {{ memory_summary }}"), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := Summary(root, "v1", 0, false, tmplDir)
	if err != nil {
		t.Fatal(err)
	}
	if want := "at " + root + ": keep {{ base_path }} literally"; res.Text != want {
		t.Fatalf("got %q, want %q", res.Text, want)
	}
}

func TestSummaryUnknownVersion(t *testing.T) {
	if _, err := Summary(t.TempDir(), "v3", 0, false, ""); err == nil {
		t.Fatal("want an error for an unknown version")
	}
}

// TestReadPathGolden pins the rendered templates. Regenerate with
// MEMCTL_UPDATE=1 go test ./internal/inject/ after editing a template.
func TestReadPathGolden(t *testing.T) {
	summary := "v1\n## User preferences\n- Run `make check` before committing.\n## Projects\n- memctl: Go CLI, tests with testscript."
	for _, tt := range []struct {
		version memversion.Version
		golden  string
	}{
		{memversion.V1, "read_path.golden"},
		{memversion.V2, "read_path_v2.golden"},
	} {
		t.Run(tt.version.String(), func(t *testing.T) {
			name, err := TemplateName(tt.version)
			if err != nil {
				t.Fatal(err)
			}
			tmpl, err := templates.Get(name, "")
			if err != nil {
				t.Fatal(err)
			}
			got := Render(tmpl, "/home/user/.memctl/memories", summary)
			golden.File(t, filepath.Join("testdata", tt.golden), got)
			if strings.Count(got, beginLine) != 1 || strings.Count(got, endLine) != 1 || strings.Count(got, summary) != 1 {
				t.Errorf("summary markers or summary not present exactly once")
			}
			for _, must := range []string{"<oai-mem-citation>", "<citation_entries>", "<rollout_ids>", "extensions/ad_hoc/notes/", "memctl note add"} {
				if !strings.Contains(got, must) {
					t.Errorf("template lacks %q", must)
				}
			}
			// The example block in the template must itself parse.
			_, bodies := StripCitationsString(got)
			if c, ok := ParseCitations(bodies); !ok || len(c.Entries) == 0 || len(c.ThreadIDs) != 1 {
				t.Errorf("the template's example citation does not parse: %+v %v", c, ok)
			}
		})
	}
}

func TestFragments(t *testing.T) {
	text := strings.Repeat("line one\n", 3) + strings.Repeat("€", 10)
	parts := Fragments(text, 12)
	if strings.Join(parts, "") != text {
		t.Fatalf("fragments do not reassemble: %q", parts)
	}
	want := []string{"line one\n", "line one\n", "line one\n", "€€€€", "€€€€", "€€"}
	if !reflect.DeepEqual(parts, want) {
		t.Errorf("Fragments = %q, want %q", parts, want)
	}
	if Fragments("", 10) != nil || len(Fragments("short", 0)) != 1 {
		t.Error("edge cases")
	}
	if got := Fragments("😀😀", 2); strings.Join(got, "") != "😀😀" || len(got) != 2 {
		t.Errorf("rune wider than the limit: %q", got)
	}
}

func BenchmarkSummary(b *testing.B) {
	root := b.TempDir()
	var sb strings.Builder
	sb.WriteString("v1\n")
	for sb.Len() < 10*1024 {
		sb.WriteString("- prefers small focused commits; runs the linter before pushing\n")
	}
	writeSummary(b, root, sb.String())
	b.ReportAllocs()
	for b.Loop() {
		res, err := Summary(root, "v1", 0, false, "")
		if err != nil || !res.Injected {
			b.Fatal(err)
		}
	}
}

func TestSummaryForAgent(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, memdir.SummaryFile), []byte("v1\n- calc.sh fix\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, version := range memversion.All() {
		gen, err := SummaryFor(root, version, 0, false, "", AgentGeneric)
		if err != nil || !strings.Contains(gen.Text, "hidden from the user") || strings.Contains(gen.Text, "{{") {
			t.Fatalf("%s generic: %v\n%s", version, err, gen.Text)
		}
		if res, _ := SummaryFor(root, version, 0, false, "", AgentCodex); !strings.Contains(res.Text, "hidden from the user") {
			t.Errorf("%s codex: Codex strips the block itself\n%s", version, res.Text)
		}
		for _, agent := range []string{AgentClaudeCode} {
			res, err := SummaryFor(root, version, 0, false, "", agent)
			if err != nil || !strings.Contains(res.Text, "The user sees this block") || strings.Contains(res.Text, "hidden from the user") || strings.Contains(res.Text, "{{") {
				t.Errorf("%s %s: %v\n%s", version, agent, err, res.Text)
			}
		}
	}
	if _, err := SummaryFor(root, "v1", 0, false, "", "aider"); err == nil {
		t.Error("unknown agent accepted")
	}
}

func TestAddWaitingSaysHowManyWaitInOneLine(t *testing.T) {
	var none SummaryResult
	none.AddWaiting(0)
	if none.Injected || none.Text != "" {
		t.Errorf("nothing waits: %+v", none)
	}
	r := SummaryResult{Text: "## Memory\n\n- a fact\n", Injected: true, Team: &TeamInfo{Waiting: make([]team.Waiting, 2)}}
	r.AddWaiting(1)
	if r.Waiting != 3 || !strings.HasSuffix(r.Text, "\n\n(3 items of memory wait for the user's review in `memctl review` and are not part of this memory.)") {
		t.Errorf("%+v", r)
	}
	alone := SummaryResult{}
	alone.AddWaiting(1)
	if !alone.Injected || alone.Text != "(1 item of memory waits for the user's review in `memctl review` and is not part of this memory.)" {
		t.Errorf("%+v", alone)
	}
}

// render fills a template as a strings.Replacer of the three placeholders
// does, in one pass: placeholder text in a value stays, a broken or
// doubled opening is copied.
func TestRenderAsReplacer(t *testing.T) {
	values := []string{"", "/home/dev/.memctl/memories", "{{ base_path }} and {{ memory_summary }}", "{{ "}
	tmpls := []string{
		"", "plain", "{{ base_path }}", "a {{ memory_summary }} b {{ citation_visibility }} c",
		"{{ {{ base_path }}", "{{{{ memory_summary }}}}", "{{ memory_summary }", "{{  base_path }}",
		"{{ base_path }}{{ base_path }}{{ citation_visibility }}", "x {{", "{{ citation_visibility }}\n{{ unknown }}",
	}
	for _, tmpl := range tmpls {
		for _, v := range values {
			want := strings.NewReplacer(basePathPlaceholder, v+"/", summaryPlaceholder, "S"+v, visibilityPlaceholder, v).Replace(tmpl)
			if got := render(tmpl, v+"/", "S"+v, v); got != want {
				t.Errorf("render(%q) with %q = %q, want %q", tmpl, v, got, want)
			}
		}
	}
}
