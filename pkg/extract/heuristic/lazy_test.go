package heuristic

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// memctl runs "summary" and "cite" on every agent turn: the packages the
// extractor is made of must do no work when a process starts. This test
// reads their non-test files and fails on a package-level variable whose
// initialiser compiles a regular expression or calls a function, outside a
// function literal that only runs on first use.
func TestNoInitTimeWork(t *testing.T) {
	dirs := []string{".", "..", "../../rawmemory", "../../sessions", "../../sessions/codex", "../../sessions/claude",
		"../../sessions/jsonl", "../../sessions/internal/transcript"}
	fset := token.NewFileSet()
	checked := 0
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range files {
			if strings.HasSuffix(p, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			checked++
			for _, decl := range f.Decls {
				gd, ok := decl.(*ast.GenDecl)
				if !ok || gd.Tok != token.VAR {
					continue
				}
				for _, spec := range gd.Specs {
					for _, v := range spec.(*ast.ValueSpec).Values {
						if call := eagerCall(v); call != "" {
							t.Errorf("%s: package variable initialised by %s at start-up", fset.Position(v.Pos()), call)
						}
					}
				}
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d files checked", checked)
	}
}

// eagerCall returns the first call an initialiser makes outside function
// literals, "" when it makes none. Wrapping a function literal in a lazy
// helper (lazyRE, sync.OnceValue, wordSet) is how the packages defer work.
func eagerCall(e ast.Expr) string {
	var found string
	ast.Inspect(e, func(n ast.Node) bool {
		if found != "" {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			name := exprName(n.Fun)
			switch name {
			case "lazyRE", "LazyRE", "transcript.LazyRE", "wordSet", "sync.OnceValue", "errors.New":
				return true // lazy wrappers; errors.New only allocates
			}
			if strings.HasPrefix(name, "regexp.") || !isConversion(n) {
				found = name
			}
		}
		return true
	})
	return found
}

func exprName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprName(e.X) + "." + e.Sel.Name
	case *ast.IndexExpr:
		return exprName(e.X)
	}
	return "?"
}

// isConversion reports a type conversion such as []byte("x").
func isConversion(c *ast.CallExpr) bool {
	switch f := c.Fun.(type) {
	case *ast.ArrayType, *ast.MapType:
		return true
	case *ast.Ident:
		switch f.Name {
		case "string", "byte", "rune", "int", "int64", "uint32", "float64":
			return true
		}
	}
	return false
}
