package memfs

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func ptr[T any](v T) *T { return &v }

func m(path string, line, start int, content string, queries ...string) SearchMatch {
	return SearchMatch{Path: path, MatchLineNumber: line, ContentStartLineNumber: start, Content: content, MatchedQueries: queries}
}

func TestSearchSupportsDirectoryAndFileScopes(t *testing.T) {
	root := tree(t, map[string]string{"MEMORY.md": "alpha\nneedle\n", "rollout_summaries/a.jsonl": "needle again\n"})
	res, err := Search(root, SearchRequest{Queries: []string{"needle"}})
	if err != nil {
		t.Fatal(err)
	}
	want := SearchResult{
		Queries:   []string{"needle"},
		MatchMode: MatchMode{Type: MatchAny},
		Matches:   []SearchMatch{m("MEMORY.md", 2, 2, "needle", "needle"), m("rollout_summaries/a.jsonl", 1, 1, "needle again", "needle")},
	}
	if !reflect.DeepEqual(res, want) {
		t.Fatalf("got %+v", res)
	}
	res, err = Search(root, SearchRequest{Queries: []string{"needle"}, Path: "MEMORY.md"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Matches, []SearchMatch{m("MEMORY.md", 2, 2, "needle", "needle")}) || res.Path != "MEMORY.md" || res.Truncated {
		t.Fatalf("file scope: %+v", res)
	}
	res, err = Search(root, SearchRequest{Queries: []string{"needle"}, Path: "rollout_summaries"})
	if err != nil || len(res.Matches) != 1 || res.Matches[0].Path != "rollout_summaries/a.jsonl" {
		t.Fatalf("directory scope: %+v, %v", res, err)
	}
}

func TestSearchSupportsPagination(t *testing.T) {
	root := tree(t, map[string]string{"MEMORY.md": "needle one\nneedle two\n", "rollout_summaries/a.jsonl": "needle three\n"})
	p1, err := Search(root, SearchRequest{Queries: []string{"needle"}, MaxResults: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p1.Matches, []SearchMatch{m("MEMORY.md", 1, 1, "needle one", "needle"), m("MEMORY.md", 2, 2, "needle two", "needle")}) ||
		p1.NextCursor != "2" || !p1.Truncated {
		t.Fatalf("page 1: %+v", p1)
	}
	p2, err := Search(root, SearchRequest{Queries: []string{"needle"}, MaxResults: 2, Cursor: p1.NextCursor})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p2.Matches, []SearchMatch{m("rollout_summaries/a.jsonl", 1, 1, "needle three", "needle")}) || p2.NextCursor != "" || p2.Truncated {
		t.Fatalf("page 2: %+v", p2)
	}
}

func TestSearchSupportsContextLines(t *testing.T) {
	root := tree(t, map[string]string{"MEMORY.md": "alpha\nneedle\nomega\nneedle again\n"})
	res, err := Search(root, SearchRequest{Queries: []string{"needle"}, ContextLines: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := []SearchMatch{
		m("MEMORY.md", 2, 1, "alpha\nneedle\nomega", "needle"),
		m("MEMORY.md", 4, 3, "omega\nneedle again", "needle"),
	}
	if !reflect.DeepEqual(res.Matches, want) {
		t.Fatalf("got %+v", res.Matches)
	}
}

func TestSearchRejectsInvalidCursor(t *testing.T) {
	root := tree(t, map[string]string{"MEMORY.md": "needle\n"})
	for _, c := range []string{"bogus", "-3", "2"} {
		_, err := Search(root, SearchRequest{Queries: []string{"needle"}, Cursor: c})
		wantErr(t, err, ErrInvalidCursor)
	}
	// The count itself is a valid (empty) page.
	res, err := Search(root, SearchRequest{Queries: []string{"needle"}, Cursor: "1"})
	if err != nil || len(res.Matches) != 0 {
		t.Fatalf("cursor at end: %+v, %v", res, err)
	}
}

func TestSearchMatchModes(t *testing.T) {
	doc := "alpha beta\n" + // 1
		"alpha\n" + // 2
		"filler\n" + // 3
		"beta\n" + // 4
		"gamma\n" + // 5
		"beta alpha\n" // 6
	root := tree(t, map[string]string{"MEMORY.md": doc})
	tests := []struct {
		name string
		mode MatchMode
		want []SearchMatch
	}{
		{"any", MatchMode{Type: MatchAny}, []SearchMatch{
			m("MEMORY.md", 1, 1, "alpha beta", "alpha", "beta"),
			m("MEMORY.md", 2, 2, "alpha", "alpha"),
			m("MEMORY.md", 4, 4, "beta", "beta"),
			m("MEMORY.md", 6, 6, "beta alpha", "alpha", "beta"),
		}},
		{"all on same line", MatchMode{Type: MatchAllOnSameLine}, []SearchMatch{
			m("MEMORY.md", 1, 1, "alpha beta", "alpha", "beta"),
			m("MEMORY.md", 6, 6, "beta alpha", "alpha", "beta"),
		}},
		// Windows of at most 3 lines: 1 alone, 2-4 (alpha..beta), 4-6 is not
		// minimal because 6 alone holds both.
		{"all within lines", MatchMode{Type: MatchAllWithinLines, LineCount: 3}, []SearchMatch{
			m("MEMORY.md", 1, 1, "alpha beta", "alpha", "beta"),
			m("MEMORY.md", 2, 2, "alpha\nfiller\nbeta", "alpha", "beta"),
			m("MEMORY.md", 6, 6, "beta alpha", "alpha", "beta"),
		}},
		{"window too small to join lines", MatchMode{Type: MatchAllWithinLines, LineCount: 2}, []SearchMatch{
			m("MEMORY.md", 1, 1, "alpha beta", "alpha", "beta"),
			m("MEMORY.md", 6, 6, "beta alpha", "alpha", "beta"),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Search(root, SearchRequest{Queries: []string{"alpha", "beta"}, MatchMode: tt.mode})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(res.Matches, tt.want) {
				t.Fatalf("got %+v\nwant %+v", res.Matches, tt.want)
			}
		})
	}
}

func TestSearchWindowDropsEnclosingWindows(t *testing.T) {
	// a b a b: minimal windows are 1-2, 2-3, 3-4; none strictly contains another.
	root := tree(t, map[string]string{"n.md": "a\nb\na\nb\n"})
	res, err := Search(root, SearchRequest{Queries: []string{"a", "b"}, MatchMode: MatchMode{Type: MatchAllWithinLines, LineCount: 4}})
	if err != nil {
		t.Fatal(err)
	}
	var spans []string
	for _, mt := range res.Matches {
		spans = append(spans, strings.ReplaceAll(mt.Content, "\n", ""))
	}
	if want := []string{"ab", "ba", "ab"}; !reflect.DeepEqual(spans, want) || res.Matches[1].MatchLineNumber != 2 {
		t.Fatalf("got %v (%+v)", spans, res.Matches)
	}
}

func TestSearchCaseAndNormalization(t *testing.T) {
	root := tree(t, map[string]string{"MEMORY.md": "Multi-Agent V2 rollout\nmulti agent v2\nother\n"})
	tests := []struct {
		name          string
		query         string
		caseSensitive *bool
		normalized    bool
		lines         []int
	}{
		{"case sensitive by default", "multi agent", nil, false, []int{2}},
		{"case insensitive", "MULTI", ptr(false), false, []int{1, 2}},
		{"normalized ignores separators", "multiagentv2", ptr(false), true, []int{1, 2}},
		{"normalized query with spaces", "multi agent v2", ptr(false), true, []int{1, 2}},
		{"normalized keeps case when sensitive", "MultiAgent", ptr(true), true, []int{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Search(root, SearchRequest{Queries: []string{tt.query}, CaseSensitive: tt.caseSensitive, Normalized: tt.normalized})
			if err != nil {
				t.Fatal(err)
			}
			var lines []int
			for _, mt := range res.Matches {
				lines = append(lines, mt.MatchLineNumber)
			}
			if !reflect.DeepEqual(lines, tt.lines) {
				t.Fatalf("lines %v, want %v", lines, tt.lines)
			}
		})
	}
}

func TestSearchRequestErrors(t *testing.T) {
	root := tree(t, map[string]string{"MEMORY.md": "x\n"})
	tests := []struct {
		name string
		req  SearchRequest
		kind error
	}{
		{"no queries", SearchRequest{}, ErrEmptyQuery},
		{"blank query", SearchRequest{Queries: []string{"ok", "  "}}, ErrEmptyQuery},
		{"normalizes to empty", SearchRequest{Queries: []string{"--"}, Normalized: true}, ErrEmptyQuery},
		{"zero window", SearchRequest{Queries: []string{"x"}, MatchMode: MatchMode{Type: MatchAllWithinLines}}, ErrInvalidMatchWindow},
		{"unknown mode", SearchRequest{Queries: []string{"x"}, MatchMode: MatchMode{Type: "fuzzy"}}, ErrInvalidMatchMode},
		{"escape", SearchRequest{Queries: []string{"x"}, Path: "../x"}, ErrInvalidPath},
		{"missing path", SearchRequest{Queries: []string{"x"}, Path: "nope"}, ErrNotFound},
		{"hidden path", SearchRequest{Queries: []string{"x"}, Path: ".git"}, ErrNotFound},
		// The work grows with the queries
		{"issue_24: too many queries", SearchRequest{Queries: strings.Fields(strings.Repeat("q ", MaxQueries+1))}, ErrTooManyQueries},
		{"issue_24: too many query bytes", SearchRequest{Queries: []string{strings.Repeat("q", MaxQueryBytes+1)}}, ErrTooManyQueries},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Search(root, tt.req)
			wantErr(t, err, tt.kind)
		})
	}
	if msg := ErrTooManyQueries.Error(); !strings.Contains(msg, fmt.Sprintf("at most %d, of at most %d bytes", MaxQueries, MaxQueryBytes)) {
		t.Errorf("ErrTooManyQueries says %q, not the bounds", msg)
	}
}

func TestSearchSkipsHiddenSymlinksAndBinary(t *testing.T) {
	root := tree(t, map[string]string{
		"MEMORY.md":      "needle\n",
		".git/config":    "needle\n",
		"skills/.x.md":   "needle\n",
		"bin.dat":        "needle\xff\n",
		"a/x.md":         "needle\n",
		"a.md":           "needle\r\n",
		"notes/empty.md": "",
	})
	outside := filepath.Join(t.TempDir(), "o.md")
	if err := os.WriteFile(outside, []byte("needle\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	symlink(t, outside, filepath.Join(root, "link.md"))
	res, err := Search(root, SearchRequest{Queries: []string{"needle"}})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, mt := range res.Matches {
		paths = append(paths, mt.Path)
		if mt.Content != "needle" {
			t.Errorf("%s: content %q (CR should be dropped)", mt.Path, mt.Content)
		}
	}
	// "a.md" sorts before "a/x.md" by display path.
	if want := []string{"MEMORY.md", "a.md", "a/x.md"}; !reflect.DeepEqual(paths, want) {
		t.Fatalf("paths %v, want %v", paths, want)
	}
}

func TestSearchBoundsExcerpts(t *testing.T) {
	long := strings.Repeat("é", 10000) // 20,000 bytes
	root := tree(t, map[string]string{"big.md": "before\n" + long + " needle\nafter\n"})
	res, err := Search(root, SearchRequest{Queries: []string{"needle"}, ContextLines: 1})
	if err != nil {
		t.Fatal(err)
	}
	mt := res.Matches[0]
	if len(mt.Content) > maxExcerptBytes || !mt.ContentTruncated || mt.ContentStartLineNumber != 1 || !strings.HasPrefix(mt.Content, "before\néé") {
		t.Fatalf("excerpt %d bytes, truncated %v, start %d", len(mt.Content), mt.ContentTruncated, mt.ContentStartLineNumber)
	}
	// Many big matches: the page stops at the byte budget and offers a cursor.
	line := strings.Repeat("x", 15000) + " needle\n"
	root = tree(t, map[string]string{"many.md": strings.Repeat(line, 10)})
	res, err = Search(root, SearchRequest{Queries: []string{"needle"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Matches) != 5 || !res.Truncated || res.NextCursor != "5" {
		t.Fatalf("got %d matches, truncated %v, cursor %q", len(res.Matches), res.Truncated, res.NextCursor)
	}
}
