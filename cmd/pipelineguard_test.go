package cmd

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The stages run through one door: a pipeline.Home, built once per
// command from the effective config, resolves the plan and runs every
// stage; cmd/ turns flags into the config and a request and renders what
// comes back. These tests keep it so, by reading cmd/'s source.

// stageCommandFiles are the commands that run pipeline stages, and the
// rendering they share.
var stageCommandFiles = []string{"run.go", "extract.go", "consolidate.go", "prune.go", "scan.go", "sources.go", "reporter.go", "demo.go"}

// stageInternals are what only internal/pipeline may build or call: a
// stage's options and the stages themselves, the parts of a plan (the
// provider and the consolidator), and the rules of eligibility. A command
// that needs one asks its Home.
var stageInternals = map[string]bool{
	// stage options
	"extract.RunOptions": true, "consolidate.Options": true, "scan.Options": true,
	"store.CandidateFilter": true, "extract.Window": true, "store.UpsertPolicy": true,
	// the stages
	"extract.Run": true, "consolidate.Run": true, "prune.Run": true, "scan.Run": true,
	"extract.Guard": true, "extract.Explain": true, "extract.WhyNotClaimed": true,
	"consolidate.PrepareLayout": true,
	// the plan
	"pipeline.Plan": true, "model.New": true, "model.Choose": true,
	"consolidate.NewHeuristic": true, "consolidate.NewModel": true, "consolidate.NewAgent": true,
}

// TestCommandsBuildNoStageOptions fails when a file of cmd/ builds a
// stage's options, runs a stage or resolves a part of the plan itself:
// that is the Home's, so that what `threads show`, `status`, `doctor` and
// eval explain is what runs.
func TestCommandsBuildNoStageOptions(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		inspect(t, path, func(at token.Position, n ast.Node) {
			var name string
			switch n := n.(type) {
			case *ast.CompositeLit:
				name = qualified(n.Type)
			case *ast.CallExpr:
				name = qualified(n.Fun)
			}
			if stageInternals[name] {
				t.Errorf("%s: uses %s: ask the pipeline.Home (internal/pipeline) instead", at, name)
			}
		})
	}
}

// TestStageCommandsHoldNoStore fails when a stage command opens or holds
// a store: its queries belong in internal/pipeline, where the other
// commands and the tests reach them without cobra.
func TestStageCommandsHoldNoStore(t *testing.T) {
	for _, path := range stageCommandFiles {
		inspect(t, path, func(at token.Position, n ast.Node) {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if qualified(n) == "store.Store" {
					t.Errorf("%s: holds a *store.Store: move the work into internal/pipeline", at)
				}
				if n.Sel.Name == "OpenStore" {
					t.Errorf("%s: opens a store: move the work into internal/pipeline", at)
				}
			}
		})
	}
}

// TestStageCommandsLoopOverNoVersions fails when a stage command runs its
// own loop over the memory versions: the rules of that loop (which error
// stops it, whose result is reported) are the Home's (Run, Extract,
// Consolidate, Prune, Scan).
func TestStageCommandsLoopOverNoVersions(t *testing.T) {
	for _, path := range stageCommandFiles {
		inspect(t, path, func(at token.Position, n ast.Node) {
			loop, ok := n.(*ast.RangeStmt)
			if !ok {
				return
			}
			if call, ok := loop.X.(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Versions" || qualified(sel) == "memversion.All") {
					t.Errorf("%s: loops over the memory versions: the Home runs every version", at)
				}
			}
		})
	}
}

// TestGuardsSeeTheirFiles keeps the lists above honest: each file exists,
// so a renamed command is not silently left out.
func TestGuardsSeeTheirFiles(t *testing.T) {
	for _, path := range stageCommandFiles {
		if _, err := os.Stat(path); err != nil {
			t.Errorf("stageCommandFiles lists %s: %v", path, err)
		}
	}
}

// qualified names a package-qualified expression ("extract.Run") as
// written; "" for anything else.
func qualified(e ast.Expr) string {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	if pkg, ok := sel.X.(*ast.Ident); ok {
		return pkg.Name + "." + sel.Sel.Name
	}
	return ""
}

// inspect calls visit on every node of the file at path, with its
// position.
func inspect(t *testing.T, path string, visit func(at token.Position, n ast.Node)) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if n != nil {
			visit(fset.Position(n.Pos()), n)
		}
		return true
	})
}
