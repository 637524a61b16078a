package inject

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/project"
	"github.com/memctl/memctl/internal/textcut"
	"github.com/memctl/memctl/templates"
)

// todayInstructionTokens is what the fixed instructions of the v1 read
// path cost before they were cut to what an agent needs (bytes/4 of the
// template rendered with an empty summary and a typical base path).
const todayInstructionTokens = 1304

// The instructions around the summary are paid in every session: they
// stay at most half of what they were.
func TestFixedInstructionsAtMostHalf(t *testing.T) {
	for _, version := range memversion.All() {
		name, err := TemplateName(version)
		if err != nil {
			t.Fatal(err)
		}
		tmpl, err := templates.Get(name, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, agent := range []string{AgentGeneric, AgentCodex, AgentClaudeCode} {
			note, err := CitationNote(agent)
			if err != nil {
				t.Fatal(err)
			}
			fixed := render(tmpl, "/home/dev/.memctl/memories", "", note)
			if got := textcut.ApproxTokens(fixed); got > todayInstructionTokens/2 {
				t.Errorf("%s %q: the fixed instructions cost %d tokens, want at most %d", version, agent, got, todayInstructionTokens/2)
			}
		}
	}
}

// layerFolder writes a memory folder's project layer: one project with a
// summary, another, and the personal layer.
func layerFolder(t *testing.T, personal string) string {
	t.Helper()
	root := t.TempDir()
	ix := project.Index{Version: project.IndexVersion, Projects: []project.IndexEntry{
		{Key: "git:github.com/acme/api", Name: "acme/api", Dir: "acme-api-1", Roots: []string{"/src/api"}, Sessions: 2, Latest: "2026-11-20"},
		{Key: "git:github.com/acme/billing", Name: "acme/billing", Dir: "acme-billing-2", Roots: []string{"/src/billing"}, Sessions: 3, Latest: "2026-11-21"},
	}}
	b, err := json.Marshal(ix)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		memdir.ProjectIndexFile:                        string(b),
		memdir.PersonalFile:                            personal,
		"projects/acme-api-1/summary.md":               "## Project: acme/api\n\n### Tips for this project\n\n- Check: `make test` passes.\n",
		"projects/acme-billing-2/summary.md":           "## Project: acme/billing\n\n### Tips for this project\n\n- Fix: run the stripe mock first.\n",
		memdir.SummaryFile:                             "v1\nglobal\n",
		"rollout_summaries/2026-11-20T00-00-00-x-a.md": "x",
	}
	for rel, text := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const emptyPersonal = "## Personal layer\n\nPreferences and tips that hold in every project.\n\n### Preferences\n\n- none recorded yet\n\n### Tips\n\n- none recorded yet\n"

const somePersonal = "## Personal layer\n\nPreferences and tips that hold in every project.\n\n### Preferences\n\n- Answer in British English.\n\n### Tips\n\n- none recorded yet\n"

// A folder with no memory of its own is given the personal rules at
// most: no instructions, no other project's name or tip.
func TestScopedFolderWithoutMemoryGetsPersonalRulesAtMost(t *testing.T) {
	outside := t.TempDir()
	for _, tt := range []struct {
		name, personal string
		want           string // "" : nothing injected
	}{
		{"no personal rule", emptyPersonal, ""},
		{"a personal rule", somePersonal, strings.TrimSpace(somePersonal)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := layerFolder(t, tt.personal)
			for _, raw := range []bool{false, true} {
				res, err := Scoped(Request{Root: root, Version: memversion.V1, Raw: raw, Project: outside})
				if err != nil {
					t.Fatal(err)
				}
				if res.Text != tt.want || res.Injected != (tt.want != "") {
					t.Errorf("raw=%v: injected=%v text:\n%s\nwant:\n%s", raw, res.Injected, res.Text, tt.want)
				}
				if res.Project == nil || res.Project.HasMemory {
					t.Errorf("raw=%v: project %+v, want one without memory", raw, res.Project)
				}
			}
		})
	}
}

// A project with memory gets the instructions, the personal rules and its
// own summary, and no word of another project.
func TestScopedProjectNamesNoOtherProject(t *testing.T) {
	root := layerFolder(t, somePersonal)
	res, err := Scoped(Request{Root: root, Version: memversion.V1, Project: "acme/api"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Memory", "Answer in British English.", "`make test` passes"} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("summary lacks %q:\n%s", want, res.Text)
		}
	}
	for _, leak := range []string{"billing", "stripe", "Other projects"} {
		if strings.Contains(res.Text, leak) {
			t.Errorf("summary of acme/api carries %q of another project:\n%s", leak, res.Text)
		}
	}
	// An empty personal layer is not injected either.
	root = layerFolder(t, emptyPersonal)
	res, err = Scoped(Request{Root: root, Version: memversion.V1, Raw: true, Project: "acme/api"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Text, "Personal layer") || !strings.Contains(res.Text, "## Project: acme/api") {
		t.Errorf("an empty personal layer injected, or the project's summary missing:\n%s", res.Text)
	}
}
