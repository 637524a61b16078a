// Command extractorsize prints the size of memctl's offline extractor:
// the non-test lines of internal/extract/heuristic and internal/program,
// and the regular expressions they compile (scripts/extractor-size.sh
// runs it; docs/quality.md reports its figures).
//
// A regular expression is counted once per place that compiles one: a
// call of regexp.MustCompile, regexp.Compile (or their POSIX forms), of
// lazyre.New, or of a package's lazy helper (a function that compiles its
// own string parameter, or a variable set to one of these functions),
// whatever the pattern; the helper's own call of regexp is not counted
// again. A pattern built at run time counts as one. Its
// alternatives are the branches of the pattern as written: one, plus one
// for every "|" outside a character class and not escaped; a pattern
// built at run time, whose text is not known here, counts one.
package main

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// packages are the folders measured, relative to the module root.
var packages = []string{"internal/extract/heuristic", "internal/program"}

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	var lines, regexes, alternatives, runtime int
	for _, dir := range packages {
		n, r, a, rt, err := measure(filepath.Join(root, dir))
		if err != nil {
			fmt.Fprintln(os.Stderr, "extractorsize:", err)
			os.Exit(1)
		}
		fmt.Printf("%-28s %5d lines %3d regexes %4d alternatives\n", dir, n, r, a)
		lines, regexes, alternatives, runtime = lines+n, regexes+r, alternatives+a, runtime+rt
	}
	fmt.Printf("%-28s %5d lines %3d regexes %4d alternatives (%d built at run time)\n", "total", lines, regexes, alternatives, runtime)
}

// measure counts one package's non-test lines and regular expressions.
func measure(dir string) (lines, regexes, alternatives, runtime int, err error) {
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return 0, 0, 0, 0, err
	}
	sort.Strings(names)
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		n, err := countLines(name)
		if err != nil {
			return 0, 0, 0, 0, err
		}
		lines += n
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			return 0, 0, 0, 0, err
		}
		files = append(files, f)
	}
	// Types give the constant value of a pattern built from literals and
	// constants; an import the checker cannot resolve is no matter here.
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	conf := types.Config{Importer: nil, Error: func(error) {}}
	_, _ = conf.Check(dir, fset, files, info)

	helpers := lazyHelpers(files)
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 || !compiles(call, helpers) {
				return true
			}
			if inHelper(f, call, helpers) {
				return true
			}
			regexes++
			if tv, ok := info.Types[call.Args[0]]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
				alternatives += branches(constant.StringVal(tv.Value))
			} else {
				alternatives++
				runtime++
			}
			return true
		})
	}
	return lines, regexes, alternatives, runtime, nil
}

func countLines(name string) (int, error) {
	f, err := os.Open(name)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		n++
	}
	return n, sc.Err()
}

// regexpFuncs are the regexp package's compiling functions.
var regexpFuncs = map[string]bool{"MustCompile": true, "Compile": true, "MustCompilePOSIX": true, "CompilePOSIX": true}

// compiles reports a call of the regexp package's compilers or of a lazy
// helper.
func compiles(call *ast.CallExpr, helpers map[string]bool) bool {
	switch fn := call.Fun.(type) {
	case *ast.SelectorExpr:
		return isCompiler(fn)
	case *ast.Ident:
		return helpers[fn.Name]
	}
	return false
}

// isCompiler reports regexp's compilers and lazyre.New, the shared
// compile-on-first-use helper; another package's own helper
// (transcript.LazyRE) is that package's.
func isCompiler(fn *ast.SelectorExpr) bool {
	id, ok := fn.X.(*ast.Ident)
	return ok && (id.Name == "regexp" && regexpFuncs[fn.Sel.Name] || id.Name == "lazyre" && fn.Sel.Name == "New")
}

// lazyHelpers finds the functions that compile their own string
// parameter and the variables set to a compiler (var lazyRE =
// lazyre.New): calls of them are the regexes, not the call inside.
func lazyHelpers(files []*ast.File) map[string]bool {
	out := map[string]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.VAR {
				for _, spec := range gd.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, v := range vs.Values {
						if sel, ok := v.(*ast.SelectorExpr); ok && isCompiler(sel) && i < len(vs.Names) {
							out[vs.Names[i].Name] = true
						}
					}
				}
			}
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || fd.Body == nil {
				continue
			}
			params := map[string]bool{}
			for _, p := range fd.Type.Params.List {
				for _, n := range p.Names {
					params[n.Name] = true
				}
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if ok && len(call.Args) > 0 && compiles(call, nil) {
					if id, ok := call.Args[0].(*ast.Ident); ok && params[id.Name] {
						out[fd.Name.Name] = true
					}
				}
				return true
			})
		}
	}
	return out
}

// inHelper reports the helper's own compile of its parameter.
func inHelper(f *ast.File, call *ast.CallExpr, helpers map[string]bool) bool {
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || !helpers[fd.Name.Name] || fd.Body == nil {
			continue
		}
		if call.Pos() >= fd.Body.Pos() && call.End() <= fd.Body.End() {
			if id, ok := call.Args[0].(*ast.Ident); ok {
				for _, p := range fd.Type.Params.List {
					for _, n := range p.Names {
						if n.Name == id.Name {
							return true
						}
					}
				}
			}
		}
	}
	return false
}

// branches counts a pattern's alternatives as written: one, plus one for
// each "|" that is neither escaped nor inside a character class.
func branches(p string) int {
	n, class := 1, false
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\':
			i++
		case class && c == ']':
			class = false
		case !class && c == '[':
			class = true
			if i+1 < len(p) && p[i+1] == ']' {
				i++ // "[]…]": the bracket is a member
			}
		case !class && c == '|':
			n++
		}
	}
	return n
}
