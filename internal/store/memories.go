package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/origin"
)

// A raw memory is one row of stage1_outputs, named by its thread's id
// (one thread, one raw memory). This file is the per-memory control
// surface of `memctl memories`: list, show, pin, edit and forget.

// ErrAmbiguous is returned (wrapped in *AmbiguousError) by ResolveMemory
// when an id prefix names more than one raw memory.
var ErrAmbiguous = errors.New("ambiguous id prefix")

// AmbiguousError says which raw memories an id prefix matches.
type AmbiguousError struct {
	Prefix     string
	Candidates []string // at most 10, sorted
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%v %q: it matches %s", ErrAmbiguous, e.Prefix, strings.Join(e.Candidates, ", "))
}

func (e *AmbiguousError) Unwrap() error { return ErrAmbiguous }

// MinIDPrefix is the shortest id prefix ResolveMemory accepts.
const MinIDPrefix = 4

// Memory is a raw memory with its controls and its thread's context.
type Memory struct {
	Output
	Pinned bool `json:"pinned"`
	// EditedAt is set when the user replaced the text (memories edit):
	// the memory is then user-asserted.
	EditedAt   *time.Time `json:"edited_at"`
	Cwd        string     `json:"cwd"`
	Source     string     `json:"source"`
	Preview    string     `json:"preview"`
	MemoryMode string     `json:"memory_mode"`
	// From is the way the memory came into this home.
	From origin.Origin `json:"origin"`
}

// UserAsserted reports whether the user wrote the memory's current text.
func (m Memory) UserAsserted() bool { return m.EditedAt != nil }

// MemoryFilter narrows Memories.
type MemoryFilter struct {
	PinnedOnly bool
	EditedOnly bool
	Limit      int // 0: all
}

const memoryColumns = `o.thread_id, o.source_updated_at, o.raw_memory, o.rollout_summary, o.rollout_slug, o.generated_at,
    COALESCE(o.usage_count, 0), o.last_usage, o.selected_for_phase2, o.selected_for_phase2_source_updated_at,
    o.pinned, o.edited_at, COALESCE(t.cwd, ''), COALESCE(t.source, ''), COALESCE(t.preview, ''), COALESCE(t.memory_mode, ''),
    o.origin, o.origin_detail`

func scanMemory(r scanner) (Memory, error) {
	var m Memory
	var slug sql.NullString
	var last, selAt, edited sql.NullInt64
	err := r.Scan(&m.ThreadID, &m.SourceUpdatedAt, &m.RawMemory, &m.RolloutSummary, &slug, &m.GeneratedAt,
		&m.UsageCount, &last, &m.SelectedForPhase2, &selAt, &m.Pinned, &edited, &m.Cwd, &m.Source, &m.Preview, &m.MemoryMode,
		&m.From.Kind, &m.From.Detail)
	if slug.Valid {
		m.RolloutSlug = &slug.String
	}
	m.LastUsage = unixTime(nullInt(last))
	m.SelectedForPhase2SourceUpdateAt = nullInt(selAt)
	m.EditedAt = unixTime(nullInt(edited))
	return m, err
}

// Memories lists raw memories in the order Phase 2 ranks them: pinned
// first, then by uses, last use or update, update and id.
func (s *Store) Memories(ctx context.Context, f MemoryFilter) ([]Memory, error) {
	q := `SELECT ` + memoryColumns + ` FROM stage1_outputs o LEFT JOIN threads t ON t.id = o.thread_id WHERE 1 = 1`
	if f.PinnedOnly {
		q += ` AND o.pinned <> 0`
	}
	if f.EditedOnly {
		q += ` AND o.edited_at IS NOT NULL`
	}
	q += ` ORDER BY o.pinned DESC, COALESCE(o.usage_count, 0) DESC, COALESCE(o.last_usage, o.source_updated_at) DESC,
         o.source_updated_at DESC, o.thread_id DESC`
	if f.Limit > 0 {
		q += ` LIMIT ` + itoa(f.Limit)
	}
	rows, err := s.db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Memory
	for rows.Next() {
		m, err := scanMemory(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// Memory returns one raw memory by its full id, or ErrNotFound.
func (s *Store) Memory(ctx context.Context, id string) (Memory, error) {
	m, err := scanMemory(s.db.QueryRowContext(ctx, `SELECT `+memoryColumns+`
FROM stage1_outputs o LEFT JOIN threads t ON t.id = o.thread_id WHERE o.thread_id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return m, ErrNotFound
	}
	return m, err
}

// ResolveMemory turns a full id or a unique prefix of at least
// MinIDPrefix characters into the id of a stored raw memory. It returns
// ErrNotFound when nothing matches and an *AmbiguousError when several do.
func (s *Store) ResolveMemory(ctx context.Context, idOrPrefix string) (string, error) {
	var id string
	err := s.db.QueryRowContext(ctx, `SELECT thread_id FROM stage1_outputs WHERE thread_id = ?`, idOrPrefix).Scan(&id)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", err
	}
	if len(idOrPrefix) < MinIDPrefix {
		return "", ErrNotFound
	}
	rows, err := s.db.QueryContext(ctx, `SELECT thread_id FROM stage1_outputs WHERE thread_id LIKE ? ESCAPE '\' ORDER BY thread_id LIMIT 11`, likePrefix(idOrPrefix))
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var found []string
	for rows.Next() {
		if err := rows.Scan(&id); err != nil {
			return "", err
		}
		found = append(found, id)
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	switch len(found) {
	case 0:
		return "", ErrNotFound
	case 1:
		return found[0], nil
	}
	if len(found) > 10 {
		found = found[:10]
	}
	return "", &AmbiguousError{Prefix: idOrPrefix, Candidates: found}
}

// SetPinned pins or unpins a raw memory and reports whether that changed
// anything. Pinning asks the next consolidation to run inside the cooldown,
// so the memory is selected without waiting; ErrNotFound when there is no
// such memory.
func (s *Store) SetPinned(ctx context.Context, id string, pinned bool) (bool, error) {
	changed := false
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var cur bool
		err := tx.QueryRowContext(ctx, `SELECT pinned <> 0 FROM stage1_outputs WHERE thread_id = ?`, id).Scan(&cur)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil || cur == pinned {
			return err
		}
		changed = true
		if _, err := tx.ExecContext(ctx, `UPDATE stage1_outputs SET pinned = ? WHERE thread_id = ?`, pinned, id); err != nil {
			return err
		}
		verb := "unpin"
		if pinned {
			verb = "pin"
		}
		return requestTx(ctx, tx, verb+" "+id, false, s.now().Unix())
	})
	return changed, err
}

// MemoryEdit is the new text of a raw memory; a nil field is kept.
type MemoryEdit struct {
	RawMemory      *string
	RolloutSummary *string
}

// EditMemory replaces a raw memory's text with the user's and marks it
// user-asserted (edited_at): the search index follows in the same
// transaction, a later extraction of the thread leaves the text alone, and
// the next consolidation runs inside the cooldown to take it in.
// ErrNotFound when there is no such memory.
func (s *Store) EditMemory(ctx context.Context, id string, e MemoryEdit) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		now := s.now().Unix()
		res, err := tx.ExecContext(ctx, `UPDATE stage1_outputs SET raw_memory = COALESCE(?, raw_memory),
    rollout_summary = COALESCE(?, rollout_summary), edited_at = ?, origin = 'user', origin_detail = '' WHERE thread_id = ?`,
			nullString(e.RawMemory), nullString(e.RolloutSummary), now, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		if err := indexOutputTx(ctx, tx, id); err != nil {
			return err
		}
		return requestTx(ctx, tx, "edit "+id, false, now)
	})
}

func nullString(p *string) sql.NullString {
	if p == nil {
		return sql.NullString{}
	}
	return sql.NullString{String: *p, Valid: true}
}

// ForgetMemory forgets a raw memory for good: its thread is disabled (so it
// is not extracted again) and its preview blanked, the memory, its Phase 1
// job and its search documents (its own and its rollout summary file's)
// are deleted, every kept generation that may hold text of it is purged
// with the baseline and indexed files it left (see purgeDerivedTx), a
// tombstone records when, and the next consolidation is asked to run and
// regenerate the memory folder without it, cooldown or not. Deleted text
// is overwritten in the file (secure_delete); Scrub also clears what older
// deletions left. ErrNotFound when there is neither such a thread nor such
// a memory.
func (s *Store) ForgetMemory(ctx context.Context, id string) error {
	if err := s.tx(ctx, func(tx *sql.Tx) error { return forgetTx(ctx, tx, id, s.now().Unix()) }); err != nil {
		return err
	}
	return s.dropBackup()
}

func forgetTx(ctx context.Context, tx *sql.Tx, id string, now int64) error {
	// Whether a consolidation ever selected the memory: history older than
	// the kept generations may then hold its text. Without a memory (never
	// extracted, or pruned) only the kept history can tell.
	var consolidations int64
	err := tx.QueryRowContext(ctx, `SELECT consolidations FROM stage1_outputs WHERE thread_id = ?`, id).Scan(&consolidations)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	res, err := tx.ExecContext(ctx, `UPDATE threads SET memory_mode = 'disabled', mode_set_by_user = 1 WHERE id = ?`, id)
	if err != nil {
		return err
	}
	threadRows, _ := res.RowsAffected()
	res, err = tx.ExecContext(ctx, `DELETE FROM stage1_outputs WHERE thread_id = ?`, id)
	if err != nil {
		return err
	}
	outputRows, _ := res.RowsAffected()
	if threadRows == 0 && outputRows == 0 {
		return ErrNotFound
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM jobs WHERE kind = ? AND job_key = ?`, KindStage1, id); err != nil {
		return err
	}
	if err := unindexThreadTx(ctx, tx, id); err != nil {
		return err
	}
	// The folder's copy of its rollout summary is indexed as a file until
	// the next consolidation removes it; search must not find it meanwhile.
	if _, err := tx.ExecContext(ctx, `DELETE FROM search_docs WHERE kind = 'file' AND path LIKE 'rollout_summaries/%'
  AND substr(body, 1, ?) = ?`, len("thread_id: "+id+"\n"), "thread_id: "+id+"\n"); err != nil {
		return err
	}
	if err := purgeDerivedTx(ctx, tx, id, consolidations > 0, now); err != nil {
		return err
	}
	if outputRows == 0 {
		return nil // a thread without a memory: nothing to take out of the folder
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO forgotten_memories (thread_id, forgotten_at) VALUES (?, ?)
ON CONFLICT (thread_id) DO UPDATE SET forgotten_at = excluded.forgotten_at`, id, now); err != nil {
		return err
	}
	if err := enqueueGlobalTx(ctx, tx, now); err != nil {
		return err
	}
	return requestTx(ctx, tx, "forget "+id, true, now)
}

// Forgotten lists the forgotten memories among ids (all when ids is nil),
// with when each was forgotten.
func (s *Store) Forgotten(ctx context.Context, ids []string) (map[string]time.Time, error) {
	q := `SELECT thread_id, forgotten_at FROM forgotten_memories`
	var args []any
	if ids != nil {
		if len(ids) == 0 {
			return map[string]time.Time{}, nil
		}
		q += ` WHERE thread_id IN (` + placeholders(len(ids)) + `)`
		for _, id := range ids {
			args = append(args, id)
		}
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var id string
		var at int64
		if err := rows.Scan(&id, &at); err != nil {
			return nil, err
		}
		out[id] = time.Unix(at, 0).UTC()
	}
	return out, rows.Err()
}

func placeholders(n int) string {
	if n <= 0 {
		return ""
	}
	return strings.Repeat("?,", n-1) + "?"
}

// ConsolidationRequest is a reason the next consolidation runs inside the
// cooldown (pin, edit, forget); Regenerate also makes it call the
// consolidator when the folder's inputs look unchanged.
type ConsolidationRequest struct {
	ID          int64     `json:"id"`
	Reason      string    `json:"reason"`
	Regenerate  bool      `json:"regenerate"`
	RequestedAt time.Time `json:"requested_at"`
}

// RequestConsolidation records a reason for the next consolidation to run
// inside the cooldown; regenerate also skips the no-change shortcut.
func (s *Store) RequestConsolidation(ctx context.Context, reason string, regenerate bool) error {
	return s.tx(ctx, func(tx *sql.Tx) error { return requestTx(ctx, tx, reason, regenerate, s.now().Unix()) })
}

func requestTx(ctx context.Context, tx *sql.Tx, reason string, regenerate bool, now int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO consolidation_requests (reason, regenerate, requested_at) VALUES (?, ?, ?)`, reason, regenerate, now)
	return err
}

// ConsolidationRequests lists the open requests, oldest first.
func (s *Store) ConsolidationRequests(ctx context.Context) ([]ConsolidationRequest, error) {
	return consolidationRequests(ctx, s.db)
}

type querier interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}

func consolidationRequests(ctx context.Context, q querier) ([]ConsolidationRequest, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, reason, regenerate, requested_at FROM consolidation_requests ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ConsolidationRequest
	for rows.Next() {
		var r ConsolidationRequest
		var at int64
		if err := rows.Scan(&r.ID, &r.Reason, &r.Regenerate, &at); err != nil {
			return nil, err
		}
		r.RequestedAt = time.Unix(at, 0).UTC()
		out = append(out, r)
	}
	return out, rows.Err()
}

// clearRequestsTx deletes the requests a consolidation saw (id <= upTo).
func clearRequestsTx(ctx context.Context, tx *sql.Tx, upTo int64) error {
	if upTo <= 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM consolidation_requests WHERE id <= ?`, upTo)
	return err
}
