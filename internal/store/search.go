package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/origin"
)

// The search index is kept in step with the rows it mirrors: outputs are
// indexed when stored and removed when deleted, inside the same
// transaction; memory folder files are replaced after each consolidation.

func indexOutputTx(ctx context.Context, tx *sql.Tx, threadID string) error {
	if err := unindexThreadTx(ctx, tx, threadID); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `
INSERT INTO search_docs (kind, thread_id, path, body)
SELECT 'raw_memory', thread_id, '', raw_memory FROM stage1_outputs WHERE thread_id = ? AND length(raw_memory) > 0
UNION ALL
SELECT 'rollout_summary', thread_id, '', rollout_summary FROM stage1_outputs WHERE thread_id = ? AND length(rollout_summary) > 0`,
		threadID, threadID)
	return err
}

func unindexThreadTx(ctx context.Context, tx *sql.Tx, threadID string) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM search_docs WHERE thread_id = ? AND kind <> 'file'`, threadID)
	return err
}

// A raw memory is in memory while its thread's memory mode is enabled:
// consolidation selects it (Selection) and search finds it. A thread taken
// out of memory (threads disable or forget, a memory forgotten, a polluted
// thread) keeps its row, but neither uses it. inMemorySQL is the rule on
// the threads table aliased t, left-joined (a raw memory with no thread
// row was never taken out); InMemory is the same rule in Go (a test keeps
// them in step).
const inMemorySQL = "COALESCE(t.memory_mode, 'enabled') = 'enabled'"

// InMemory reports whether t's raw memory is consolidated and searchable.
func InMemory(t Thread) bool { return t.MemoryMode == "enabled" }

// Searchable reports whether a search can find o, the raw memory of t: it
// holds text (an empty one is never indexed) and t is in memory.
func Searchable(t Thread, o Output) bool {
	return InMemory(t) && (o.RawMemory != "" || o.RolloutSummary != "")
}

// searchableDoc is the condition on a search document d (with its thread t
// joined) that a search may return it: a memory-folder file, or a raw
// memory or rollout summary whose thread is in memory.
const searchableDoc = "(d.thread_id = '' OR " + inMemorySQL + ")"

// SearchableMemories counts the raw memories a search can find (see
// Searchable).
func (s *Store) SearchableMemories(ctx context.Context) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(DISTINCT d.thread_id) FROM search_docs d LEFT JOIN threads t ON t.id = d.thread_id
WHERE d.thread_id <> '' AND `+inMemorySQL).Scan(&n)
	return n, err
}

// IndexedFile is one memory-folder file for the search index.
type IndexedFile struct {
	Path string // relative, slash-separated
	Body string
}

// ReplaceIndexedFiles replaces the indexed memory-folder files.
func (s *Store) ReplaceIndexedFiles(ctx context.Context, files []IndexedFile) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM search_docs WHERE thread_id = '' AND kind = 'file'`); err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO search_docs (kind, thread_id, path, body) VALUES ('file', '', ?, ?)`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, f := range files {
			if _, err := stmt.ExecContext(ctx, f.Path, f.Body); err != nil {
				return err
			}
		}
		return nil
	})
}

// notesPrefix is where the ad hoc notes lie in the memory folder
// (memdir.NotesDir).
const notesPrefix = "extensions/ad_hoc/notes/"

// Hit is one search result.
type Hit struct {
	Kind     string  `json:"kind"`
	ThreadID string  `json:"thread_id"`
	Path     string  `json:"path"`
	Snippet  string  `json:"snippet"`
	Score    float64 `json:"score"`
	// The project of the raw memory or summary hit ("" for memory folder
	// files, which the caller places).
	ProjectKey string `json:"project_key"`
	Project    string `json:"project"`
	// Origin is where the hit's memory came from: a raw memory's stored
	// origin, a note's header; nil for the other memory folder files,
	// which memctl wrote.
	Origin *origin.Origin `json:"origin,omitempty"`
}

// SearchOptions narrows or orders a search.
type SearchOptions struct {
	Limit int // 0: 20
	// ProjectKey puts the documents of this project's threads first (then
	// memory folder files, then other projects), best match first in each.
	ProjectKey string
	// ProjectFiles is the folder of that project's files in the memory
	// folder ("projects/<dir>/"), which count as the project's too; other
	// projects' folders under projects/ rank with other projects.
	ProjectFiles string
	// ProjectPaths are more files of the project (its rollout summaries).
	ProjectPaths []string
}

// Search runs a ranked full-text query (FTS5 bm25; higher score is better).
// The query is taken as plain words: every word must match (prefix match
// on the last one), so user input never reaches FTS5's query syntax.
func (s *Store) Search(ctx context.Context, query string, limit int) ([]Hit, error) {
	return s.SearchWith(ctx, query, SearchOptions{Limit: limit})
}

// Bounds of a ranked query. FTS5's work grows faster
// than the number of terms (8,000 words took 12 s, 50,000 more than two
// minutes and 561 MB), and a snippet compares every word of a hit with
// every term: a query is searched for by its first MaxQueryTerms distinct
// words within its first MaxQueryBytes bytes, and the rest is left out
// unread. A person's query is a few words; these bounds only cut pasted
// text.
const (
	MaxQueryTerms = 64
	MaxQueryBytes = 4096
)

// QueryTerms is what a ranked search looks for in a query.
type QueryTerms struct {
	// Terms are the distinct words searched for, in query order.
	Terms []string
	// Prefix: the last term also matches as a prefix (the word being
	// typed). Never set when the query was cut, whose last kept word is
	// whole.
	Prefix bool
	// Cut is set when words were left out; Words and Bytes then say how
	// long the query was.
	Cut   bool
	Words int
	Bytes int
}

// Note says, for a query that was cut, what was searched for.
func (q QueryTerms) Note() string {
	if !q.Cut {
		return ""
	}
	return fmt.Sprintf("searched for the first %d distinct words of a query of %d words (%d bytes): a query counts at most %d distinct words within its first %d bytes",
		len(q.Terms), q.Words, q.Bytes, MaxQueryTerms, MaxQueryBytes)
}

// Query returns the terms as a query that searches for them again.
func (q QueryTerms) Query() string { return strings.Join(q.Terms, " ") }

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// SearchTerms splits a query into the terms Search looks for, within the
// bounds above. Its cost is linear in the query: past MaxQueryBytes, words
// are only counted.
func SearchTerms(query string) QueryTerms {
	q := QueryTerms{Bytes: len(query), Words: countWords(query)}
	head := query
	if len(head) > MaxQueryBytes {
		q.Cut = true
		cut := MaxQueryBytes
		for cut > 0 && !utf8.RuneStart(head[cut]) {
			cut--
		}
		// Do not search for half a word: back up to its start, unless it
		// is the only word.
		if r, _ := utf8.DecodeRuneInString(head[cut:]); isWordRune(r) {
			if i := strings.LastIndexFunc(head[:cut], func(r rune) bool { return !isWordRune(r) }); i >= 0 {
				cut = i
			}
		}
		head = head[:cut]
	}
	seen := map[string]bool{}
	words := strings.FieldsFunc(head, func(r rune) bool { return !isWordRune(r) })
	lastDup := false
	for i, w := range words {
		key := strings.ToLower(w)
		if seen[key] {
			lastDup = i == len(words)-1
			continue
		}
		if len(q.Terms) == MaxQueryTerms {
			q.Cut = true
			break
		}
		seen[key] = true
		q.Terms = append(q.Terms, w)
	}
	// The last word of the query is a prefix; when it repeats an earlier
	// term, that term alone says the same.
	q.Prefix = len(q.Terms) > 0 && !q.Cut && !lastDup
	return q
}

// countWords counts the words of s without building them.
func countWords(s string) int {
	n, in := 0, false
	for _, r := range s {
		w := isWordRune(r)
		if w && !in {
			n++
		}
		in = w
	}
	return n
}

// SearchWith is Search with options. The query is bounded as SearchTerms
// says.
func (s *Store) SearchWith(ctx context.Context, query string, opts SearchOptions) ([]Hit, error) {
	qt := SearchTerms(query)
	match := ftsQuery(qt)
	if match == "" {
		return nil, nil
	}
	limit := opts.Limit
	if limit <= 0 {
		limit = 20
	}
	terms := snippetTerms(qt)
	// A memory out of memory is not returned. The project query looks at
	// each match's owner anyway and leaves them out as it ranks; the plain
	// one ranks without looking at owners (that is what keeps it fast) and
	// drops them as it reads the top documents, ranking further only when
	// more than searchSlack of the top were out of memory.
	for fetch := limit + searchSlack; ; fetch *= 2 {
		top, err := s.rank(ctx, match, opts, fetch)
		if err != nil {
			return nil, err
		}
		out := make([]Hit, 0, limit)
		for _, r := range top {
			h, body, in, err := s.searchDoc(ctx, r.id)
			if err != nil {
				return nil, err
			}
			if !in {
				continue
			}
			h.Score = r.score
			h.Snippet = snippet(body, terms, 12)
			if out = append(out, h); len(out) == limit {
				break
			}
		}
		if len(out) == limit || len(top) < fetch {
			return out, nil
		}
	}
}

// searchSlack is how many ranked documents past the limit a search reads
// at first, in case some of the best belong to memories out of memory.
const searchSlack = 8

// rankedDoc is a search document by rowid, with its score.
type rankedDoc struct {
	id    int64
	score float64
}

// rank returns the n best documents for match. It ranks on rowids and
// scores alone: a common word matches most of the index, and reading
// every matching document before the LIMIT is what made search slow. A
// project scope has to look at each match's owner, but not at its body,
// and leaves out the documents that are not searchable while it does.
func (s *Store) rank(ctx context.Context, match string, opts SearchOptions, n int) ([]rankedDoc, error) {
	q := `SELECT rowid, -bm25(search_index) FROM search_index WHERE search_index MATCH ? ORDER BY bm25(search_index) LIMIT ?`
	args := []any{match, n}
	if opts.ProjectKey != "" {
		q = `SELECT search_index.rowid, -bm25(search_index) FROM search_index
JOIN search_docs d ON d.id = search_index.rowid LEFT JOIN threads t ON t.id = d.thread_id AND d.thread_id <> ''
WHERE search_index MATCH ? AND ` + searchableDoc + `
ORDER BY CASE WHEN t.project_key = ? THEN 0
  WHEN d.thread_id = '' AND ? <> '' AND substr(d.path, 1, length(?)) = ? THEN 0
  WHEN d.thread_id = '' AND d.path LIKE 'projects/%/%' THEN 2
  WHEN d.thread_id = '' THEN 1 ELSE 2 END, bm25(search_index) LIMIT ?`
		args = []any{match, opts.ProjectKey, opts.ProjectFiles, opts.ProjectFiles, opts.ProjectFiles, n}
		if len(opts.ProjectPaths) > 0 {
			ph := strings.TrimSuffix(strings.Repeat("?, ", len(opts.ProjectPaths)), ", ")
			q = strings.Replace(q, "WHEN d.thread_id = '' AND d.path LIKE 'projects/%/%' THEN 2",
				"WHEN d.thread_id = '' AND d.path IN ("+ph+") THEN 0\n  WHEN d.thread_id = '' AND d.path LIKE 'projects/%/%' THEN 2", 1)
			args = []any{match, opts.ProjectKey, opts.ProjectFiles, opts.ProjectFiles, opts.ProjectFiles}
			for _, p := range opts.ProjectPaths {
				args = append(args, p)
			}
			args = append(args, n)
		}
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var top []rankedDoc
	for rows.Next() {
		var r rankedDoc
		if err := rows.Scan(&r.id, &r.score); err != nil {
			return nil, err
		}
		top = append(top, r)
	}
	return top, rows.Err()
}

// searchDoc reads one search document as a hit (its body apart, and
// where a raw memory or a note came from), and whether it is searchable
// (searchableDoc).
func (s *Store) searchDoc(ctx context.Context, id int64) (Hit, string, bool, error) {
	var h Hit
	var body string
	var in bool
	var from origin.Origin
	err := s.db.QueryRowContext(ctx, `SELECT d.kind, d.thread_id, d.path, d.body, COALESCE(t.project_key, ''), COALESCE(t.project_name, ''),
    COALESCE(o.origin, ''), COALESCE(o.origin_detail, ''), `+searchableDoc+`
FROM search_docs d LEFT JOIN threads t ON t.id = d.thread_id AND d.thread_id <> ''
    LEFT JOIN stage1_outputs o ON o.thread_id = d.thread_id AND d.thread_id <> '' WHERE d.id = ?`, id).
		Scan(&h.Kind, &h.ThreadID, &h.Path, &body, &h.ProjectKey, &h.Project, &from.Kind, &from.Detail, &in)
	if err != nil {
		return h, body, in, err
	}
	switch {
	case from.Kind != "":
		h.Origin = &from
	case strings.HasPrefix(h.Path, notesPrefix):
		n := origin.OfNote(body)
		h.Origin = &n
	}
	return h, body, in, nil
}

// codeSpans gives each word the index of the first word of the `code
// span` it is in, or -1 outside any span. A span opens and closes at an
// odd number of backticks in a word.
func codeSpans(words []string) []int {
	out := make([]int, len(words))
	first := -1
	for i, w := range words {
		ticks := strings.Count(w, "`")
		switch {
		case first >= 0:
			out[i] = first
			if ticks%2 == 1 {
				first = -1
			}
		case ticks%2 == 1:
			first = i
			out[i] = i
		default:
			out[i] = -1
		}
	}
	if first >= 0 {
		// An unclosed backtick opens no span.
		for i := first; i < len(words); i++ {
			out[i] = -1
		}
	}
	return out
}

// snippetTermSet is what a snippet marks: the lower-cased terms, their
// stems, and whether the last one is a prefix.
type snippetTermSet struct {
	terms  []string
	stems  []string
	prefix bool
}

func snippetTerms(q QueryTerms) snippetTermSet {
	st := snippetTermSet{prefix: q.Prefix}
	for _, t := range q.Terms {
		t = strings.ToLower(t)
		st.terms = append(st.terms, t)
		st.stems = append(st.stems, stem(t))
	}
	return st
}

// queryTerms are the terms of a query as a snippet marks them.
func queryTerms(q string) snippetTermSet { return snippetTerms(SearchTerms(q)) }

// snippet returns about n words of body around the first word matching a
// term, with matches in [brackets] and … where text was left out.
func snippet(body string, ts snippetTermSet, n int) string {
	words := strings.Fields(body)
	terms := ts.terms
	matches := func(w string) bool {
		lw := strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return !isWordRune(r) }))
		sw := stem(lw)
		for i, t := range terms {
			if lw == t || (ts.prefix && i == len(terms)-1 && strings.HasPrefix(lw, t)) || sw == ts.stems[i] {
				return true
			}
		}
		return false
	}
	first := -1
	for i, w := range words {
		if matches(w) {
			first = i
			break
		}
	}
	if first < 0 {
		first = 0
	}
	start := max(0, first-n/3)
	end := min(len(words), start+n)
	// A match inside a `code span` brackets the whole span: a bracket in
	// the middle of the span would read as part of the code.
	span := codeSpans(words)
	open, close := make([]bool, len(words)), make([]bool, len(words))
	for i := start; i < end; i++ {
		if !matches(words[i]) {
			continue
		}
		lo, hi := i, i
		if span[i] >= 0 {
			lo, hi = span[i], i
			for hi+1 < len(words) && span[hi+1] == span[i] {
				hi++
			}
		}
		open[max(lo, start)], close[min(hi, end-1)] = true, true
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	depth := 0
	for i := start; i < end; i++ {
		if i > start {
			b.WriteByte(' ')
		}
		if open[i] && depth == 0 {
			b.WriteByte('[')
		}
		if open[i] {
			depth++
		}
		b.WriteString(words[i])
		if close[i] && depth > 0 {
			depth = 0
			b.WriteByte(']')
		}
	}
	if end < len(words) {
		b.WriteString("…")
	}
	return b.String()
}

// stem strips the commonest English endings, so a snippet marks the word
// the porter tokenizer matched ("tests" for "test").
func stem(w string) string {
	for _, suf := range []string{"ing", "ed", "es", "s"} {
		if len(w) > len(suf)+2 && strings.HasSuffix(w, suf) {
			return w[:len(w)-len(suf)]
		}
	}
	return w
}

// ftsQuery turns the terms into an FTS5 query of quoted terms.
func ftsQuery(q QueryTerms) string {
	if len(q.Terms) == 0 {
		return ""
	}
	parts := make([]string, len(q.Terms))
	for i, w := range q.Terms {
		parts[i] = `"` + w + `"`
		if q.Prefix && i == len(q.Terms)-1 {
			parts[i] += "*"
		}
	}
	return strings.Join(parts, " ")
}
