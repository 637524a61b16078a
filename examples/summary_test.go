package examples

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/consolidate"
	"github.com/memctl/memctl/internal/extract"
	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/redact"
	"github.com/memctl/memctl/internal/sessions"
)

// TestSummaryFromExamplesAndRealFixtures is the bar for the offline
// pipeline: the bundled examples and the real fixtures, extracted by the
// heuristic and consolidated by the heuristic, give a memory_summary.md
// whose preferences are the user's own words and whose tips each name a
// check or a fix that a transcript shows.
func TestSummaryFromExamplesAndRealFixtures(t *testing.T) {
	srcs := append([]sessions.Source{}, sources...)
	srcs = append(srcs,
		sessions.Source{Kind: sessions.KindCodex, Path: "../internal/sessions/testdata/real/codex/sessions"},
		sessions.Source{Kind: sessions.KindClaudeCode, Path: "../internal/sessions/testdata/real/claude/projects"},
		sessions.Source{Kind: sessions.KindCodex, Path: "../internal/sessions/testdata/real/eval/codex/sessions"},
		sessions.Source{Kind: sessions.KindClaudeCode, Path: "../internal/sessions/testdata/real/eval/claude/projects"},
	)
	red := redact.Default().String
	var human strings.Builder
	commands := map[string]bool{}
	var selected []consolidate.Selected
	for _, src := range srcs {
		if _, err := os.Stat(src.Path); err != nil {
			continue
		}
		err := sessions.Discover(context.Background(), src, func(f sessions.File) error {
			m, _, err := sessions.ReadMeta(f)
			if err != nil {
				return err
			}
			if !m.Interactive || m.Subagent {
				return nil // extract claims interactive threads only
			}
			if _, err := sessions.Events(f, func(e sessions.Event) error {
				switch e.Kind {
				case sessions.EventHuman:
					human.WriteString(foldText(red(e.Text)) + "\n")
				case sessions.EventToolCall:
					if e.Command != "" {
						commands[foldText(red(e.Command))] = true
					}
				}
				return nil
			}); err != nil {
				return err
			}
			out, err := extract.Offline(extract.V1, f, m, red)
			if err != nil || !out.HasOutput(extract.V1) {
				return err
			}
			selected = append(selected, consolidate.Selected{ThreadID: m.ID, SourceUpdatedAt: m.UpdatedAt.Unix(),
				RawMemory: out.RawMemory, RolloutSummary: out.RolloutSummary, RolloutSlug: out.Slug(),
				RolloutPath: f.Path, Cwd: m.Cwd, GitBranch: m.GitBranch})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(selected) < 12 {
		t.Fatalf("only %d threads extracted", len(selected))
	}
	root := filepath.Join(t.TempDir(), "memories")
	if err := consolidate.PrepareLayout(root, "", time.Now()); err != nil {
		t.Fatal(err)
	}
	ws := &consolidate.Workspace{Root: root, Version: "v1", Selected: selected, Now: time.Now(), Redact: red}
	if _, err := consolidate.NewHeuristic().Consolidate(context.Background(), ws); err != nil {
		t.Fatal(err)
	}
	if err := consolidate.Validate(root, "v1"); err != nil {
		t.Fatal(err)
	}
	summary, err := os.ReadFile(filepath.Join(root, memdir.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	prefs, tips := bullets(string(summary), "## User preferences"), bullets(string(summary), "## General Tips")
	if len(prefs) < 6 || len(tips) < 6 {
		t.Fatalf("%d preferences and %d tips:\n%s", len(prefs), len(tips), summary)
	}
	said := human.String()
	for _, p := range prefs {
		words := strings.TrimSuffix(strings.TrimPrefix(dropScope(p), "\u201c"), "\u201d")
		words = strings.TrimSuffix(words, "…")
		if words == dropScope(p) || !strings.Contains(said, foldText(words)) {
			t.Errorf("preference %q is not the user's own words", p)
		}
	}
	code := regexp.MustCompile("`([^`]+)`")
	for _, tip := range tips {
		item := dropScope(tip)
		if !strings.HasPrefix(item, "Check: ") && !strings.HasPrefix(item, "Fix: ") {
			t.Errorf("tip %q names neither a check nor a fix", tip)
			continue
		}
		named := false
		for _, m := range code.FindAllStringSubmatch(item, -1) {
			c := foldText(m[1])
			if commands[c] || commandPrefix(commands, strings.TrimSuffix(c, "…")) {
				named = true
				break
			}
		}
		if !named {
			t.Errorf("tip %q names no command a transcript shows", tip)
		}
	}
	t.Logf("memory_summary.md:\n%s", summary)
}

// bullets returns the "- " items of one section of a summary.
func bullets(doc, heading string) []string {
	_, rest, ok := strings.Cut(doc, heading+"\n")
	if !ok {
		return nil
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	var out []string
	for _, l := range strings.Split(rest, "\n") {
		if item, ok := strings.CutPrefix(l, "- "); ok && item != "none recorded yet" {
			out = append(out, item)
		}
	}
	return out
}

// dropScope removes the "(project) " a summary item opens with.
func dropScope(s string) string {
	if strings.HasPrefix(s, "(") {
		if i := strings.Index(s, ") "); i > 0 {
			return s[i+2:]
		}
	}
	return s
}

// foldText folds whitespace and typographic apostrophes, as the extractor
// does before it quotes.
func foldText(s string) string {
	s = strings.NewReplacer("\u2019", "'", "\u2018", "'").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

// commandPrefix reports a shortened command ("go test ./internal/…") that
// starts some command the transcripts show.
func commandPrefix(commands map[string]bool, prefix string) bool {
	if len(prefix) < 8 {
		return false
	}
	for c := range commands {
		if strings.HasPrefix(c, prefix) {
			return true
		}
	}
	return false
}
