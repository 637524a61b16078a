// Command exportuse measures how much of a package's exported surface the
// rest of the module uses: it counts the package-level names a package
// exports (constants, variables, functions and types; methods and fields
// belong to their type and are not counted) and how many of them another
// package of the module, tests included, names as pkg.Name. Run from the
// module root:
//
//	go run ./scripts/exportuse internal/consolidate
//
// It prints the counts, then the names no other package uses. Names are
// matched by syntax, not type information: a package imported under
// another name is followed, a dot import is not (memctl has none).
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

const module = "github.com/memctl/memctl/"

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/exportuse <package folder, e.g. internal/consolidate>")
		os.Exit(2)
	}
	dir := filepath.Clean(os.Args[1])
	name, exported, err := exportedNames(dir)
	if err == nil {
		var used map[string]bool
		used, err = usedElsewhere(dir, module+filepath.ToSlash(dir), name, exported)
		if err == nil {
			report(dir, exported, used)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "exportuse:", err)
		os.Exit(1)
	}
}

// exportedNames parses the non-test files of dir and returns its package
// name and exported package-level names.
func exportedNames(dir string) (string, map[string]bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", nil, err
	}
	fset := token.NewFileSet()
	pkg, names := "", map[string]bool{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			return "", nil, err
		}
		pkg = f.Name.Name
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					names[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							names[s.Name.Name] = true
						}
					case *ast.ValueSpec:
						for _, id := range s.Names {
							if id.IsExported() {
								names[id.Name] = true
							}
						}
					}
				}
			}
		}
	}
	if pkg == "" {
		return "", nil, fmt.Errorf("%s holds no Go package", dir)
	}
	return pkg, names, nil
}

// usedElsewhere walks the module (from the current folder) and returns
// which of names the Go files outside dir that import importPath name.
func usedElsewhere(dir, importPath, pkg string, names map[string]bool) (map[string]bool, error) {
	used := map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || filepath.Dir(p) == dir {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		local := ""
		for _, im := range f.Imports {
			if strings.Trim(im.Path.Value, `"`) == importPath {
				local = pkg
				if im.Name != nil {
					local = im.Name.Name
				}
			}
		}
		if local == "" {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if se, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := se.X.(*ast.Ident); ok && id.Name == local && names[se.Sel.Name] {
					used[se.Sel.Name] = true
				}
			}
			return true
		})
		return nil
	})
	return used, err
}

func report(dir string, exported, used map[string]bool) {
	var unused []string
	for n := range exported {
		if !used[n] {
			unused = append(unused, n)
		}
	}
	sort.Strings(unused)
	fmt.Printf("%s: %d exported names, %d used by another package, %d by none\n", dir, len(exported), len(used), len(unused))
	if len(unused) > 0 {
		fmt.Println(strings.Join(unused, " "))
	}
}
