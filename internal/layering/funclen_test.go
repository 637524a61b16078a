package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// maxPipelineFuncLines bounds a function of the pipeline packages: a
// stage that grows past it is split into steps with names.
const maxPipelineFuncLines = 80

// TestPipelineFunctionsStayShort fails on a function of internal/pipeline
// longer than maxPipelineFuncLines lines.
func TestPipelineFunctionsStayShort(t *testing.T) {
	files, err := filepath.Glob("../pipeline/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no internal/pipeline sources: %v", err)
	}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			start, end := fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line
			if n := end - start + 1; n > maxPipelineFuncLines {
				t.Errorf("%s: %s is %d lines, over %d", fset.Position(fd.Pos()), fd.Name.Name, n, maxPipelineFuncLines)
			}
		}
	}
}
