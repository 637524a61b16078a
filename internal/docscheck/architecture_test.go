package docscheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestArchitecturePointsAtWhatExists keeps docs/architecture.md honest
// about what it names: every link is to a file of the repository, every
// test it says keeps a rule is a test of the tree, and every source path
// it cites exists. A page that states rules must not cite a check that is
// gone.
func TestArchitecturePointsAtWhatExists(t *testing.T) {
	const page = "../../docs/architecture.md"
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, m := range regexp.MustCompile(`\]\(([^)#]+)(#[^)]*)?\)`).FindAllStringSubmatch(text, -1) {
		if strings.Contains(m[1], "://") {
			t.Errorf("links outside the repository: %s (the docs stand alone)", m[1])
			continue
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(page), m[1])); err != nil {
			t.Errorf("links to %s: %v", m[1], err)
		}
	}
	// A page of the repository's own: a Markdown file it names is one of
	// the repository's, or one memctl writes into a memory folder or an
	// agent's files.
	written := map[string]bool{"MEMORY.md": true, "memory_summary.md": true, "raw_memories.md": true, "SKILL.md": true,
		"phase2_workspace_diff.md": true, "summary.md": true, "AGENTS.md": true, "CLAUDE.md": true}
	for _, name := range regexp.MustCompile(`[A-Za-z0-9_-]+\.md\b`).FindAllString(text, -1) {
		_, inDocs := os.Stat(filepath.Join(filepath.Dir(page), name))
		_, inRoot := os.Stat(filepath.Join("../..", name))
		if !written[name] && inDocs != nil && inRoot != nil {
			t.Errorf("names %s, which the repository does not hold", name)
		}
	}
	funcs := testFuncs(t, "../..")
	for _, m := range regexp.MustCompile("`((?:Test|Benchmark)[A-Za-z0-9_]+)`").FindAllStringSubmatch(text, -1) {
		if !funcs[m[1]] {
			t.Errorf("names %s, which no test file declares", m[1])
		}
	}
	for _, m := range regexp.MustCompile("`((?:cmd|internal|scripts)/[A-Za-z0-9_./-]+)`").FindAllStringSubmatch(text, -1) {
		if _, err := os.Stat(filepath.Join("../..", m[1])); err != nil {
			t.Errorf("cites %s: %v", m[1], err)
		}
	}
}

// testFuncs lists the Test and Benchmark functions declared in the tree
// under root.
func testFuncs(t *testing.T, root string) map[string]bool {
	t.Helper()
	decl := regexp.MustCompile(`(?m)^func ((?:Test|Benchmark)[A-Za-z0-9_]+)\(`)
	out := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && p != root || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range decl.FindAllStringSubmatch(string(b), -1) {
			out[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
