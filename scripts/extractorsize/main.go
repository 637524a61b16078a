// Command extractorsize prints the size of memctl's offline extractor:
// the non-test lines of internal/extract/heuristic and internal/program,
// and the regular expressions they compile (scripts/extractor-size.sh
// runs it; docs/quality.md reports its figures).
//
// Lines are counted as if wrapped at 120 columns: a line wider than that
// counts as the lines it would wrap to, ceil(width/120), a tab taking 4
// columns and any other character one. That figure is the one compared
// with the bar, so packing code into long lines does not make it smaller;
// the lines as written are printed beside it.
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
	var total size
	for _, dir := range packages {
		s, err := measure(filepath.Join(root, dir))
		if err != nil {
			fmt.Fprintln(os.Stderr, "extractorsize:", err)
			os.Exit(1)
		}
		s.print(dir)
		total.add(s)
	}
	total.print("total")
	fmt.Printf("bar: under 3,000 lines at %d columns (a wider line counts as the lines it wraps to) "+
		"and under 30 regexes; %d regexes built at run time\n", wrapColumns, total.runtime)
}

// size is what measure counts in one package, or in all.
type size struct {
	lines        int // as if wrapped at wrapColumns: the figure compared with the bar
	written      int // as written
	long         int // lines wider than wrapColumns
	regexes      int
	alternatives int
	runtime      int // regexes whose pattern is built at run time
}

func (s *size) add(o size) {
	s.lines += o.lines
	s.written += o.written
	s.long += o.long
	s.regexes += o.regexes
	s.alternatives += o.alternatives
	s.runtime += o.runtime
}

func (s size) print(name string) {
	fmt.Printf("%-28s %5d lines at %d columns (%d as written, %d wider) %3d regexes %4d alternatives\n",
		name, s.lines, wrapColumns, s.written, s.long, s.regexes, s.alternatives)
}

// measure counts one package's non-test lines and regular expressions.
func measure(dir string) (s size, err error) {
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return s, err
	}
	sort.Strings(names)
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			return s, err
		}
		countLines(string(src), &s)
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			return s, err
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
			s.regexes++
			if tv, ok := info.Types[call.Args[0]]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
				s.alternatives += branches(constant.StringVal(tv.Value))
			} else {
				s.alternatives++
				s.runtime++
			}
			return true
		})
	}
	return s, nil
}

// wrapColumns is the width a line is counted at.
const wrapColumns = 120

// countLines adds a file's lines to s, as written and as wrapped.
func countLines(src string, s *size) {
	for _, line := range strings.Split(strings.TrimSuffix(src, "\n"), "\n") {
		n := wrappedLines(line)
		s.written++
		s.lines += n
		if n > 1 {
			s.long++
		}
	}
}

// wrappedLines is the number of lines a line takes at wrapColumns: its
// width (a tab 4 columns, any other character one) over wrapColumns,
// rounded up, and one for an empty line.
func wrappedLines(line string) int {
	width := 0
	for _, r := range line {
		if r == '\t' {
			width += 4
		} else {
			width++
		}
	}
	return max(1, (width+wrapColumns-1)/wrapColumns)
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
