package store

import (
	"context"
	"database/sql"
	"strings"
	"unicode"
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

// Hit is one search result.
type Hit struct {
	Kind     string  `json:"kind"`
	ThreadID string  `json:"thread_id"`
	Path     string  `json:"path"`
	Snippet  string  `json:"snippet"`
	Score    float64 `json:"score"`
}

// Search runs a ranked full-text query (FTS5 bm25; higher score is better).
// The query is taken as plain words: every word must match (prefix match
// on the last one), so user input never reaches FTS5's query syntax.
func (s *Store) Search(ctx context.Context, query string, limit int) ([]Hit, error) {
	match := ftsQuery(query)
	if match == "" {
		return nil, nil
	}
	if limit <= 0 {
		limit = 20
	}
	// Rank on rowids and scores alone, then read the few documents returned
	// and cut their snippets here: a common word matches most of the index,
	// and reading every matching document before the LIMIT is what made
	// search slow.
	rows, err := s.db.QueryContext(ctx, `
SELECT rowid, -bm25(search_index) FROM search_index WHERE search_index MATCH ? ORDER BY bm25(search_index) LIMIT ?`, match, limit)
	if err != nil {
		return nil, err
	}
	type ranked struct {
		id    int64
		score float64
	}
	var top []ranked
	for rows.Next() {
		var r ranked
		if err := rows.Scan(&r.id, &r.score); err != nil {
			rows.Close()
			return nil, err
		}
		top = append(top, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	terms := queryTerms(query)
	out := make([]Hit, 0, len(top))
	for _, r := range top {
		var h Hit
		var body string
		if err := s.db.QueryRowContext(ctx, `SELECT kind, thread_id, path, body FROM search_docs WHERE id = ?`, r.id).
			Scan(&h.Kind, &h.ThreadID, &h.Path, &body); err != nil {
			return nil, err
		}
		h.Score = r.score
		h.Snippet = snippet(body, terms, 12)
		out = append(out, h)
	}
	return out, nil
}

// queryTerms are the lower-cased words of a query; the last one also
// matches as a prefix, as in the FTS query.
func queryTerms(q string) []string {
	words := strings.FieldsFunc(q, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' })
	for i, w := range words {
		words[i] = strings.ToLower(w)
	}
	return words
}

// snippet returns about n words of body around the first word matching a
// term, with matches in [brackets] and … where text was left out.
func snippet(body string, terms []string, n int) string {
	words := strings.Fields(body)
	matches := func(w string) bool {
		lw := strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' }))
		for i, t := range terms {
			if lw == t || (i == len(terms)-1 && strings.HasPrefix(lw, t)) || stem(lw) == stem(t) {
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
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	for i := start; i < end; i++ {
		if i > start {
			b.WriteByte(' ')
		}
		if matches(words[i]) {
			b.WriteString("[" + words[i] + "]")
		} else {
			b.WriteString(words[i])
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

// ftsQuery turns free text into an FTS5 query of quoted terms.
func ftsQuery(q string) string {
	words := strings.FieldsFunc(q, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' })
	if len(words) == 0 {
		return ""
	}
	parts := make([]string, len(words))
	for i, w := range words {
		parts[i] = `"` + w + `"`
		if i == len(words)-1 {
			parts[i] += "*"
		}
	}
	return strings.Join(parts, " ")
}
