package main

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/memctl/memctl/cmd"
)

// TestGeneratedDocsAreCurrent regenerates the CLI reference and man pages
// from the command tree and fails when docs/cli or docs/man differ.
// MEMCTL_UPDATE=1 rewrites them.
func TestGeneratedDocsAreCurrent(t *testing.T) {
	tmp := t.TempDir()
	md, man := filepath.Join(tmp, "cli"), filepath.Join(tmp, "man")
	if err := generate(cmd.NewRootForDocs(), md, man); err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]string{{md, "../../docs/cli"}, {man, "../../docs/man"}} {
		got, want := pair[0], pair[1]
		if os.Getenv("MEMCTL_UPDATE") != "" {
			os.RemoveAll(want)
			if err := os.CopyFS(want, os.DirFS(got)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if diff := compareDirs(got, want); diff != "" {
			t.Errorf("%s is stale (%s): run MEMCTL_UPDATE=1 go test ./internal/gendocs", want, diff)
		}
	}
}

func compareDirs(got, want string) string {
	list := func(dir string) []string {
		entries, _ := os.ReadDir(dir)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		sort.Strings(names)
		return names
	}
	g, w := list(got), list(want)
	if len(g) != len(w) {
		return "different files"
	}
	for i := range g {
		if g[i] != w[i] {
			return "missing or extra " + g[i]
		}
		a, _ := os.ReadFile(filepath.Join(got, g[i]))
		b, _ := os.ReadFile(filepath.Join(want, w[i]))
		if !bytes.Equal(a, b) {
			return g[i] + " differs"
		}
	}
	return ""
}
