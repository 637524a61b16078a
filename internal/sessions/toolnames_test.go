package sessions

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The agents' tool vocabularies belong to this package: every other
// package works on the normalised events (Action, Outcome, file changes).
// This test reads every non-test Go file of the module outside internal/sessions
// and fails on a string literal that is one of the tool names the readers
// decode.
func TestNoAgentToolNamesOutsideSessions(t *testing.T) {
	names := map[string]bool{}
	for _, n := range AgentToolNames() {
		names[n] = true
	}
	// Plain words that are also tool names of some agent; other packages
	// use them in their own sense (a config kind "shell", an "edit" verb,
	// the language "PowerShell").
	for _, n := range []string{"shell", "write", "edit", "replace", "wait", "local_shell", "PowerShell"} {
		delete(names, n)
	}
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "testdata", ".git", "node_modules":
				return filepath.SkipDir
			}
			switch rel, _ := filepath.Rel(root, p); filepath.ToSlash(rel) {
			case "internal/sessions":
				return filepath.SkipDir
			case "internal/agentcli":
				// The agent CLIs' command lines turn Codex features off by
				// name, and a feature may share a tool's (view_image).
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && names[s] {
				t.Errorf("%s: agent tool name %q outside internal/sessions", fset.Position(lit.Pos()), s)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("only %d files checked", checked)
	}
}
