package main

import (
	"path/filepath"
	"testing"

	"github.com/memctl/memctl/cmd"
	"github.com/memctl/memctl/internal/golden"
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
	golden.Dir(t, md, "../../docs/cli")
	golden.Dir(t, man, "../../docs/man")
}
