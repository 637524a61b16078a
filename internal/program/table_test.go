package program

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// Each kind of row of the table, tested through what callers ask: a
// command's family, whether it only reads, whether it checks and what for.
// A new toolchain is a new row there and a new case here.
func TestTable(t *testing.T) {
	tests := []struct {
		cmd      string
		family   string
		readOnly bool
		check    bool
		purpose  string
	}{
		{"go test ./...", "go test", false, true, "test"},
		{"go vet ./...", "go vet", false, true, "lint"},
		{"go build ./cmd/x", "go build", false, true, "build"},
		{"cargo clippy -- -D warnings", "cargo clippy", false, true, "lint"},
		{"cargo test", "cargo test", false, true, "test"},
		{"mix test 2>&1 | tail -15", "mix test", false, true, "test"},
		{"mix compile --warnings-as-errors", "mix compile", false, true, "build"},
		{"mix credo --strict", "mix credo", false, true, "lint"},
		{"mix dialyzer", "mix dialyzer", false, true, "type-check"},
		{"pytest -q", "pytest", false, true, "test"},
		{"python -m mypy src", "mypy", false, true, "type-check"},
		{"npm run lint", "npm run lint", false, true, "lint"},
		{"npx tsc --noEmit", "tsc", false, true, "type-check"},
		{"make", "make", false, true, "build"},
		{"make deploy", "make deploy", false, false, ""},
		{"nginx -t", "nginx", false, true, "check"},
		{"rg -n foo src", "rg", true, false, ""},
		{"Get-Content -Raw '.kiro/specs/requirements.md'", "Get-Content", true, false, ""},
		{"get-childitem", "get-childitem", true, false, ""},
		{"git status --short", "git status", true, false, ""},
		{"git commit -m 'fix tests'", "git commit", false, false, ""},
		{"curl -fsS https://example.com", "curl", false, false, ""},
		{"prettier --write src", "prettier", false, false, ""},
		{"prettier --check src", "prettier", false, true, "lint"},
		// Code given inline is a probe of the environment: what it imports names no check.
		{`python -c "import pytest_asyncio"`, "python", false, false, ""},
		{`node -e "require('eslint')"`, "node", false, false, ""},
		{"pytest -c ci/pytest.ini tests", "pytest", false, true, "test"},
	}
	for _, tt := range tests {
		if got := Family(tt.cmd); got != tt.family {
			t.Errorf("Family(%q) = %q, want %q", tt.cmd, got, tt.family)
		}
		if got := readOnly(tt.cmd); got != tt.readOnly {
			t.Errorf("readOnly(%q) = %v", tt.cmd, got)
		}
		if got := !tt.readOnly && IsCheck(tt.cmd); got != tt.check {
			t.Errorf("IsCheck(%q) = %v", tt.cmd, got)
		}
		if tt.check {
			if got := Purpose(tt.cmd); got != tt.purpose {
				t.Errorf("Purpose(%q) = %q, want %q", tt.cmd, got, tt.purpose)
			}
		}
	}
	if got := WithoutFilters("mix dialyzer 2>&1 | tail -20"); got != "mix dialyzer" {
		t.Errorf("WithoutFilters = %q", got)
	}
	// A tool asked for a state only looks; one asked to change one does not.
	for cmd, want := range map[string]bool{
		"gh pr view 12 --json title":           true,
		"bd ready":                             true,
		"git stash list && git status --short": true,
		"kubectl describe pod x":               true,
		"gh pr create --title x":               false,
		"pnpm add lucide-react":                false,
		"go get example.com/x":                 false,
		"git stash && go test ./...":           false,
	} {
		if got := readOnly(cmd); got != want {
			t.Errorf("readOnly(%q) = %v", cmd, got)
		}
	}
}

// TestLeaf keeps the package a leaf: the standard library only (and
// internal/lazyre, itself a leaf of the standard library), so that any
// part of memctl may share the table.
func TestLeaf(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		pf, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range pf.Imports {
			if strings.Contains(imp.Path.Value, ".") && imp.Path.Value != `"github.com/memctl/memctl/internal/lazyre"` {
				t.Errorf("%s imports %s", f, imp.Path.Value)
			}
		}
	}
}

// A successful git command changed the repository unless it only
// checked, stopped, or had nothing to do.

// The file a line runs: its program as a path, or an interpreter's script; a tool working on a file runs none.
func TestRunsFile(t *testing.T) {
	for cmd, want := range map[string]string{
		"bash scripts/release.sh --dry": "scripts/release.sh", "cd app && python3 tools/export.py -n 3": "tools/export.py",
		"./build.sh": "./build.sh", "node -e 'x'": "", "git add scripts/release.sh": "", "cp tool.py /tmp/": "",
		"go test ./...": "",
	} {
		if got := RunsFile(cmd); got != want {
			t.Errorf("RunsFile(%q) = %q, want %q", cmd, got, want)
		}
	}
}
