package store

import (
	"context"
	"database/sql"
	"errors"
)

// BaselineFile is one file of the memory folder as of the last successful
// consolidation. Mode follows git: 0o100644, 0o100755 or 0o120000.
type BaselineFile struct {
	Path    string
	Mode    uint32
	Content []byte
}

// Baseline returns the stored baseline; ok is false when none was saved
// since the database was created or cleared.
func (s *Store) Baseline(ctx context.Context) ([]BaselineFile, bool, error) {
	var created int64
	err := s.db.QueryRowContext(ctx, `SELECT created_at FROM baseline_meta WHERE singleton = 1`).Scan(&created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT path, mode, content FROM baseline_files ORDER BY path`)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	var out []BaselineFile
	for rows.Next() {
		var f BaselineFile
		if err := rows.Scan(&f.Path, &f.Mode, &f.Content); err != nil {
			return nil, false, err
		}
		out = append(out, f)
	}
	return out, true, rows.Err()
}

// SaveBaseline replaces the baseline in one transaction.
func (s *Store) SaveBaseline(ctx context.Context, files []BaselineFile) error {
	return s.tx(ctx, func(tx *sql.Tx) error { return saveBaselineTx(ctx, tx, files, s.now().Unix()) })
}
