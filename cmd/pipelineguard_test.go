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
	inspectPipelineCommands(t, func(at func(token.Pos) token.Position, n ast.Node) {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok && storeMethods[sel.Sel.Name] {
			if _, isPkg := sel.X.(*ast.Ident); isPkg && sel.X.(*ast.Ident).Name == "store" {
				return // a function of package store, not a method
			}
			t.Errorf("%s: calls %s, a *store.Store method: move the query into internal/pipeline", at(call.Pos()), sel.Sel.Name)
		}
	})
}

// TestPipelineCommandsLoopOverNoVersions fails when a pipeline command
// runs its own loop over the memory versions (range cfg.Versions()): the
// rules of that loop (which error stops it, whose result is reported)
// are pipeline logic, in pipeline.RunVersions, ExtractVersions,
// ConsolidateVersions, PruneVersions and ScanVersions.
func TestPipelineCommandsLoopOverNoVersions(t *testing.T) {
	inspectPipelineCommands(t, func(at func(token.Pos) token.Position, n ast.Node) {
		loop, ok := n.(*ast.RangeStmt)
		if !ok {
			return
		}
		if call, ok := loop.X.(*ast.CallExpr); ok {
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Versions" {
				t.Errorf("%s: loops over the memory versions: use the pipeline's loop", at(loop.Pos()))
			}
		}
	})
}

// inspectPipelineCommands calls visit on every node of every pipeline
// command file, with a way to name a node's position.
func inspectPipelineCommands(t *testing.T, visit func(at func(token.Pos) token.Position, n ast.Node)) {
	t.Helper()
	fset := token.NewFileSet()
	for _, path := range pipelineCommandFiles {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if n != nil {
				visit(fset.Position, n)
			}
			return true
		})
	}
}
