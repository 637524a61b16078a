package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// memctl runs "summary" and "cite" on every agent turn: memctl's own
// packages must do no work when a process starts. This test reads every
// non-test file of the module (test helper programs aside) and fails on a
// func init, or on a package-level variable whose initialiser compiles a
// regular expression or calls a function, outside a function literal that
// only runs on first use (sync.OnceValue, a lazy helper).
func TestNoStartUpWork(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir("../..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".cache", ".git", "testdata", "node_modules":
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
		if f.Name.Name == "main" && filepath.Dir(p) != "../.." {
			return nil // a test helper program, not part of memctl
		}
		checked++
		for _, decl := range f.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "init" {
				t.Errorf("%s: func init runs at start-up", fset.Position(fd.Pos()))
			}
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
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("only %d files checked", checked)
	}
}

// eagerCall returns the first call an initialiser makes outside function
// literals, "" when it makes none. Wrapping a function literal in a lazy
// helper (lazyre.New, lazyre.Words, sync.OnceValue) is how the packages defer work.
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
			case "lazyre.New", "lazyre.Words", "sync.OnceValue", "sync.OnceValues", "errors.New":
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
