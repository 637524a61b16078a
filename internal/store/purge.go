package store

import (
	"context"
	"database/sql"
	"fmt"
)

// Forgetting a memory takes its text out of everything the database keeps
// (docs/security.md, "What forget removes"): the memory and its index rows
// (forgetTx), and here the history built from it. A consolidator may have
// copied or paraphrased the memory into any file it wrote, and a later run
// may have carried that text forward, so text cannot be cut out of a
// generation's files reliably: a generation that may hold text derived from
// the memory loses its files, inputs and workspace diff, and stays listed
// as purged, never to be restored.

// purgeDerivedTx purges what the store keeps that may hold text of the
// memory of thread id. consolidated says whether the memory was ever
// selected by a consolidation, for history older than what is kept.
func purgeDerivedTx(ctx context.Context, tx *sql.Tx, id string, consolidated bool, now int64) error {
	// The thread's preview is the opening of its transcript, where a
	// secret may have been pasted; the thread stays listed by id and path.
	if _, err := tx.ExecContext(ctx, `UPDATE threads SET preview = '' WHERE id = ?`, id); err != nil {
		return err
	}
	tainted, err := derivedGenerationsTx(ctx, tx, id, consolidated)
	if err != nil {
		return err
	}
	current, err := currentGenerationTx(ctx, tx)
	if err != nil {
		return err
	}
	if err := purgeGenerationsTx(ctx, tx, tainted, now); err != nil {
		return err
	}
	// The baseline and the indexed memory-folder files are the folder as
	// the current generation left it: when that one is purged, everything
	// in them but the notes and the other memories' rollout summaries goes
	// (the next consolidation rebuilds the files and both); otherwise only
	// the files that name the thread. A baseline file keeps its path with
	// no content, so the next diff still shows that it went or changed.
	gone := namesThread
	if tainted[current] {
		gone = func(col string) string {
			return `NOT (path LIKE 'extensions/%' OR path LIKE 'rollout_summaries/%' AND NOT ` + namesThread(col) + `)`
		}
	}
	a1, a2 := threadMarks(id)
	if _, err := tx.ExecContext(ctx, `UPDATE baseline_files SET content = x'' WHERE `+gone("content"), a1, a2); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM search_docs WHERE kind = 'file' AND thread_id = '' AND `+gone("CAST(body AS BLOB)"), a1, a2); err != nil {
		return err
	}
	// A deleted document stays in the full-text index's older segments
	// until they are merged: merge them all now.
	_, err = tx.ExecContext(ctx, `INSERT INTO search_index (search_index) VALUES ('optimize')`)
	return err
}

// threadMarks are the two ways the memory folder names a thread: the
// header of its rollout summary file and its section of raw_memories.md.
func threadMarks(id string) (string, string) {
	return "thread_id: " + id + "\n", "## Thread `" + id + "`"
}

// namesThread is the SQL condition that the blob column col holds one of
// threadMarks, given as the parameters ?1 and ?2.
func namesThread(col string) string {
	return `(instr(` + col + `, CAST(?1 AS BLOB)) > 0 OR instr(` + col + `, CAST(?2 AS BLOB)) > 0)`
}

// derivedGenerationsTx returns the kept generations that may hold text of
// the memory of thread id: those that selected it or whose files or
// workspace diff name its thread (threadMarks), and those built on one of
// them. A consolidation builds on its parent's folder; a rollback copies
// the generation it restores. A generation built on one purged before was
// rebuilt from its inputs (a forget asks the next run to regenerate), so
// nothing passes through it; one built on a generation that has left the
// history counts as derived when the memory was ever consolidated.
func derivedGenerationsTx(ctx context.Context, tx *sql.Tx, id string, consolidated bool) (map[int64]bool, error) {
	direct := map[int64]bool{}
	a1, a2 := threadMarks(id)
	rows, err := tx.QueryContext(ctx, `SELECT generation_id FROM generation_inputs WHERE thread_id = ?3
UNION SELECT f.generation_id FROM generation_files f JOIN generation_blobs b ON b.hash = f.blob WHERE `+namesThread("b.content")+`
UNION SELECT g.id FROM generations g JOIN generation_blobs b ON b.hash = g.workspace_diff WHERE `+namesThread("b.content"), a1, a2, id)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var g int64
		if err := rows.Scan(&g); err != nil {
			rows.Close()
			return nil, err
		}
		direct[g] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	consolidated = consolidated || len(direct) > 0

	type gen struct {
		id, source int64
		purged     bool
	}
	var gens []gen
	rows, err = tx.QueryContext(ctx, `SELECT id, CASE WHEN kind = ? THEN COALESCE(restored_from, 0) ELSE COALESCE(parent_id, 0) END,
    purged_at IS NOT NULL FROM generations ORDER BY id`, GenerationRollback)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var g gen
		if err := rows.Scan(&g.id, &g.source, &g.purged); err != nil {
			rows.Close()
			return nil, err
		}
		gens = append(gens, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	kept := map[int64]gen{}
	tainted := map[int64]bool{}
	for _, g := range gens {
		kept[g.id] = g
		if g.purged {
			continue
		}
		t := direct[g.id]
		if !t && g.source != 0 {
			if src, ok := kept[g.source]; ok {
				t = tainted[src.id] && !src.purged
			} else {
				t = consolidated
			}
		}
		tainted[g.id] = t
	}
	for g, t := range tainted {
		if !t {
			delete(tainted, g)
		}
	}
	return tainted, nil
}

// purgeGenerationsTx drops the files, inputs and workspace diff of the
// generations in ids and marks them purged; a pending one is rejected, and
// an unfinished landing of one is dropped (the next consolidation
// regenerates the folder).
func purgeGenerationsTx(ctx context.Context, tx *sql.Tx, ids map[int64]bool, now int64) error {
	if len(ids) == 0 {
		return nil
	}
	args := make([]any, 0, len(ids))
	for g := range ids {
		args = append(args, g)
	}
	in := `(` + placeholders(len(ids)) + `)`
	for _, q := range []string{
		`DELETE FROM generation_files WHERE generation_id IN ` + in,
		`DELETE FROM generation_inputs WHERE generation_id IN ` + in,
		`DELETE FROM generation_landing WHERE generation_id IN ` + in,
	} {
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE generations SET workspace_diff = NULL, purged_at = ?,
    state = CASE WHEN state = ? THEN ? ELSE state END, settled_at = COALESCE(settled_at, ?) WHERE id IN `+in,
		append([]any{now, GenerationPending, GenerationRejected, now}, args...)...); err != nil {
		return err
	}
	return dropUnusedBlobsTx(ctx, tx)
}

// Scrub rewrites the database file so that no page freed by a deletion
// keeps the text it held (VACUUM), then empties the write-ahead log, whose
// older frames hold earlier copies of pages. complete is false when another
// process was reading the database and kept the log from being emptied:
// its frames are overwritten as later writes reuse the log.
func (s *Store) Scrub(ctx context.Context) (complete bool, err error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return false, s.diskFull(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `VACUUM`); err != nil {
		return false, s.diskFull(fmt.Errorf("vacuum %s: %w", s.path, err))
	}
	var busy, frames, done int
	if err := conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &frames, &done); err != nil {
		return false, fmt.Errorf("checkpoint %s: %w", s.path, err)
	}
	return busy == 0, nil
}
