package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"
)

// TestProjectLayerReadsTheMemoryModel fails when the project layer
// (internal/consolidate/projects.go) names a declaration of the offline
// consolidator's files (heuristic*.go). What both read, the parsed
// memories, their stale marks, the notes and the list rules, is
// internal/memmodel's, so the offline consolidator can change what it
// writes without changing the layer every mode writes.
func TestProjectLayerReadsTheMemoryModel(t *testing.T) {
	const dir = "../consolidate"
	fset := token.NewFileSet()
	offline := map[string]string{} // top-level name → its file
	for _, f := range parseSources(t, fset, filepath.Join(dir, "heuristic*.go")) {
		for _, name := range topLevelNames(f) {
			offline[name] = filepath.Base(fset.Position(f.Pos()).Filename)
		}
	}
	// With object resolution, a name the file does not declare itself is
	// left unresolved: a package-level name of another file, or a
	// predeclared one.
	f, err := parser.ParseFile(fset, filepath.Join(dir, "projects.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var visit func(ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr: // x.name: only x can name a declaration
			ast.Inspect(n.X, visit)
			return false
		case *ast.KeyValueExpr: // a struct literal's key is a field name
			ast.Inspect(n.Value, visit)
			return false
		case *ast.FuncDecl: // a method's name is its type's
			if n.Recv != nil {
				ast.Inspect(n.Recv, visit)
				ast.Inspect(n.Type, visit)
				if n.Body != nil {
					ast.Inspect(n.Body, visit)
				}
				return false
			}
		case *ast.Ident:
			if n.Obj == nil && offline[n.Name] != "" {
				t.Errorf("%s: the project layer names %s of %s", fset.Position(n.Pos()), n.Name, offline[n.Name])
			}
		}
		return true
	}
	ast.Inspect(f, visit)
}

// topLevelNames are the functions, types, constants and variables a file
// declares at package level (methods belong to their type).
func topLevelNames(f *ast.File) []string {
	var out []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				out = append(out, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					out = append(out, s.Name.Name)
				case *ast.ValueSpec:
					for _, id := range s.Names {
						out = append(out, id.Name)
					}
				}
			}
		}
	}
	return out
}
