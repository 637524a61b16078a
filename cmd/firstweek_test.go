package cmd

// The first week with memctl, as a new user lives it: each point is
// driven through the built binary in a fresh home.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// export --to agents-md|claude-md writes a file the repository commits:
// this project's lessons only, no other project's name or lesson, no
// personal rule, no path into the user's memory folder; short.
func TestExportToRepositoryCarriesThisProjectOnly(t *testing.T) {
	w := newProjectWorld(t)
	for _, tt := range []struct {
		target, repo, file, own string
		others                  []string
	}{
		{"agents-md", w.apiA, "AGENTS.md", prefAPI, []string{prefWeb, prefCLI, "webapp", "acme/cli"}},
		{"claude-md", w.web, "CLAUDE.md", prefWeb, []string{prefAPI, prefCLI, "acme/api", "acme/cli"}},
	} {
		t.Run(tt.target, func(t *testing.T) {
			w.memctl("export", "--to", tt.target, "--repo", tt.repo)
			b, err := os.ReadFile(filepath.Join(tt.repo, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			text := string(b)
			if !strings.Contains(text, tt.own) {
				t.Errorf("%s lacks the project's own preference %q:\n%s", tt.file, tt.own, text)
			}
			for _, leak := range append(tt.others, prefGeneral, w.home, "rollout_summaries/", "projects/", "## Personal layer") {
				if strings.Contains(text, leak) {
					t.Errorf("%s carries %q, which is not this project's:\n%s", tt.file, leak, text)
				}
			}
			if len(b) > 4096 {
				t.Errorf("%s is %d bytes: too long to review", tt.file, len(b))
			}
		})
	}
}
