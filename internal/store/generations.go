package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// A generation is one state of the memory folder that a consolidation (or
// a rollback) produced: its files, the raw memories it selected and the
// workspace diff it worked from. Generations are kept newest first up to
// a bound; the newest approved one is what the folder holds, a pending
// one waits for review, a rejected one never landed.

// Generation states.
const (
	GenerationApproved = "approved"
	GenerationPending  = "pending"
	GenerationRejected = "rejected"
)

// Generation kinds.
const (
	GenerationConsolidation = "consolidation"
	GenerationRollback      = "rollback"
)

// Landing actions (the generation_landing journal).
const (
	LandApprove  = "approve"
	LandRollback = "rollback"
)

// DefaultKeepGenerations is how many generations are kept when the caller
// passes no bound (consolidation.keep_generations).
const DefaultKeepGenerations = 20

// ErrNotPending is returned by RejectGeneration and LandGeneration when the
// generation to settle is not waiting for review.
var ErrNotPending = errors.New("generation is not pending review")

// ErrPending is returned by PendGlobal when another generation already
// waits for review.
var ErrPending = errors.New("a generation is already pending review")

// Generation describes one generation.
type Generation struct {
	ID           int64      `json:"id"`
	CreatedAt    time.Time  `json:"created_at"`
	State        string     `json:"state"`
	Kind         string     `json:"kind"`
	ParentID     int64      `json:"parent_id,omitempty"`
	RestoredFrom int64      `json:"restored_from,omitempty"`
	Mode         string     `json:"mode"`
	Provider     string     `json:"provider,omitempty"`
	Model        string     `json:"model,omitempty"`
	Selected     int        `json:"selected"`
	InputTokens  int64      `json:"input_tokens"`
	OutputTokens int64      `json:"output_tokens"`
	TotalTokens  int64      `json:"total_tokens"`
	Added        int        `json:"added"`
	Modified     int        `json:"modified"`
	Deleted      int        `json:"deleted"`
	Watermark    int64      `json:"watermark"`
	SettledAt    *time.Time `json:"settled_at"`
	// PurgedAt is set when forgetting a memory it may hold text of took its
	// files, inputs and diff: it can no longer be restored.
	PurgedAt *time.Time `json:"purged_at"`
	// Current is set on the newest approved generation: what the folder holds.
	Current bool `json:"current"`
}

// GenerationInput is one raw memory a generation selected, as it was then.
type GenerationInput struct {
	ThreadID        string `json:"thread_id"`
	SourceUpdatedAt int64  `json:"source_updated_at"`
	RawMemory       string `json:"raw_memory"`
	RolloutSummary  string `json:"rollout_summary"`
	Pinned          bool   `json:"pinned"`
	UserAsserted    bool   `json:"user_asserted"`
}

// NewGeneration is what a consolidation records. Of the metadata, Kind,
// Mode, Provider, Model, Selected, the token counts and Watermark are
// taken; the id, state, parent, times and change counts are the store's.
type NewGeneration struct {
	Generation
	Files         []BaselineFile
	Inputs        []GenerationInput
	WorkspaceDiff string
}

// GlobalCommit lands a successful consolidation in one transaction: the
// job is marked done, the selection marks and the progress mark are
// rewritten, the requests the claim saw are deleted and, when set, the
// baseline is replaced and a generation recorded as approved (and the
// history trimmed to Keep).
type GlobalCommit struct {
	Token        string
	Watermark    int64
	Selected     []Snapshot
	RequestsUpTo int64
	// Baseline replaces the stored baseline when non-nil.
	Baseline   []BaselineFile
	Generation *NewGeneration
	Keep       int
	// LeftMemoryEmpty: the run had nothing to consolidate (no raw memory,
	// no note, no extension resource), so the memory it leaves is empty.
	// Its success starts no cooldown: nothing was made that a new raw
	// memory would churn, and the first one should reach the summary at
	// once.
	LeftMemoryEmpty bool
}

// CommitGlobal applies c; owned is false (and nothing changes) when the
// token no longer holds the lock. id is the recorded generation, or 0.
func (s *Store) CommitGlobal(ctx context.Context, c GlobalCommit) (owned bool, id int64, err error) {
	err = s.tx(ctx, func(tx *sql.Tx) error {
		owned, id = false, 0
		now := s.now().Unix()
		ok, err := finishGlobalTx(ctx, tx, c.Token, c.Watermark, c.LeftMemoryEmpty, now)
		if err != nil || !ok {
			return err
		}
		owned = true
		if err := markSelectionTx(ctx, tx, c.Selected); err != nil {
			return err
		}
		if err := clearRequestsTx(ctx, tx, c.RequestsUpTo); err != nil {
			return err
		}
		if c.Baseline != nil {
			if err := saveBaselineTx(ctx, tx, c.Baseline, now); err != nil {
				return err
			}
		}
		if c.Generation == nil {
			return nil
		}
		if id, err = insertGenerationTx(ctx, tx, c.Generation, GenerationApproved, now); err != nil {
			return err
		}
		return trimGenerationsTx(ctx, tx, c.Keep)
	})
	return owned, id, err
}

// finishGlobalTx marks the owned running Phase 2 job done (Codex 3.9),
// and whether the memory it left is empty (no cooldown then).
func finishGlobalTx(ctx context.Context, tx *sql.Tx, token string, watermark int64, leftEmpty bool, now int64) (bool, error) {
	res, err := tx.ExecContext(ctx, `
UPDATE jobs SET status = 'done', finished_at = ?, lease_until = NULL, last_error = NULL,
       last_success_watermark = MAX(COALESCE(last_success_watermark, 0), ?), left_memory_empty = ?
WHERE kind = ? AND job_key = ? AND status = 'running' AND ownership_token = ?`, now, watermark, leftEmpty, KindConsolidate, GlobalKey, token)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// markSelectionTx marks exactly the selected snapshots (a row refreshed
// meanwhile stays unselected) and raises the progress high-water mark.
func markSelectionTx(ctx context.Context, tx *sql.Tx, selected []Snapshot) error {
	if _, err := tx.ExecContext(ctx, `UPDATE stage1_outputs SET selected_for_phase2 = 0, selected_for_phase2_source_updated_at = NULL WHERE selected_for_phase2 <> 0 OR selected_for_phase2_source_updated_at IS NOT NULL`); err != nil {
		return err
	}
	for _, sel := range selected {
		// consolidations counts the successful runs that selected the
		// memory, for memctl doctor's "never cited" finding.
		if _, err := tx.ExecContext(ctx, `UPDATE stage1_outputs SET selected_for_phase2 = 1, selected_for_phase2_source_updated_at = source_updated_at,
    consolidations = consolidations + 1 WHERE thread_id = ? AND source_updated_at = ?`,
			sel.ThreadID, sel.SourceUpdatedAt); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, `UPDATE consolidation_progress SET max_thread_count = MAX(max_thread_count, ?) WHERE singleton = 1`, len(selected))
	return err
}

func saveBaselineTx(ctx context.Context, tx *sql.Tx, files []BaselineFile, now int64) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM baseline_files`); err != nil {
		return err
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO baseline_files (path, mode, content) VALUES (?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, f := range files {
		content := f.Content
		if content == nil {
			content = []byte{}
		}
		if _, err := stmt.ExecContext(ctx, f.Path, f.Mode, content); err != nil {
			return err
		}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO baseline_meta (singleton, created_at) VALUES (1, ?)
ON CONFLICT (singleton) DO UPDATE SET created_at = excluded.created_at`, now)
	return err
}

func hashOf(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// putBlobTx stores content once and returns its hash.
func putBlobTx(ctx context.Context, tx *sql.Tx, content []byte) (string, error) {
	if content == nil {
		content = []byte{}
	}
	h := hashOf(content)
	_, err := tx.ExecContext(ctx, `INSERT INTO generation_blobs (hash, content) VALUES (?, ?) ON CONFLICT (hash) DO NOTHING`, h, content)
	return h, err
}

// currentGenerationTx is the newest approved generation's id, or 0.
func currentGenerationTx(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int64, error) {
	var id sql.NullInt64
	err := q.QueryRowContext(ctx, `SELECT MAX(id) FROM generations WHERE state = ?`, GenerationApproved).Scan(&id)
	return id.Int64, err
}

// insertGenerationTx records g with its files, inputs and diff, built on
// the current generation, and counts the files it adds, changes and
// deletes relative to it.
func insertGenerationTx(ctx context.Context, tx *sql.Tx, g *NewGeneration, state string, now int64) (int64, error) {
	parent, err := currentGenerationTx(ctx, tx)
	if err != nil {
		return 0, err
	}
	var diffHash sql.NullString
	if g.WorkspaceDiff != "" {
		h, err := putBlobTx(ctx, tx, []byte(g.WorkspaceDiff))
		if err != nil {
			return 0, err
		}
		diffHash = sql.NullString{String: h, Valid: true}
	}
	kind := g.Kind
	if kind == "" {
		kind = GenerationConsolidation
	}
	var settled sql.NullInt64
	if state != GenerationPending {
		settled = sql.NullInt64{Int64: now, Valid: true}
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO generations (created_at, state, kind, parent_id, restored_from, mode, provider, model,
    selected, input_tokens, output_tokens, total_tokens, watermark, workspace_diff, settled_at)
VALUES (?, ?, ?, NULLIF(?, 0), NULLIF(?, 0), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		now, state, kind, parent, g.RestoredFrom, g.Mode, g.Provider, g.Model, g.Selected,
		g.InputTokens, g.OutputTokens, g.TotalTokens, g.Watermark, diffHash, settled)
	if err != nil {
		return 0, err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	fileStmt, err := tx.PrepareContext(ctx, `INSERT INTO generation_files (generation_id, path, mode, blob) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return 0, err
	}
	defer fileStmt.Close()
	for _, f := range g.Files {
		h, err := putBlobTx(ctx, tx, f.Content)
		if err != nil {
			return 0, err
		}
		if _, err := fileStmt.ExecContext(ctx, id, f.Path, f.Mode, h); err != nil {
			return 0, fmt.Errorf("generation file %s: %w", f.Path, err)
		}
	}
	inStmt, err := tx.PrepareContext(ctx, `INSERT INTO generation_inputs (generation_id, thread_id, source_updated_at, raw_memory,
    rollout_summary, pinned, user_asserted) VALUES (?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return 0, err
	}
	defer inStmt.Close()
	for _, in := range g.Inputs {
		raw, err := putBlobTx(ctx, tx, []byte(in.RawMemory))
		if err != nil {
			return 0, err
		}
		sum, err := putBlobTx(ctx, tx, []byte(in.RolloutSummary))
		if err != nil {
			return 0, err
		}
		if _, err := inStmt.ExecContext(ctx, id, in.ThreadID, in.SourceUpdatedAt, raw, sum, in.Pinned, in.UserAsserted); err != nil {
			return 0, fmt.Errorf("generation input %s: %w", in.ThreadID, err)
		}
	}
	return id, countChangesTx(ctx, tx, id, parent)
}

// countChangesTx stores how many files generation id adds, modifies and
// deletes relative to parent (everything is added when parent is 0).
func countChangesTx(ctx context.Context, tx *sql.Tx, id, parent int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE generations SET
  added = (SELECT COUNT(*) FROM generation_files n WHERE n.generation_id = ?1
           AND NOT EXISTS (SELECT 1 FROM generation_files o WHERE o.generation_id = ?2 AND o.path = n.path)),
  modified = (SELECT COUNT(*) FROM generation_files n JOIN generation_files o ON o.path = n.path AND o.generation_id = ?2
              WHERE n.generation_id = ?1 AND (o.blob <> n.blob OR o.mode <> n.mode)),
  deleted = (SELECT COUNT(*) FROM generation_files o WHERE o.generation_id = ?2
             AND NOT EXISTS (SELECT 1 FROM generation_files n WHERE n.generation_id = ?1 AND n.path = o.path))
WHERE id = ?1`, id, parent)
	return err
}

// trimGenerationsTx keeps the newest keep generations (never the pending
// one, the current one or one being landed) and drops the contents no
// remaining generation refers to.
func trimGenerationsTx(ctx context.Context, tx *sql.Tx, keep int) error {
	if keep <= 0 {
		keep = DefaultKeepGenerations
	}
	current, err := currentGenerationTx(ctx, tx)
	if err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM generations WHERE id NOT IN (SELECT id FROM generations ORDER BY id DESC LIMIT ?)
  AND state <> ? AND id <> ? AND id NOT IN (SELECT generation_id FROM generation_landing)`, keep, GenerationPending, current)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	// foreign_keys(1) cascades the files and inputs; blobs are shared.
	return dropUnusedBlobsTx(ctx, tx)
}

// dropUnusedBlobsTx deletes the contents no generation refers to.
func dropUnusedBlobsTx(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM generation_blobs WHERE
      NOT EXISTS (SELECT 1 FROM generation_files f WHERE f.blob = generation_blobs.hash)
  AND NOT EXISTS (SELECT 1 FROM generation_inputs i WHERE i.raw_memory = generation_blobs.hash)
  AND NOT EXISTS (SELECT 1 FROM generation_inputs i WHERE i.rollout_summary = generation_blobs.hash)
  AND NOT EXISTS (SELECT 1 FROM generations g WHERE g.workspace_diff = generation_blobs.hash)`)
	return err
}

// GlobalPend is a consolidation's result waiting for review.
type GlobalPend struct {
	Token      string
	Generation NewGeneration
	// RequestsUpTo is the newest consolidation request the run saw; the
	// approval deletes those.
	RequestsUpTo int64
	Keep         int
}

// PendGlobal records a consolidation's result as a generation pending
// review and gives the lock back without marking the job done: nothing
// else (baseline, selection marks, requests) changes until it is approved.
// owned is false when the token no longer holds the lock; ErrPending when
// another generation already waits.
func (s *Store) PendGlobal(ctx context.Context, p GlobalPend) (owned bool, id int64, err error) {
	err = s.tx(ctx, func(tx *sql.Tx) error {
		owned, id = false, 0
		if ok, err := holdsGlobalTx(ctx, tx, p.Token); err != nil || !ok {
			return err
		}
		owned = true
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM generations WHERE state = ?`, GenerationPending).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return ErrPending
		}
		now := s.now().Unix()
		if id, err = insertGenerationTx(ctx, tx, &p.Generation, GenerationPending, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE generations SET requests_up_to = ? WHERE id = ?`, p.RequestsUpTo, id); err != nil {
			return err
		}
		if err := releaseGlobalTx(ctx, tx, p.Token); err != nil {
			return err
		}
		return trimGenerationsTx(ctx, tx, p.Keep)
	})
	return owned, id, err
}

// ReleaseGlobal gives back the Phase 2 lock held by token without marking
// success or failure (an approve or rollback that stopped before writing,
// a run that stopped at review): the job is pending again, with no
// cooldown and no backoff.
func (s *Store) ReleaseGlobal(ctx context.Context, token string) error {
	return s.tx(ctx, func(tx *sql.Tx) error { return releaseGlobalTx(ctx, tx, token) })
}

// holdsGlobalTx reports whether token holds the Phase 2 lock: the global
// consolidation job runs under it.
func holdsGlobalTx(ctx context.Context, tx *sql.Tx, token string) (bool, error) {
	var n int
	err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM jobs WHERE kind = ? AND job_key = ? AND status = 'running' AND ownership_token = ?`,
		KindConsolidate, GlobalKey, token).Scan(&n)
	return err == nil && n > 0, err
}

func releaseGlobalTx(ctx context.Context, tx *sql.Tx, token string) error {
	_, err := tx.ExecContext(ctx, `UPDATE jobs SET status = 'pending', lease_until = NULL, finished_at = NULL
WHERE kind = ? AND job_key = ? AND status = 'running' AND ownership_token = ?`, KindConsolidate, GlobalKey, token)
	return err
}

const generationColumns = `id, created_at, state, kind, COALESCE(parent_id, 0), COALESCE(restored_from, 0), mode, provider, model,
    selected, input_tokens, output_tokens, total_tokens, added, modified, deleted, watermark, settled_at, purged_at`

func scanGeneration(r scanner) (Generation, error) {
	var g Generation
	var created int64
	var settled, purged sql.NullInt64
	err := r.Scan(&g.ID, &created, &g.State, &g.Kind, &g.ParentID, &g.RestoredFrom, &g.Mode, &g.Provider, &g.Model,
		&g.Selected, &g.InputTokens, &g.OutputTokens, &g.TotalTokens, &g.Added, &g.Modified, &g.Deleted, &g.Watermark, &settled, &purged)
	g.CreatedAt = time.Unix(created, 0).UTC()
	g.SettledAt = unixTime(nullInt(settled))
	g.PurgedAt = unixTime(nullInt(purged))
	return g, err
}

// Generations lists the kept generations, newest first (at most limit
// when limit > 0), with Current set on the newest approved one.
func (s *Store) Generations(ctx context.Context, limit int) ([]Generation, error) {
	q := `SELECT ` + generationColumns + ` FROM generations ORDER BY id DESC`
	if limit > 0 {
		q += ` LIMIT ` + itoa(limit)
	}
	current, err := currentGenerationTx(ctx, s.db)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Generation
	for rows.Next() {
		g, err := scanGeneration(rows)
		if err != nil {
			return nil, err
		}
		g.Current = g.ID == current
		out = append(out, g)
	}
	return out, rows.Err()
}

// Generation returns one kept generation, or ErrNotFound.
func (s *Store) Generation(ctx context.Context, id int64) (Generation, error) {
	g, err := scanGeneration(s.db.QueryRowContext(ctx, `SELECT `+generationColumns+` FROM generations WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return g, ErrNotFound
	}
	if err != nil {
		return g, err
	}
	current, err := currentGenerationTx(ctx, s.db)
	g.Current = g.ID == current
	return g, err
}

// PendingGeneration returns the generation waiting for review; ok is false
// when there is none.
func (s *Store) PendingGeneration(ctx context.Context) (g Generation, ok bool, err error) {
	g, err = scanGeneration(s.db.QueryRowContext(ctx, `SELECT `+generationColumns+` FROM generations WHERE state = ? ORDER BY id DESC LIMIT 1`, GenerationPending))
	if errors.Is(err, sql.ErrNoRows) {
		return Generation{}, false, nil
	}
	return g, err == nil, err
}

// CurrentGeneration returns the newest approved generation (what the
// folder holds); ok is false before the first one.
func (s *Store) CurrentGeneration(ctx context.Context) (Generation, bool, error) {
	id, err := currentGenerationTx(ctx, s.db)
	if err != nil || id == 0 {
		return Generation{}, false, err
	}
	g, err := s.Generation(ctx, id)
	return g, err == nil, err
}

// GenerationFiles returns a generation's files with their contents, by path.
func (s *Store) GenerationFiles(ctx context.Context, id int64) ([]BaselineFile, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT f.path, f.mode, b.content FROM generation_files f
JOIN generation_blobs b ON b.hash = f.blob WHERE f.generation_id = ? ORDER BY f.path`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []BaselineFile
	for rows.Next() {
		var f BaselineFile
		if err := rows.Scan(&f.Path, &f.Mode, &f.Content); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// GenerationInputs returns the raw memories a generation selected, by id.
func (s *Store) GenerationInputs(ctx context.Context, id int64) ([]GenerationInput, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT i.thread_id, i.source_updated_at, r.content, m.content, i.pinned, i.user_asserted
FROM generation_inputs i JOIN generation_blobs r ON r.hash = i.raw_memory JOIN generation_blobs m ON m.hash = i.rollout_summary
WHERE i.generation_id = ? ORDER BY i.thread_id`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []GenerationInput
	for rows.Next() {
		var in GenerationInput
		var raw, sum []byte
		if err := rows.Scan(&in.ThreadID, &in.SourceUpdatedAt, &raw, &sum, &in.Pinned, &in.UserAsserted); err != nil {
			return nil, err
		}
		in.RawMemory, in.RolloutSummary = string(raw), string(sum)
		out = append(out, in)
	}
	return out, rows.Err()
}

// GenerationWorkspaceDiff returns the phase2_workspace_diff.md a
// generation's consolidator worked from ("" for a rollback).
func (s *Store) GenerationWorkspaceDiff(ctx context.Context, id int64) (string, error) {
	var b []byte
	err := s.db.QueryRowContext(ctx, `SELECT COALESCE(b.content, '') FROM generations g LEFT JOIN generation_blobs b ON b.hash = g.workspace_diff
WHERE g.id = ?`, id).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	return string(b), err
}

// RejectGeneration settles a pending generation as rejected: nothing else
// changes. ErrNotFound when it is not kept, ErrNotPending when it is not
// waiting for review.
func (s *Store) RejectGeneration(ctx context.Context, id int64) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		var state string
		err := tx.QueryRowContext(ctx, `SELECT state FROM generations WHERE id = ?`, id).Scan(&state)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if state != GenerationPending {
			return fmt.Errorf("%w: generation %d is %s", ErrNotPending, id, state)
		}
		_, err = tx.ExecContext(ctx, `UPDATE generations SET state = ?, settled_at = ? WHERE id = ?`, GenerationRejected, s.now().Unix(), id)
		return err
	})
}

// RejectedProposal returns the newest rejected generation that was built
// on the current generation from exactly workspaceDiff (the same inputs on
// the same folder); ok is false when there is none.
func (s *Store) RejectedProposal(ctx context.Context, workspaceDiff string) (id int64, ok bool, err error) {
	current, err := currentGenerationTx(ctx, s.db)
	if err != nil {
		return 0, false, err
	}
	err = s.db.QueryRowContext(ctx, `SELECT id FROM generations WHERE state = ? AND workspace_diff = ? AND COALESCE(parent_id, 0) = ?
ORDER BY id DESC LIMIT 1`, GenerationRejected, hashOf([]byte(workspaceDiff)), current).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return id, err == nil, err
}

// Landing is an approve or rollback that started writing the memory
// folder and has not recorded its result yet.
type Landing struct {
	Action       string    `json:"action"`
	GenerationID int64     `json:"generation_id"`
	StartedAt    time.Time `json:"started_at"`
}

// BeginLanding records, before the first file is written, that token's
// holder is writing generation id into the folder (action approve or
// rollback). owned is false when the token does not hold the lock.
func (s *Store) BeginLanding(ctx context.Context, token, action string, id int64) (owned bool, err error) {
	err = s.tx(ctx, func(tx *sql.Tx) error {
		owned = false
		if ok, err := holdsGlobalTx(ctx, tx, token); err != nil || !ok {
			return err
		}
		owned = true
		_, err := tx.ExecContext(ctx, `INSERT INTO generation_landing (singleton, action, generation_id, started_at) VALUES (1, ?, ?, ?)
ON CONFLICT (singleton) DO UPDATE SET action = excluded.action, generation_id = excluded.generation_id, started_at = excluded.started_at`,
			action, id, s.now().Unix())
		return err
	})
	return owned, err
}

// CancelLanding drops the landing journal of token's holder, after a
// landing that failed and put the folder back as it was.
func (s *Store) CancelLanding(ctx context.Context, token string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM generation_landing WHERE EXISTS (SELECT 1 FROM jobs
WHERE kind = ? AND job_key = ? AND status = 'running' AND ownership_token = ?)`, KindConsolidate, GlobalKey, token)
		return err
	})
}

// UnfinishedLanding returns the landing a crash interrupted; ok is false
// when there is none.
func (s *Store) UnfinishedLanding(ctx context.Context) (l Landing, ok bool, err error) {
	var at int64
	err = s.db.QueryRowContext(ctx, `SELECT action, generation_id, started_at FROM generation_landing WHERE singleton = 1`).Scan(&l.Action, &l.GenerationID, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return Landing{}, false, nil
	}
	l.StartedAt = time.Unix(at, 0).UTC()
	return l, err == nil, err
}

// Land records that the folder now holds a generation's files.
type Land struct {
	Token string
	// Action is LandApprove (GenerationID must be pending; it becomes
	// approved) or LandRollback (a new generation restoring GenerationID
	// is recorded).
	Action       string
	GenerationID int64
	Keep         int
}

// LandGeneration finishes an approve or a rollback in one transaction: the
// baseline becomes the generation's files, the selection marks its
// inputs (those still stored with the same version), the job is marked
// done (the cooldown starts), the generation is approved or a rollback
// generation recorded, the journal row and, for an approve, the requests
// the run answered are deleted. owned is false (nothing changes) when the
// token does not hold the lock. id is the approved or the new generation.
func (s *Store) LandGeneration(ctx context.Context, l Land) (owned bool, id int64, err error) {
	err = s.tx(ctx, func(tx *sql.Tx) error {
		owned, id = false, 0
		now := s.now().Unix()
		var state string
		var watermark int64
		err := tx.QueryRowContext(ctx, `SELECT state, watermark FROM generations WHERE id = ?`, l.GenerationID).Scan(&state, &watermark)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if l.Action == LandApprove && state != GenerationPending {
			return fmt.Errorf("%w: generation %d is %s", ErrNotPending, l.GenerationID, state)
		}
		ok, err := finishGlobalTx(ctx, tx, l.Token, watermark, false, now)
		if err != nil || !ok {
			return err
		}
		owned = true
		switch l.Action {
		case LandApprove:
			id = l.GenerationID
			// Newer requests than the run saw stay for the next run.
			if _, err := tx.ExecContext(ctx, `DELETE FROM consolidation_requests WHERE id <= (SELECT requests_up_to FROM generations WHERE id = ?)`, id); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE generations SET state = ?, settled_at = ? WHERE id = ?`, GenerationApproved, now, id); err != nil {
				return err
			}
		case LandRollback:
			if id, err = copyGenerationTx(ctx, tx, l.GenerationID, now); err != nil {
				return err
			}
		default:
			return fmt.Errorf("unknown landing action %q", l.Action)
		}
		if err := baselineFromGenerationTx(ctx, tx, id, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE stage1_outputs SET selected_for_phase2 = 0, selected_for_phase2_source_updated_at = NULL
WHERE selected_for_phase2 <> 0 OR selected_for_phase2_source_updated_at IS NOT NULL`); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE stage1_outputs SET selected_for_phase2 = 1, selected_for_phase2_source_updated_at = source_updated_at
WHERE EXISTS (SELECT 1 FROM generation_inputs i WHERE i.generation_id = ? AND i.thread_id = stage1_outputs.thread_id
              AND i.source_updated_at = stage1_outputs.source_updated_at)`, id)
		if err != nil {
			return err
		}
		marked, _ := res.RowsAffected()
		if _, err := tx.ExecContext(ctx, `UPDATE consolidation_progress SET max_thread_count = MAX(max_thread_count, ?) WHERE singleton = 1`, marked); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM generation_landing`); err != nil {
			return err
		}
		return trimGenerationsTx(ctx, tx, l.Keep)
	})
	return owned, id, err
}

// copyGenerationTx records a rollback generation with src's files and
// inputs, built on the current generation.
func copyGenerationTx(ctx context.Context, tx *sql.Tx, src, now int64) (int64, error) {
	parent, err := currentGenerationTx(ctx, tx)
	if err != nil {
		return 0, err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO generations (created_at, state, kind, parent_id, restored_from, mode, provider, model,
    selected, watermark, settled_at)
SELECT ?, ?, ?, NULLIF(?, 0), id, mode, provider, model, selected, watermark, ? FROM generations WHERE id = ?`,
		now, GenerationApproved, GenerationRollback, parent, now, src)
	if err != nil {
		return 0, err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO generation_files (generation_id, path, mode, blob)
SELECT ?, path, mode, blob FROM generation_files WHERE generation_id = ?`, id, src); err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO generation_inputs (generation_id, thread_id, source_updated_at, raw_memory, rollout_summary, pinned, user_asserted)
SELECT ?, thread_id, source_updated_at, raw_memory, rollout_summary, pinned, user_asserted FROM generation_inputs WHERE generation_id = ?`, id, src); err != nil {
		return 0, err
	}
	return id, countChangesTx(ctx, tx, id, parent)
}

func baselineFromGenerationTx(ctx context.Context, tx *sql.Tx, id, now int64) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM baseline_files`); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO baseline_files (path, mode, content)
SELECT f.path, f.mode, b.content FROM generation_files f JOIN generation_blobs b ON b.hash = f.blob WHERE f.generation_id = ?`, id); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO baseline_meta (singleton, created_at) VALUES (1, ?)
ON CONFLICT (singleton) DO UPDATE SET created_at = excluded.created_at`, now)
	return err
}
