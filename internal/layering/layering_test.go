// Package layering checks the architecture rules of the module: the
// command layer is thin, the domain packages never reach back into it, and
// only the store speaks SQL. .golangci.yml states the same rules for
// depguard; this test makes them hold without the linter.
package layering

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestInternalLayering(t *testing.T) {
	root := ".."
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		// Programs (the doc generator, test helpers, corpus generators)
		// may do what commands do; the layers are the library packages.
		if f.Name.Name == "main" {
			return nil
		}
		checked++
		rel := "internal/" + filepath.ToSlash(strings.TrimPrefix(path, "../"))
		inStore := strings.HasPrefix(rel, "internal/store/")
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			switch {
			case p == "github.com/memctl/memctl/cmd" || strings.HasPrefix(p, "github.com/memctl/memctl/cmd/"):
				t.Errorf("%s imports the command layer %s", rel, p)
			case p == "github.com/spf13/cobra" || p == "github.com/spf13/pflag" || p == "github.com/fatih/color":
				t.Errorf("%s imports the CLI library %s; internal/ takes options and io.Writers", rel, p)
			case (p == "database/sql" || strings.HasPrefix(p, "modernc.org/sqlite")) && !inStore:
				t.Errorf("%s imports %s; only internal/store speaks SQL", rel, p)
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

// TestMemdirStaysLight keeps internal/memdir, which `memctl summary` loads on
// every agent turn, free of databases, SDKs and anything with start-up
// work: the standard library, internal/uuidtext (thread ids read by
// hand), internal/owner (which names the writer of a temporary file) and
// internal/memversion (the version type), which in turn take only the
// standard library and the Windows system calls.
func TestMemdirStaysLight(t *testing.T) {
	allowed := map[string][]string{
		"memdir":     {"github.com/memctl/memctl/internal/uuidtext", "github.com/memctl/memctl/internal/owner", "github.com/memctl/memctl/internal/memversion"},
		"owner":      {"golang.org/x/sys/windows"},
		"memversion": {},
		"uuidtext":   {},
	}
	fset := token.NewFileSet()
	for pkg, ok := range allowed {
		files, err := filepath.Glob("../../internal/" + pkg + "/*.go")
		if err != nil || len(files) == 0 {
			t.Fatalf("no internal/%s sources: %v", pkg, err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if strings.Contains(strings.Split(p, "/")[0], ".") && !slices.Contains(ok, p) {
					t.Errorf("internal/%s/%s imports %s; it may take only the standard library and %s", pkg, filepath.Base(path), p, strings.Join(ok, ", "))
				}
			}
		}
	}
}
