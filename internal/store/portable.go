package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/memctl/memctl/internal/origin"
)

// The portable part of memory (docs/sync.md): raw memories with the
// provenance of their threads, pins, forgets. `memctl export`, `import`
// and `sync` move it between homes; the transcripts, jobs, generations and
// the database file itself never leave.

// SourceImported is the source_kind of a thread row made for a raw memory
// that came from another machine or a bundle: there is no transcript
// behind it here, so extraction never claims it and a scan never re-keys
// its project (the key its own machine computed travels with it).
const SourceImported = "imported"

// PortableMemory is one raw memory with what travels with it.
type PortableMemory struct {
	ThreadID        string
	SourceUpdatedAt int64
	GeneratedAt     int64
	RawMemory       string
	RolloutSummary  string
	RolloutSlug     *string
	UsageCount      int64
	LastUsage       *int64 // unix seconds
	Pinned          bool
	EditedAt        *int64 // unix seconds: user-asserted text

	// The thread's provenance.
	SourceKind   string
	Origin       string // for an imported thread: the machine or bundle it came from
	RolloutPath  string
	Cwd          string
	GitBranch    string
	GitOriginURL string
	Preview      string
	CreatedAt    time.Time
	UpdatedAt    time.Time
	ProjectKey   string
	ProjectName  string
	ProjectRoot  string

	// From is the way the memory came into this home (its stored origin);
	// ImportMemory records it with a changed text.
	From origin.Origin
}

// PortableMemories lists the stored raw memories with their threads, by
// thread id; projectKey narrows them to one project ("" for all).
func (s *Store) PortableMemories(ctx context.Context, projectKey string) ([]PortableMemory, error) {
	q := `SELECT o.thread_id, o.source_updated_at, o.generated_at, o.raw_memory, o.rollout_summary, o.rollout_slug,
    COALESCE(o.usage_count, 0), o.last_usage, o.pinned <> 0, o.edited_at,
    COALESCE(t.source_kind, ''), COALESCE(t.source, ''), COALESCE(t.rollout_path, ''), COALESCE(t.cwd, ''),
    COALESCE(t.git_branch, ''), COALESCE(t.git_origin_url, ''), COALESCE(t.preview, ''),
    COALESCE(t.created_at_ms, 0), COALESCE(t.updated_at_ms, 0),
    COALESCE(t.project_key, ''), COALESCE(t.project_name, ''), COALESCE(t.project_root, ''), o.origin, o.origin_detail
FROM stage1_outputs o LEFT JOIN threads t ON t.id = o.thread_id`
	var args []any
	if projectKey != "" {
		q += ` WHERE t.project_key = ?`
		args = append(args, projectKey)
	}
	q += ` ORDER BY o.thread_id`
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []PortableMemory
	for rows.Next() {
		var m PortableMemory
		var slug sql.NullString
		var last, edited sql.NullInt64
		var created, updated int64
		var source string
		if err := rows.Scan(&m.ThreadID, &m.SourceUpdatedAt, &m.GeneratedAt, &m.RawMemory, &m.RolloutSummary, &slug,
			&m.UsageCount, &last, &m.Pinned, &edited, &m.SourceKind, &source, &m.RolloutPath, &m.Cwd,
			&m.GitBranch, &m.GitOriginURL, &m.Preview, &created, &updated, &m.ProjectKey, &m.ProjectName, &m.ProjectRoot, &m.From.Kind, &m.From.Detail); err != nil {
			return nil, err
		}
		if slug.Valid {
			m.RolloutSlug = &slug.String
		}
		m.LastUsage, m.EditedAt = nullInt(last), nullInt(edited)
		m.CreatedAt, m.UpdatedAt = time.UnixMilli(created).UTC(), time.UnixMilli(updated).UTC()
		if m.SourceKind == SourceImported {
			m.Origin = source
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// ImportOutcome says what ImportMemory did.
type ImportOutcome int

// Import outcomes.
const (
	ImportUnchanged ImportOutcome = iota // the same memory was already stored
	ImportAdded                          // a new raw memory
	ImportUpdated                        // a stored raw memory took the imported text, pin or uses
	ImportForgotten                      // the memory was forgotten here: nothing stored
)

// ImportMemory stores a raw memory that came from elsewhere. A thread this
// home indexed itself keeps its row, and the memory attaches to it; an
// unknown thread gets a row of source_kind SourceImported recording
// source (the machine or bundle). m.From is recorded as the memory's
// origin when its text changes (an import from source when unset). A
// memory forgotten here is not brought back (ImportForgotten). The text,
// pin and edit mark become the imported ones; uses only grow (the larger
// count and the later use win), so importing the same memory twice changes
// nothing. A change asks the next consolidation to run, cooldown or not.
func (s *Store) ImportMemory(ctx context.Context, m PortableMemory, source string) (ImportOutcome, error) {
	from := m.From
	if from.Kind == "" {
		from = origin.Origin{Kind: origin.Import, Detail: source}
	}
	outcome := ImportUnchanged
	err := s.tx(ctx, func(tx *sql.Tx) error {
		outcome = ImportUnchanged
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM forgotten_memories WHERE thread_id = ?`, m.ThreadID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			outcome = ImportForgotten
			return nil
		}
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM threads WHERE id = ?`, m.ThreadID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			_, err := tx.ExecContext(ctx, `INSERT INTO threads (id, source_kind, rollout_path, source, cwd, git_branch, git_origin_url,
    preview, created_at_ms, updated_at_ms, memory_mode, scanned_at, project_key, project_name, project_root)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'enabled', ?, ?, ?, ?)`,
				m.ThreadID, SourceImported, m.RolloutPath, source, m.Cwd, m.GitBranch, m.GitOriginURL, m.Preview,
				m.CreatedAt.UnixMilli(), m.UpdatedAt.UnixMilli(), s.now().Unix(), m.ProjectKey, m.ProjectName, m.ProjectRoot)
			if err != nil {
				return err
			}
		}
		cur, err := scanOutput(tx.QueryRowContext(ctx, `SELECT `+outputColumns+` FROM stage1_outputs WHERE thread_id = ?`, m.ThreadID))
		exists := err == nil
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		var curPinned bool
		var curEdited sql.NullInt64
		if exists {
			if err := tx.QueryRowContext(ctx, `SELECT pinned <> 0, edited_at FROM stage1_outputs WHERE thread_id = ?`, m.ThreadID).Scan(&curPinned, &curEdited); err != nil {
				return err
			}
		}
		uses, last := m.UsageCount, m.LastUsage
		if exists {
			uses = max(uses, cur.UsageCount)
			if cur.LastUsage != nil {
				l := cur.LastUsage.Unix()
				if last == nil || l > *last {
					last = &l
				}
			}
			same := cur.RawMemory == m.RawMemory && cur.RolloutSummary == m.RolloutSummary &&
				equalPtr(cur.RolloutSlug, m.RolloutSlug) && cur.SourceUpdatedAt == m.SourceUpdatedAt &&
				curPinned == m.Pinned && equalPtr(nullInt(curEdited), m.EditedAt)
			sameUses := uses == cur.UsageCount && equalPtr(last, timeUnix(cur.LastUsage))
			if same && sameUses {
				return nil
			}
			if same {
				// Uses only: no consolidation needs to run for them.
				outcome = ImportUpdated
				_, err := tx.ExecContext(ctx, `UPDATE stage1_outputs SET usage_count = ?, last_usage = ? WHERE thread_id = ?`, uses, last, m.ThreadID)
				return err
			}
			outcome = ImportUpdated
		} else {
			outcome = ImportAdded
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO stage1_outputs (thread_id, source_updated_at, raw_memory, rollout_summary, rollout_slug,
    generated_at, usage_count, last_usage, pinned, edited_at, origin, origin_detail)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (thread_id) DO UPDATE SET source_updated_at = excluded.source_updated_at, raw_memory = excluded.raw_memory,
    rollout_summary = excluded.rollout_summary, rollout_slug = excluded.rollout_slug, generated_at = excluded.generated_at,
    usage_count = excluded.usage_count, last_usage = excluded.last_usage, pinned = excluded.pinned, edited_at = excluded.edited_at,
    origin = excluded.origin, origin_detail = excluded.origin_detail`,
			m.ThreadID, m.SourceUpdatedAt, m.RawMemory, m.RolloutSummary, nullString(m.RolloutSlug), m.GeneratedAt,
			uses, last, m.Pinned, m.EditedAt, from.Kind, from.Detail)
		if err != nil {
			return err
		}
		if err := indexOutputTx(ctx, tx, m.ThreadID); err != nil {
			return err
		}
		now := s.now().Unix()
		if err := enqueueGlobalTx(ctx, tx, now); err != nil {
			return err
		}
		return requestTx(ctx, tx, "import "+m.ThreadID, false, now)
	})
	return outcome, err
}

// DropImported deletes a raw memory that only an import made (a
// conflicting copy `memctl sync` no longer needs) with its thread row,
// leaving no tombstone: it was never this home's memory. A thread this
// home indexed itself is left alone. It reports whether anything went.
func (s *Store) DropImported(ctx context.Context, id string) (bool, error) {
	dropped := false
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM threads WHERE id = ? AND source_kind = ?`, id, SourceImported)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		dropped = true
		if _, err := tx.ExecContext(ctx, `DELETE FROM stage1_outputs WHERE thread_id = ?`, id); err != nil {
			return err
		}
		if err := unindexThreadTx(ctx, tx, id); err != nil {
			return err
		}
		now := s.now().Unix()
		if err := enqueueGlobalTx(ctx, tx, now); err != nil {
			return err
		}
		return requestTx(ctx, tx, "drop "+id, true, now)
	})
	return dropped, err
}

func equalPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func timeUnix(t *time.Time) *int64 {
	if t == nil {
		return nil
	}
	v := t.Unix()
	return &v
}

// SyncMemoryState is what this database last agreed with the sync log
// about one raw memory: the log's current revisions of it (more than one
// while two edits conflict), its pin and whether the log forgets it.
type SyncMemoryState struct {
	ThreadID  string
	Heads     []string
	Pinned    bool
	Forgotten bool
}

// SyncStates returns the recorded sync state of every memory, by id.
func (s *Store) SyncStates(ctx context.Context) (map[string]SyncMemoryState, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT thread_id, heads, pinned <> 0, forgotten <> 0 FROM sync_memories`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]SyncMemoryState{}
	for rows.Next() {
		var st SyncMemoryState
		var heads string
		if err := rows.Scan(&st.ThreadID, &heads, &st.Pinned, &st.Forgotten); err != nil {
			return nil, err
		}
		_ = json.Unmarshal([]byte(heads), &st.Heads)
		out[st.ThreadID] = st
	}
	return out, rows.Err()
}

// SetSyncState records the sync state of memories and notes in one
// transaction (notes maps a note's path to its revision).
func (s *Store) SetSyncState(ctx context.Context, mems []SyncMemoryState, notes map[string]string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		for _, st := range mems {
			heads, _ := json.Marshal(nonNil(st.Heads))
			if _, err := tx.ExecContext(ctx, `INSERT INTO sync_memories (thread_id, heads, pinned, forgotten) VALUES (?, ?, ?, ?)
ON CONFLICT (thread_id) DO UPDATE SET heads = excluded.heads, pinned = excluded.pinned, forgotten = excluded.forgotten`,
				st.ThreadID, string(heads), st.Pinned, st.Forgotten); err != nil {
				return err
			}
		}
		for p, rev := range notes {
			if _, err := tx.ExecContext(ctx, `INSERT INTO sync_notes (path, rev) VALUES (?, ?)
ON CONFLICT (path) DO UPDATE SET rev = excluded.rev`, p, rev); err != nil {
				return err
			}
		}
		return nil
	})
}

// SyncNotes returns the recorded revision of every synced note, by path.
func (s *Store) SyncNotes(ctx context.Context) (map[string]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT path, rev FROM sync_notes`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var p, rev string
		if err := rows.Scan(&p, &rev); err != nil {
			return nil, err
		}
		out[p] = rev
	}
	return out, rows.Err()
}
