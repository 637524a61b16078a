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
	fset := token.NewFileSet()
	for _, f := range parseSources(t, fset, "../pipeline/*.go") {
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

// parseSources parses the non-test Go files that pattern matches, without
// resolving names; it fails the test when there are none.
func parseSources(t *testing.T, fset *token.FileSet, pattern string) []*ast.File {
	t.Helper()
	paths, err := filepath.Glob(pattern)
	if err != nil || len(paths) == 0 {
		t.Fatalf("no sources match %s: %v", pattern, err)
	}
	var files []*ast.File
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}
