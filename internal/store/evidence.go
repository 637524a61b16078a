package store

import (
	"context"
	"database/sql"
	"errors"
)

// EvidenceItem is one thing a raw memory rests on (internal/evidence records
// and checks it; the store keeps it).
type EvidenceItem struct {
	Seq       int    `json:"seq"`
	Kind      string `json:"kind"` // file | command
	RefPath   string `json:"ref_path"`
	LineStart int    `json:"line_start,omitempty"`
	LineEnd   int    `json:"line_end,omitempty"`
	Runner    string `json:"runner,omitempty"`
	Target    string `json:"target,omitempty"`
	AbsPath   string `json:"abs_path"`
	Size      int64  `json:"size"`
	MtimeNs   int64  `json:"-"`
	Hash      string `json:"-"`
	Sketch    string `json:"-"`
	RangeHash string `json:"-"`
	// State and Reason are the verdict of the last check (at
	// consolidation); State is "ok" until one ran.
	State     string `json:"state"`
	Reason    string `json:"reason,omitempty"`
	CheckedAt *int64 `json:"checked_at,omitempty"`
}

// QuarantineItem is a line held back from a raw memory at extraction.
type QuarantineItem struct {
	ID         int64  `json:"id"`
	ThreadID   string `json:"thread_id"`
	Field      string `json:"field"`
	Line       int    `json:"line"`
	Reason     string `json:"reason"`
	Text       string `json:"text"`
	RecordedAt int64  `json:"recorded_at"`
}

// Stage1Result is a finished extraction: the output and what goes with it.
type Stage1Result struct {
	RawMemory      string
	RolloutSummary string
	Slug           *string
	// Evidence replaces the thread's evidence; Commit is the repository's
	// HEAD at extraction ("" when none).
	Evidence []EvidenceItem
	Commit   string
	// Quarantine replaces the thread's held-back lines.
	Quarantine []QuarantineItem
}

// MarkStage1Done is MarkStage1Succeeded with the evidence and the
// quarantined lines stored in the same transaction, so a raw memory is
// never stored without them. An output older than the stored one, or one
// for a memory the user edited, changes nothing but the job.
func (s *Store) MarkStage1Done(ctx context.Context, threadID, token string, sourceUpdatedAt int64, r Stage1Result) (bool, error) {
	owned := false
	err := s.tx(ctx, func(tx *sql.Tx) error {
		now := s.now().Unix()
		var err error
		if owned, err = finishStage1Tx(ctx, tx, threadID, token, now); err != nil || !owned {
			return err
		}
		res, err := tx.ExecContext(ctx, `
INSERT INTO stage1_outputs (thread_id, source_updated_at, raw_memory, rollout_summary, rollout_slug, generated_at, evidence_commit, origin, origin_detail)
VALUES (?, ?, ?, ?, ?, ?, ?, 'session', '')
ON CONFLICT (thread_id) DO UPDATE SET
    source_updated_at = excluded.source_updated_at, raw_memory = excluded.raw_memory,
    rollout_summary = excluded.rollout_summary, rollout_slug = excluded.rollout_slug,
    generated_at = excluded.generated_at, evidence_commit = excluded.evidence_commit,
    origin = 'session', origin_detail = ''
WHERE excluded.source_updated_at >= stage1_outputs.source_updated_at
  AND stage1_outputs.edited_at IS NULL`,
			threadID, sourceUpdatedAt, r.RawMemory, r.RolloutSummary, r.Slug, now, r.Commit)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			if err := replaceEvidenceTx(ctx, tx, threadID, r.Evidence); err != nil {
				return err
			}
			if err := replaceQuarantineTx(ctx, tx, threadID, r.Quarantine, now); err != nil {
				return err
			}
			if err := requestIfMissedTx(ctx, tx, threadID, now); err != nil {
				return err
			}
		}
		if err := indexOutputTx(ctx, tx, threadID); err != nil {
			return err
		}
		return enqueueGlobalTx(ctx, tx, sourceUpdatedAt)
	})
	return owned, err
}

func replaceEvidenceTx(ctx context.Context, tx *sql.Tx, threadID string, items []EvidenceItem) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM evidence WHERE thread_id = ?`, threadID); err != nil {
		return err
	}
	if len(items) == 0 {
		return nil
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO evidence (thread_id, seq, kind, ref_path, line_start, line_end, runner, target,
    abs_path, size, mtime_ns, hash, sketch, range_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for i, it := range items {
		if _, err := stmt.ExecContext(ctx, threadID, i+1, it.Kind, it.RefPath, it.LineStart, it.LineEnd, it.Runner, it.Target,
			it.AbsPath, it.Size, it.MtimeNs, it.Hash, it.Sketch, it.RangeHash); err != nil {
			return err
		}
	}
	return nil
}

func replaceQuarantineTx(ctx context.Context, tx *sql.Tx, threadID string, items []QuarantineItem, now int64) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM quarantine WHERE thread_id = ?`, threadID); err != nil {
		return err
	}
	for _, q := range items {
		if _, err := tx.ExecContext(ctx, `INSERT INTO quarantine (thread_id, field, line, reason, text, recorded_at) VALUES (?, ?, ?, ?, ?, ?)`,
			threadID, q.Field, q.Line, q.Reason, q.Text, now); err != nil {
			return err
		}
	}
	return nil
}

// EvidenceSet is the evidence of one raw memory.
type EvidenceSet struct {
	ThreadID string `json:"thread_id"`
	// Commit is the repository's HEAD at extraction; RecordedAt when the
	// raw memory (and so its evidence) was generated.
	Commit     string         `json:"commit,omitempty"`
	RecordedAt int64          `json:"recorded_at"`
	Items      []EvidenceItem `json:"items"`
}

const evidenceColumns = `seq, kind, ref_path, line_start, line_end, runner, target, abs_path, size, mtime_ns, hash, sketch, range_hash,
    state, reason, checked_at`

func scanEvidence(r scanner) (EvidenceItem, error) {
	var it EvidenceItem
	var checked sql.NullInt64
	err := r.Scan(&it.Seq, &it.Kind, &it.RefPath, &it.LineStart, &it.LineEnd, &it.Runner, &it.Target, &it.AbsPath, &it.Size,
		&it.MtimeNs, &it.Hash, &it.Sketch, &it.RangeHash, &it.State, &it.Reason, &checked)
	it.CheckedAt = nullInt(checked)
	return it, err
}

// Evidence returns the evidence of the given raw memories, in the order
// asked; a thread without a raw memory is left out.
func (s *Store) Evidence(ctx context.Context, threadIDs []string) ([]EvidenceSet, error) {
	var out []EvidenceSet
	for _, id := range threadIDs {
		set := EvidenceSet{ThreadID: id}
		err := s.db.QueryRowContext(ctx, `SELECT evidence_commit, generated_at FROM stage1_outputs WHERE thread_id = ?`, id).Scan(&set.Commit, &set.RecordedAt)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, err
		}
		rows, err := s.db.QueryContext(ctx, `SELECT `+evidenceColumns+` FROM evidence WHERE thread_id = ? ORDER BY seq`, id)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			it, err := scanEvidence(rows)
			if err != nil {
				rows.Close()
				return nil, err
			}
			set.Items = append(set.Items, it)
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
		out = append(out, set)
	}
	return out, nil
}

// EvidenceState is the verdict on one evidence row.
type EvidenceState struct {
	Seq    int
	State  string
	Reason string
}

// SetEvidenceStates records the verdicts of a check of a thread's evidence.
func (s *Store) SetEvidenceStates(ctx context.Context, threadID string, states []EvidenceState) error {
	if len(states) == 0 {
		return nil
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		now := s.now().Unix()
		for _, st := range states {
			if _, err := tx.ExecContext(ctx, `UPDATE evidence SET state = ?, reason = ?, checked_at = ? WHERE thread_id = ? AND seq = ?`,
				st.State, st.Reason, now, threadID, st.Seq); err != nil {
				return err
			}
		}
		return nil
	})
}

// Quarantined lists every held-back line, by thread then position.
func (s *Store) Quarantined(ctx context.Context) ([]QuarantineItem, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, thread_id, field, line, reason, text, recorded_at FROM quarantine ORDER BY thread_id, field, line`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []QuarantineItem
	for rows.Next() {
		var q QuarantineItem
		if err := rows.Scan(&q.ID, &q.ThreadID, &q.Field, &q.Line, &q.Reason, &q.Text, &q.RecordedAt); err != nil {
			return nil, err
		}
		out = append(out, q)
	}
	return out, rows.Err()
}

// UncitedMemory is a raw memory that consolidations keep selecting and no
// agent has cited.
type UncitedMemory struct {
	ThreadID       string `json:"thread_id"`
	Consolidations int    `json:"consolidations"`
	GeneratedAt    int64  `json:"generated_at"`
}

// Uncited lists the raw memories selected by at least n successful
// consolidations and never cited, most selected first.
func (s *Store) Uncited(ctx context.Context, n int) ([]UncitedMemory, error) {
	if n < 1 {
		n = 1
	}
	rows, err := s.db.QueryContext(ctx, `SELECT thread_id, consolidations, generated_at FROM stage1_outputs
WHERE consolidations >= ? AND COALESCE(usage_count, 0) = 0 ORDER BY consolidations DESC, thread_id`, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []UncitedMemory
	for rows.Next() {
		var u UncitedMemory
		if err := rows.Scan(&u.ThreadID, &u.Consolidations, &u.GeneratedAt); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}
