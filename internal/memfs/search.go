package memfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of Search. The byte budgets keep one page small enough for a
// model's context even when lines are huge.
const (
	DefaultSearchResults = 200
	MaxSearchResults     = 200
	maxExcerptBytes      = 16000
	maxPageContentBytes  = 80000
)

// Bounds of the queries of one Search: every line is compared with every
// query, and each match lists the queries it holds, so the work and the
// page grow with the queries. A request past them is
// refused, not cut: dropping a query would change what all_on_same_line
// and all_within_lines mean.
const (
	MaxQueries    = 64
	MaxQueryBytes = 4096
)

// Match modes.
const (
	MatchAny            = "any"              // a line with at least one query
	MatchAllOnSameLine  = "all_on_same_line" // a line with every query
	MatchAllWithinLines = "all_within_lines" // every query within LineCount consecutive lines
)

// MatchMode says how several queries combine. The JSON form is
// {"type":"any"}, {"type":"all_on_same_line"} or
// {"type":"all_within_lines","line_count":n}.
type MatchMode struct {
	Type      string `json:"type" jsonschema:"any (default), all_on_same_line or all_within_lines"`
	LineCount int    `json:"line_count,omitempty" jsonschema:"window size in lines, for all_within_lines (at least 1)"`
}

// SearchRequest is a search over the memory folder. Its JSON form is the
// search tool's input.
type SearchRequest struct {
	Queries      []string  `json:"queries" jsonschema:"substrings to look for; at least one, none blank"`
	MatchMode    MatchMode `json:"match_mode,omitzero" jsonschema:"how the queries combine; default any"`
	Path         string    `json:"path,omitempty" jsonschema:"file or directory to search, relative to the memory folder; default the whole folder"`
	Cursor       string    `json:"cursor,omitempty" jsonschema:"next_cursor from the previous page"`
	ContextLines int       `json:"context_lines,omitempty" jsonschema:"lines of context before and after each match; default 0"`
	// CaseSensitive defaults to true when nil.
	CaseSensitive *bool `json:"case_sensitive,omitempty" jsonschema:"match case exactly; default true"`
	Normalized    bool  `json:"normalized,omitempty" jsonschema:"compare letters and digits only, ignoring spaces and punctuation; default false"`
	MaxResults    int   `json:"max_results,omitempty" jsonschema:"matches per page, 1 to 200; default 200"`
	// Place, when set, orders and filters the files searched (see Place).
	Place Place `json:"-"`
}

// Place says where a file stands for a reader: whether to show it at all,
// its rank (lower first; files of one rank stay in path order, so pages
// are stable) and a label reported with each result (a project scope).
type Place func(path string) (rank int, label string, keep bool)

// SearchMatch is one matching line or window with its context.
type SearchMatch struct {
	Path                   string   `json:"path"`
	MatchLineNumber        int      `json:"match_line_number"`
	ContentStartLineNumber int      `json:"content_start_line_number"`
	Content                string   `json:"content"`
	ContentTruncated       bool     `json:"content_truncated"`
	MatchedQueries         []string `json:"matched_queries"`
	// Scope is the label Place gave the file, if any.
	Scope string `json:"scope,omitempty"`
}

// SearchResult is one page of matches, sorted by path then line.
type SearchResult struct {
	Queries    []string      `json:"queries"`
	MatchMode  MatchMode     `json:"match_mode"`
	Path       string        `json:"path,omitempty"`
	Matches    []SearchMatch `json:"matches"`
	NextCursor string        `json:"next_cursor,omitempty"`
	Truncated  bool          `json:"truncated"`
}

// Search greps the regular UTF-8 files under req.Path (recursively; hidden
// names and symlinks skipped) line by line for substrings, as Codex's
// memory search does. Matching is case-sensitive unless CaseSensitive is
// false; Normalized compares only letters and digits.
func Search(root string, req SearchRequest) (SearchResult, error) {
	if len(req.Queries) > MaxQueries {
		return SearchResult{}, fmt.Errorf("%w: got %d queries", ErrTooManyQueries, len(req.Queries))
	}
	total := 0
	for _, q := range req.Queries {
		total += len(q)
	}
	if total > MaxQueryBytes {
		return SearchResult{}, fmt.Errorf("%w: got %d bytes", ErrTooManyQueries, total)
	}
	queries := make([]string, len(req.Queries))
	for i, q := range req.Queries {
		queries[i] = strings.TrimSpace(q)
		if queries[i] == "" {
			return SearchResult{}, ErrEmptyQuery
		}
	}
	if len(queries) == 0 {
		return SearchResult{}, ErrEmptyQuery
	}
	mode, err := normalizeMode(req.MatchMode)
	if err != nil {
		return SearchResult{}, err
	}
	start, err := parseCursor(req.Cursor)
	if err != nil {
		return SearchResult{}, err
	}
	abs, rel, err := resolve(root, req.Path)
	if err != nil {
		return SearchResult{}, err
	}
	info, err := lstatStart(abs, rel, req.Path)
	if err != nil {
		return SearchResult{}, err
	}
	m, err := newMatcher(queries, req.CaseSensitive == nil || *req.CaseSensitive, req.Normalized)
	if err != nil {
		return SearchResult{}, err
	}
	files, err := searchFiles(abs, rel, info)
	if err != nil {
		return SearchResult{}, err
	}
	labels := map[string]string{}
	if req.Place != nil {
		files = placeFiles(files, req.Place, labels)
	}
	p := &searchPage{
		skip:      start,
		limit:     clamp(req.MaxResults, DefaultSearchResults, 1, MaxSearchResults),
		remaining: maxPageContentBytes,
		matches:   []SearchMatch{},
	}
	context := max(req.ContextLines, 0)
	for _, f := range files {
		if err := searchFile(f, m, mode, context, p); err != nil {
			return SearchResult{}, err
		}
		if p.hasMore {
			break
		}
	}
	if p.skip != 0 {
		return SearchResult{}, invalidCursor(strconv.Itoa(start), "exceeds result count")
	}
	for i := range p.matches {
		p.matches[i].Scope = labels[p.matches[i].Path]
	}
	res := SearchResult{Queries: queries, MatchMode: mode, Path: req.Path, Matches: p.matches, Truncated: p.hasMore}
	if p.hasMore {
		res.NextCursor = strconv.Itoa(start + len(p.matches))
	}
	return res, nil
}

func normalizeMode(m MatchMode) (MatchMode, error) {
	switch m.Type {
	case "", MatchAny:
		return MatchMode{Type: MatchAny}, nil
	case MatchAllOnSameLine:
		return MatchMode{Type: MatchAllOnSameLine}, nil
	case MatchAllWithinLines:
		if m.LineCount < 1 {
			return MatchMode{}, ErrInvalidMatchWindow
		}
		return m, nil
	default:
		return MatchMode{}, ErrInvalidMatchMode
	}
}

type fileRef struct{ abs, rel string }

// searchFiles lists the files to search, sorted by display path: a
// directory walk's order is not the order of the "/"-joined paths
// ("a.md" sorts before "a/x.md").
func searchFiles(abs, rel string, info fs.FileInfo) ([]fileRef, error) {
	if info.Mode().IsRegular() {
		return []fileRef{{abs, rel}}, nil
	}
	if !info.IsDir() {
		return nil, nil
	}
	var files []fileRef
	pending := []fileRef{{abs, rel}}
	for len(pending) > 0 {
		dir := pending[len(pending)-1]
		pending = pending[:len(pending)-1]
		dirents, err := os.ReadDir(dir.abs)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && dir.abs != abs {
				continue // removed while we walked
			}
			return nil, fmt.Errorf("memories: %w", err)
		}
		for _, d := range dirents {
			if strings.HasPrefix(d.Name(), ".") {
				continue
			}
			ref := fileRef{filepath.Join(dir.abs, d.Name()), joinRel(dir.rel, d.Name())}
			switch t := d.Type(); {
			case t.IsDir():
				pending = append(pending, ref)
			case t.IsRegular():
				files = append(files, ref)
			}
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].rel < files[j].rel })
	return files, nil
}

type searchPage struct {
	skip, limit int
	remaining   int
	matches     []SearchMatch
	hasMore     bool
}

// push records one match, building it only when it lands on this page. It
// returns false once the page is full (after noting that more exist).
func (p *searchPage) push(build func(budget int) SearchMatch) bool {
	if p.skip > 0 {
		p.skip--
		return true
	}
	if len(p.matches) == p.limit || p.remaining < maxExcerptBytes {
		p.hasMore = true
		return false
	}
	m := build(maxExcerptBytes)
	p.remaining -= len(m.Content)
	p.matches = append(p.matches, m)
	return true
}

func searchFile(f fileRef, m *matcher, mode MatchMode, context int, p *searchPage) error {
	b, err := os.ReadFile(f.abs)
	if errors.Is(err, fs.ErrNotExist) {
		return notFound(f.rel)
	}
	if err != nil {
		return fmt.Errorf("memories: %w", err)
	}
	if !utf8.Valid(b) {
		return nil // binary or foreign encodings are not memory text
	}
	lines := splitLines(string(b))
	if mode.Type != MatchAllWithinLines {
		all := mode.Type == MatchAllOnSameLine
		for i, line := range lines {
			flags := m.flags(line)
			if !(all && allTrue(flags) || !all && anyTrue(flags)) {
				continue
			}
			if !p.push(func(budget int) SearchMatch {
				return buildMatch(f.rel, lines, i, i, context, m.matched(flags), budget)
			}) {
				return nil
			}
		}
		return nil
	}

	// Sliding window over matching lines: each enters and leaves once, the
	// per-query counts say when the window holds every query, and shrinking
	// from the front before emitting keeps only minimal windows.
	type hit struct {
		line  int
		flags []bool
	}
	counts := make([]int, len(m.queries))
	var window []hit
	drop := func() hit {
		h := window[0]
		window = window[1:]
		for q, f := range h.flags {
			if f {
				counts[q]--
			}
		}
		return h
	}
	for end, line := range lines {
		for len(window) > 0 && end-window[0].line >= mode.LineCount {
			drop()
		}
		flags := m.flags(line)
		if !anyTrue(flags) {
			continue
		}
		for q, f := range flags {
			if f {
				counts[q]++
			}
		}
		window = append(window, hit{end, flags})
		if hasZero(counts) {
			continue
		}
		for len(window) > 0 && redundant(window[0].flags, counts) {
			drop()
		}
		startLine := drop().line
		if !p.push(func(budget int) SearchMatch {
			return buildMatch(f.rel, lines, startLine, end, context, append([]string(nil), m.queries...), budget)
		}) {
			return nil
		}
	}
	return nil
}

// redundant reports whether every query on a line also appears later in
// the window, so the window stays complete without it.
func redundant(flags []bool, counts []int) bool {
	for q, f := range flags {
		if f && counts[q] <= 1 {
			return false
		}
	}
	return true
}

// buildMatch renders lines [first-context, last+context] joined by "\n",
// within budget bytes. Leading context may use at most half the budget so
// the match itself stays visible.
func buildMatch(rel string, lines []string, first, last, context int, matched []string, budget int) SearchMatch {
	wantStart := max(first-context, 0)
	end := min(last+context+1, len(lines))
	start, prefix := first, 0
	for start > wantStart {
		n := len(lines[start-1]) + 1
		if n > budget/2-prefix {
			break
		}
		prefix += n
		start--
	}
	var b strings.Builder
	truncated := start != wantStart
	for i, line := range lines[start:end] {
		if i > 0 {
			if b.Len() == budget {
				truncated = true
				break
			}
			b.WriteByte('\n')
		}
		cut := min(len(line), budget-b.Len())
		for cut > 0 && cut < len(line) && !utf8.RuneStart(line[cut]) {
			cut--
		}
		b.WriteString(line[:cut])
		if cut < len(line) {
			truncated = true
			break
		}
	}
	return SearchMatch{
		Path:                   rel,
		MatchLineNumber:        first + 1,
		ContentStartLineNumber: start + 1,
		Content:                b.String(),
		ContentTruncated:       truncated,
		MatchedQueries:         matched,
	}
}

// splitLines splits like Rust's str::lines: on "\n", dropping one "\r"
// before it, with no empty line after a final newline.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

type matcher struct {
	queries   []string
	prepared  []string
	foldCase  bool
	normalize bool
}

func newMatcher(queries []string, caseSensitive, normalized bool) (*matcher, error) {
	m := &matcher{queries: queries, foldCase: !caseSensitive, normalize: normalized}
	for _, q := range queries {
		p := m.prepare(q)
		if p == "" {
			return nil, ErrEmptyQuery
		}
		m.prepared = append(m.prepared, p)
	}
	return m, nil
}

func (m *matcher) prepare(s string) string {
	if m.foldCase {
		s = strings.ToLower(s)
	}
	if m.normalize {
		s = strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) || unicode.IsNumber(r) {
				return r
			}
			return -1
		}, s)
	}
	return s
}

func (m *matcher) flags(line string) []bool {
	line = m.prepare(line)
	out := make([]bool, len(m.prepared))
	for i, q := range m.prepared {
		out[i] = strings.Contains(line, q)
	}
	return out
}

func (m *matcher) matched(flags []bool) []string {
	var out []string
	for i, f := range flags {
		if f {
			out = append(out, m.queries[i])
		}
	}
	return out
}

func anyTrue(b []bool) bool {
	for _, v := range b {
		if v {
			return true
		}
	}
	return false
}

func allTrue(b []bool) bool {
	for _, v := range b {
		if !v {
			return false
		}
	}
	return true
}

func hasZero(counts []int) bool {
	for _, c := range counts {
		if c == 0 {
			return true
		}
	}
	return false
}

// placeFiles keeps the files place keeps, ordered by rank then path, and
// records their labels.
func placeFiles(files []fileRef, place Place, labels map[string]string) []fileRef {
	type ranked struct {
		f    fileRef
		rank int
	}
	var kept []ranked
	for _, f := range files {
		rank, label, keep := place(f.rel)
		if !keep {
			continue
		}
		labels[f.rel] = label
		kept = append(kept, ranked{f, rank})
	}
	sort.SliceStable(kept, func(i, j int) bool { return kept[i].rank < kept[j].rank })
	out := make([]fileRef, len(kept))
	for i, k := range kept {
		out[i] = k.f
	}
	return out
}
