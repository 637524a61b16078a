package store

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"time"

	"github.com/memctl/memctl/internal/origin"
)

// Output is one row of stage1_outputs: a thread's raw memory.
type Output struct {
	ThreadID                        string     `json:"thread_id"`
	SourceUpdatedAt                 int64      `json:"source_updated_at"`
	RawMemory                       string     `json:"raw_memory"`
	RolloutSummary                  string     `json:"rollout_summary"`
	RolloutSlug                     *string    `json:"rollout_slug"`
	GeneratedAt                     int64      `json:"generated_at"`
	UsageCount                      int64      `json:"usage_count"`
	LastUsage                       *time.Time `json:"last_usage"`
	SelectedForPhase2               bool       `json:"selected_for_phase2"`
	SelectedForPhase2SourceUpdateAt *int64     `json:"selected_for_phase2_source_updated_at,omitempty"`
}

const outputColumns = `thread_id, source_updated_at, raw_memory, rollout_summary, rollout_slug, generated_at,
    COALESCE(usage_count, 0), last_usage, selected_for_phase2, selected_for_phase2_source_updated_at`

func scanOutput(r scanner) (Output, error) {
	var o Output
	var slug sql.NullString
	var last, selAt sql.NullInt64
	err := r.Scan(&o.ThreadID, &o.SourceUpdatedAt, &o.RawMemory, &o.RolloutSummary, &slug, &o.GeneratedAt,
		&o.UsageCount, &last, &o.SelectedForPhase2, &selAt)
	if slug.Valid {
		o.RolloutSlug = &slug.String
	}
	o.LastUsage = unixTime(nullInt(last))
	o.SelectedForPhase2SourceUpdateAt = nullInt(selAt)
	return o, err
}

// Output returns a thread's raw memory, or ErrNotFound.
func (s *Store) Output(ctx context.Context, threadID string) (Output, error) {
	o, err := scanOutput(s.db.QueryRowContext(ctx, `SELECT `+outputColumns+` FROM stage1_outputs WHERE thread_id = ?`, threadID))
	if errors.Is(err, sql.ErrNoRows) {
		return o, ErrNotFound
	}
	return o, err
}

// Selected is one raw memory chosen for Phase 2, with its thread's metadata.
type Selected struct {
	ThreadID        string
	SourceUpdatedAt int64
	RawMemory       string
	RolloutSummary  string
	RolloutSlug     string
	RolloutPath     string
	Cwd             string
	GitBranch       string
	// Pinned memories rank first and are selected whatever their age.
	Pinned bool
	// UserAsserted memories carry text the user wrote (memories edit).
	UserAsserted bool
	// The thread's project (internal/project); empty keys before the first
	// scan that computes them.
	ProjectKey  string
	ProjectName string
	ProjectRoot string
	// From is the way the memory came into this home: a session here, the
	// user's edit, another machine (its name), a bundle (its name).
	From origin.Origin
}

// retentionClock is when a raw memory's unused days start counting: its
// last use, else the later of the thread's update and the extraction that
// wrote it. Codex starts a never-used memory's clock at the thread's
// update alone, so a memory extracted today from a thread older than
// max_unused_days is never selected and is pruned at once: a first run
// over a user's history would throw that history away. Counting from
// generation too keeps every other rule of Codex's (docs/retention.md).
const retentionClock = `COALESCE(last_usage, MAX(source_updated_at, generated_at))`

// retentionCutoff is the retention clock's bound at now: a raw memory
// whose clock is before it has gone unused for maxUnusedDays.
func retentionCutoff(now time.Time, maxUnusedDays int) int64 {
	return now.Add(-time.Duration(maxUnusedDays) * 24 * time.Hour).Unix()
}

// Selection picks the raw memories of the next consolidation (Codex 7.2):
// non-empty, used within max_unused_days (or never used and fresh by the
// retention clock), ranked by usage count, last use or update, update and
// id; only memories in memory (InMemory); at most n; sorted by
// thread id. Pinned memories are memctl's addition: they rank before all
// others and are eligible whatever their age.
func (s *Store) Selection(ctx context.Context, n, maxUnusedDays int) ([]Selected, error) {
	if n <= 0 {
		return nil, nil
	}
	cutoff := retentionCutoff(s.now(), maxUnusedDays)
	rows, err := s.db.QueryContext(ctx, `
SELECT o.thread_id, o.source_updated_at, o.raw_memory, o.rollout_summary, COALESCE(o.rollout_slug, ''),
       t.rollout_path, t.cwd, t.git_branch, o.pinned <> 0, o.edited_at IS NOT NULL, t.project_key, t.project_name, t.project_root,
       o.origin, o.origin_detail
FROM stage1_outputs o JOIN threads t ON t.id = o.thread_id
WHERE (length(trim(o.raw_memory)) > 0 OR length(trim(o.rollout_summary)) > 0)
  AND (o.pinned <> 0 OR `+retentionClock+` >= ?)
  AND `+inMemorySQL+`
ORDER BY o.pinned DESC, COALESCE(o.usage_count, 0) DESC, COALESCE(o.last_usage, o.source_updated_at) DESC,
         o.source_updated_at DESC, o.thread_id DESC
LIMIT ?`, cutoff, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Selected
	for rows.Next() {
		var sel Selected
		if err := rows.Scan(&sel.ThreadID, &sel.SourceUpdatedAt, &sel.RawMemory, &sel.RolloutSummary, &sel.RolloutSlug,
			&sel.RolloutPath, &sel.Cwd, &sel.GitBranch, &sel.Pinned, &sel.UserAsserted, &sel.ProjectKey, &sel.ProjectName, &sel.ProjectRoot, &sel.From.Kind, &sel.From.Detail); err != nil {
			return nil, err
		}
		out = append(out, sel)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	sortByThreadID(out)
	return out, nil
}

func sortByThreadID(s []Selected) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].ThreadID < s[j-1].ThreadID; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// RecordUsage adds one use to each cited raw memory in one transaction
// (Codex 9.4) and returns how many rows changed; unknown ids are ignored.
// Duplicate ids count twice: callers de-duplicate first.
func (s *Store) RecordUsage(ctx context.Context, threadIDs []string) (int, error) {
	n, _, err := s.RecordTurnUsage(ctx, "", threadIDs)
	return n, err
}

// RecordTurnUsage is RecordUsage for one agent turn: with a non-empty
// turnKey the uses are added only the first time that key is seen, in the
// same transaction that remembers it, so a hook that runs twice for one
// turn counts once. dup reports a key seen before (nothing was added).
func (s *Store) RecordTurnUsage(ctx context.Context, turnKey string, threadIDs []string) (total int, dup bool, err error) {
	if len(threadIDs) == 0 {
		return 0, false, nil
	}
	err = s.tx(ctx, func(tx *sql.Tx) error {
		total, dup = 0, false
		now := s.now().Unix()
		if turnKey != "" {
			res, err := tx.ExecContext(ctx, `INSERT INTO citation_turns (turn_key, recorded_at) VALUES (?, ?) ON CONFLICT (turn_key) DO NOTHING`, turnKey, now)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				dup = true
				return nil
			}
		}
		stmt, err := tx.PrepareContext(ctx, `UPDATE stage1_outputs SET usage_count = COALESCE(usage_count, 0) + 1, last_usage = ? WHERE thread_id = ?`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, id := range threadIDs {
			res, err := stmt.ExecContext(ctx, now, id)
			if err != nil {
				return err
			}
			n, _ := res.RowsAffected()
			total += int(n)
		}
		return nil
	})
	return total, dup, err
}

// PruneLimit is the most rows one prune deletes (Codex's batch size).
const PruneLimit = 200

// Prune deletes raw memories that no consolidation selected and that were
// not used since maxUnusedDays by the retention clock (Codex section 4,
// with the clock above): strict cutoff, stalest first, at most limit, jobs
// untouched so a pruned thread is not re-extracted until it changes.
// Pinned memories are never pruned. dryRun lists without deleting.
func (s *Store) Prune(ctx context.Context, maxUnusedDays, limit int, dryRun bool) ([]string, error) {
	if limit <= 0 {
		return nil, nil
	}
	if maxUnusedDays < 0 {
		maxUnusedDays = 0
	}
	cutoff := retentionCutoff(s.now(), maxUnusedDays)
	const pick = `SELECT thread_id FROM stage1_outputs
WHERE selected_for_phase2 = 0 AND pinned = 0 AND ` + retentionClock + ` < ?
ORDER BY ` + retentionClock + ` ASC, source_updated_at ASC, thread_id ASC LIMIT ?`
	var ids []string
	collect := func(q interface {
		QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	}) error {
		rows, err := q.QueryContext(ctx, pick, cutoff, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return rows.Err()
	}
	if dryRun {
		return ids, collect(s.db)
	}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		ids = ids[:0]
		if err := collect(tx); err != nil {
			return err
		}
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, `DELETE FROM stage1_outputs WHERE thread_id = ?`, id); err != nil {
				return err
			}
			if err := unindexThreadTx(ctx, tx, id); err != nil {
				return err
			}
		}
		return nil
	})
	return ids, err
}

// Clear empties the memory state (Codex section 11): every raw memory, both
// job kinds, the progress mark, the baseline, the search index, the
// generations with their contents, the forgotten list and the open
// consolidation requests. Thread memory modes are kept, and so is the
// record of tokens spent and of stage runs, which describes the past
// rather than holding memory.
func (s *Store) Clear(ctx context.Context) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		for _, q := range []string{
			`UPDATE consolidation_progress SET max_thread_count = 0`,
			`DELETE FROM stage1_outputs`,
			`DELETE FROM jobs WHERE kind IN ('` + KindStage1 + `', '` + KindConsolidate + `')`,
			`DELETE FROM baseline_files`,
			`DELETE FROM baseline_meta`,
			`DELETE FROM search_docs`,
			`DELETE FROM generation_landing`,
			`DELETE FROM generations`, // cascades to files and inputs
			`DELETE FROM generation_files`,
			`DELETE FROM generation_inputs`,
			`DELETE FROM generation_blobs`,
			`DELETE FROM forgotten_memories`,
			`DELETE FROM consolidation_requests`,
			// The next extraction is a first run again.
			`DELETE FROM first_run`,
			// A cleared home is a new machine to the sync log: the next
			// sync takes in what the log holds (docs/sync.md).
			`DELETE FROM sync_memories`,
			`DELETE FROM sync_notes`,
			// Generation ids start again at 1 after a clear.
			`DELETE FROM sqlite_sequence WHERE name IN ('generations', 'consolidation_requests')`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return s.dropBackup()
}

// AllOutputs lists every stored raw memory, by thread id.
func (s *Store) AllOutputs(ctx context.Context) ([]Output, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+outputColumns+` FROM stage1_outputs ORDER BY thread_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Output
	for rows.Next() {
		o, err := scanOutput(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

func itoa(n int) string { return strconv.Itoa(n) }
