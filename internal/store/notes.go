package store

import (
	"context"
	"database/sql"
)

// NoteMark is how an ad hoc note ranks when more notes exist than the
// summary holds (docs/history.md): the user's pin, its uses (memctl cite
// counts a citation of the note's file) and its last use.
type NoteMark struct {
	Pinned     bool
	UsageCount int64
	LastUsage  *int64 // unix seconds
}

// NoteMarks returns every note's mark, by file name; a note without a
// row is unpinned and unused.
func (s *Store) NoteMarks(ctx context.Context) (map[string]NoteMark, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT name, pinned <> 0, usage_count, last_usage FROM note_marks`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]NoteMark{}
	for rows.Next() {
		var name string
		var m NoteMark
		var last sql.NullInt64
		if err := rows.Scan(&name, &m.Pinned, &m.UsageCount, &last); err != nil {
			return nil, err
		}
		m.LastUsage = nullInt(last)
		out[name] = m
	}
	return out, rows.Err()
}

// SetNotePinned pins or unpins a note (by file name) and asks the next
// consolidation to rebuild the summary, cooldown or not; changed is false
// when it already was so.
func (s *Store) SetNotePinned(ctx context.Context, name string, pinned bool) (changed bool, err error) {
	err = s.tx(ctx, func(tx *sql.Tx) error {
		var cur bool
		err := tx.QueryRowContext(ctx, `SELECT pinned <> 0 FROM note_marks WHERE name = ?`, name).Scan(&cur)
		if err != nil && err != sql.ErrNoRows {
			return err
		}
		if changed = cur != pinned; !changed {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO note_marks (name, pinned) VALUES (?, ?)
ON CONFLICT (name) DO UPDATE SET pinned = excluded.pinned`, name, pinned); err != nil {
			return err
		}
		return requestTx(ctx, tx, "pin note "+name, true, s.now().Unix())
	})
	return changed, err
}

// RecordNoteUses adds one use to each note named (by file name).
func (s *Store) RecordNoteUses(ctx context.Context, names []string) error {
	if len(names) == 0 {
		return nil
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		now := s.now().Unix()
		for _, n := range names {
			if _, err := tx.ExecContext(ctx, `INSERT INTO note_marks (name, usage_count, last_usage) VALUES (?, 1, ?)
ON CONFLICT (name) DO UPDATE SET usage_count = usage_count + 1, last_usage = excluded.last_usage`, n, now); err != nil {
				return err
			}
		}
		return nil
	})
}
