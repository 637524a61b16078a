package cmd

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"testing"

	"github.com/memctl/memctl/internal/store"
)

// pipelineCommandFiles are the commands that run pipeline stages (and
// sources.go, the scan's rendering they share): they parse flags, resolve
// the plan and render, while the stages themselves and their loop over
// memory versions (internal/pipeline) query and change the store.
var pipelineCommandFiles = []string{"run.go", "extract.go", "consolidate.go", "prune.go", "scan.go", "sources.go"}

// storeCallsAllowed are the *store.Store methods a pipeline command may
// still call, or that share a name with what commands call: closing the
// store it opened for a stage, and Now (the commands' own clocks are
// called Now).
var storeCallsAllowed = map[string]bool{"Close": true, "Now": true}

// TestPipelineCommandsMakeNoStoreQueries fails when a pipeline command
// calls a method of *store.Store (other than Close) itself: that work
// belongs in internal/pipeline, where the other commands and the tests
// reach it without cobra. The check is by method name, so a call of a
// method that merely shares a store method's name is flagged too: rename
// it or move the call.
func TestPipelineCommandsMakeNoStoreQueries(t *testing.T) {
	storeMethods := map[string]bool{}
	typ := reflect.TypeOf(&store.Store{})
	for i := range typ.NumMethod() {
		if name := typ.Method(i).Name; !storeCallsAllowed[name] {
			storeMethods[name] = true
		}
	}
	fset := token.NewFileSet()
	for _, path := range pipelineCommandFiles {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && storeMethods[sel.Sel.Name] {
				if _, isPkg := sel.X.(*ast.Ident); isPkg && sel.X.(*ast.Ident).Name == "store" {
					return true // a function of package store, not a method
				}
				t.Errorf("%s: calls %s, a *store.Store method: move the query into internal/pipeline", fset.Position(call.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
}

// TestPipelineCommandsLoopOverNoVersions fails when a pipeline command
// runs its own loop over the memory versions (range cfg.Versions()): the
// rules of that loop (which error stops it, whose result is reported)
// are pipeline logic, in pipeline.RunVersions, ExtractVersions,
// ConsolidateVersions, PruneVersions and ScanVersions.
func TestPipelineCommandsLoopOverNoVersions(t *testing.T) {
	fset := token.NewFileSet()
	for _, path := range pipelineCommandFiles {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			loop, ok := n.(*ast.RangeStmt)
			if !ok {
				return true
			}
			if call, ok := loop.X.(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Versions" {
					t.Errorf("%s: loops over the memory versions: use the pipeline's loop", fset.Position(loop.Pos()))
				}
			}
			return true
		})
	}
}
