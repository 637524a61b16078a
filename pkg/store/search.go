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
INSERT INTO search_index (kind, thread_id, path, body)
SELECT 'raw_memory', thread_id, '', raw_memory FROM stage1_outputs WHERE thread_id = ? AND length(raw_memory) > 0
UNION ALL
SELECT 'rollout_summary', thread_id, '', rollout_summary FROM stage1_outputs WHERE thread_id = ? AND length(rollout_summary) > 0`,
		threadID, threadID)
	return err
}

func unindexThreadTx(ctx context.Context, tx *sql.Tx, threadID string) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM search_index WHERE thread_id = ? AND kind <> 'file'`, threadID)
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
		if _, err := tx.ExecContext(ctx, `DELETE FROM search_index WHERE kind = 'file'`); err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO search_index (kind, thread_id, path, body) VALUES ('file', '', ?, ?)`)
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
	rows, err := s.db.QueryContext(ctx, `
SELECT kind, thread_id, path, snippet(search_index, 3, '[', ']', '…', 12), -bm25(search_index)
FROM search_index WHERE search_index MATCH ? ORDER BY bm25(search_index) LIMIT ?`, match, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Hit
	for rows.Next() {
		var h Hit
		if err := rows.Scan(&h.Kind, &h.ThreadID, &h.Path, &h.Snippet, &h.Score); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
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
