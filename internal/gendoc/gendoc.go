// Package gendoc keeps generated sections of hand-written documentation
// current: a test renders the section from the code and compares it with
// the text between two marker lines of the page.
package gendoc

import (
	"os"
	"strings"
	"testing"
)

// Check fails t when the section of the page at path between the lines
// begin and end differs from content. With MEMCTL_UPDATE set it rewrites
// the section instead.
func Check(t testing.TB, path, begin, end, content string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, begin+"\n"), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no generated section between %q and %q", path, begin, end)
	}
	want := doc[:i+len(begin)+1] + content + doc[j:]
	if want == doc {
		return
	}
	if os.Getenv("MEMCTL_UPDATE") != "" {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s is stale: run MEMCTL_UPDATE=1 go test on this package", path)
}
