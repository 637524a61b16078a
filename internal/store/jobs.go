package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/memctl/memctl/internal/owner"
)

// Job kinds and their singleton key, as Codex names them.
const (
	KindStage1      = "memory_stage1"
	KindConsolidate = "memory_consolidate_global"
	GlobalKey       = "global"

	// DefaultRetries is the retry budget of a fresh job.
	DefaultRetries = 3
	// Lease is how long a claim holds a job (Phase 1 and Phase 2).
	Lease = time.Hour
	// RetryDelay is the backoff after a failed job.
	RetryDelay = time.Hour
	// Cooldown is how long a successful consolidation blocks the next one.
	Cooldown = 6 * time.Hour
)

// ClaimOutcome is the result of a Phase 1 claim attempt.
type ClaimOutcome string

// Claim outcomes (Codex's Stage1JobClaimOutcome).
const (
	Claimed               ClaimOutcome = "claimed"
	SkippedUpToDate       ClaimOutcome = "skipped_up_to_date"
	SkippedRunning        ClaimOutcome = "skipped_running"
	SkippedRetryBackoff   ClaimOutcome = "skipped_retry_backoff"
	SkippedRetryExhausted ClaimOutcome = "skipped_retry_exhausted"
)

// Phase 2 claim statuses, the reason strings of CLI.md.
const (
	GlobalClaimed                 = "claimed"
	GlobalSkippedRetryUnavailable = "skipped_retry_unavailable"
	GlobalSkippedRunning          = "skipped_running"
	GlobalSkippedCooldown         = "skipped_cooldown"
)

// Stage1Claim is a successful Phase 1 claim.
type Stage1Claim struct {
	ThreadID        string
	Token           string
	SourceUpdatedAt int64 // unix seconds: the watermark this claim extracts
}

// TryClaimStage1 claims the Phase 1 job of one thread version (Codex 3.6),
// in one immediate transaction. maxRunning caps the stage-1 jobs holding a
// live lease across every process.
func (s *Store) TryClaimStage1(ctx context.Context, threadID, workerID string, sourceUpdatedAt int64, maxRunning int) (ClaimOutcome, string, error) {
	var outcome ClaimOutcome
	var token string
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var err error
		outcome, token, err = s.tryClaimStage1Tx(ctx, tx, threadID, workerID, sourceUpdatedAt, maxRunning)
		return err
	})
	return outcome, token, err
}

func (s *Store) tryClaimStage1Tx(ctx context.Context, tx *sql.Tx, threadID, workerID string, watermark int64, maxRunning int) (ClaimOutcome, string, error) {
	now := s.now().Unix()
	token := uuid.NewString()
	args := []any{sql.Named("kind", KindStage1), sql.Named("key", threadID), sql.Named("watermark", watermark), sql.Named("now", now),
		sql.Named("worker", workerID), sql.Named("token", token), sql.Named("lease", now+int64(Lease/time.Second)),
		sql.Named("retries", DefaultRetries), sql.Named("max", maxRunning)}
	// 1–2: up to date when an output or a success already covers this version.
	fresh := claimRule(CheckUpToDate)
	var notUpToDate bool
	if err := tx.QueryRowContext(ctx, `SELECT `+fresh.sql, args...).Scan(&notUpToDate); err != nil {
		return "", "", err
	}
	if !notUpToDate {
		return fresh.Outcome, "", nil
	}
	// 3, insert path: only below the running cap.
	res, err := tx.ExecContext(ctx, `
INSERT INTO jobs (kind, job_key, status, worker_id, ownership_token, started_at, finished_at, lease_until,
                  retry_at, retry_remaining, last_error, input_watermark, last_success_watermark)
SELECT :kind, :key, 'running', :worker, :token, :now, NULL, :lease, NULL, :retries, NULL, :watermark, NULL
WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE kind = :kind AND job_key = :key)
  AND (SELECT COUNT(*) FROM jobs WHERE kind = :kind AND status = 'running' AND lease_until > :now) < :max`, args...)
	if err != nil {
		return "", "", err
	}
	if rows, _ := res.RowsAffected(); rows == 1 {
		return Claimed, token, nil
	}
	// 3, update path: every rule on the job's row (not running, backoff
	// elapsed, budget left; a newer watermark resets the budget and skips
	// the backoff), below the cap.
	res, err = tx.ExecContext(ctx, `
UPDATE jobs SET status = 'running', worker_id = :worker, ownership_token = :token, started_at = :now, finished_at = NULL,
       lease_until = :lease, retry_at = NULL, last_error = NULL,
       retry_remaining = CASE WHEN :watermark > COALESCE(input_watermark, -1) THEN :retries ELSE retry_remaining END,
       input_watermark = :watermark
WHERE kind = :kind AND job_key = :key
  AND `+jobRowRules()+`
  AND (SELECT COUNT(*) FROM jobs WHERE kind = :kind AND job_key <> :key AND status = 'running' AND lease_until > :now) < :max`, args...)
	if err != nil {
		return "", "", err
	}
	if rows, _ := res.RowsAffected(); rows == 1 {
		return Claimed, token, nil
	}
	// 4: say why.
	var j Job
	var lease, retryAt, in sql.NullInt64
	err = tx.QueryRowContext(ctx, `SELECT status, lease_until, retry_at, retry_remaining, input_watermark FROM jobs WHERE kind = ? AND job_key = ?`,
		KindStage1, threadID).Scan(&j.Status, &lease, &retryAt, &j.RetryRemaining, &in)
	if errors.Is(err, sql.ErrNoRows) {
		return SkippedRunning, "", nil // the running cap was reached
	}
	if err != nil {
		return "", "", err
	}
	j.LeaseUntil, j.RetryAt, j.InputWatermark = nullInt(lease), nullInt(retryAt), nullInt(in)
	return whyNotClaimed(ClaimState{Watermark: watermark, Job: &j, Now: now}), "", nil
}

// MarkStage1Succeeded finishes an owned job and stores its output (Codex
// 3.7), then enqueues Phase 2. It returns false when the claim was lost
// (the caller counts the job as failed). A memory the user edited keeps
// the user's text: the job is done, the output is not replaced.
func (s *Store) MarkStage1Succeeded(ctx context.Context, threadID, token string, sourceUpdatedAt int64, rawMemory, summary string, slug *string) (bool, error) {
	return s.MarkStage1Done(ctx, threadID, token, sourceUpdatedAt, Stage1Result{RawMemory: rawMemory, RolloutSummary: summary, Slug: slug})
}

// MarkStage1NoOutput finishes an owned job whose answer was empty: any
// earlier output of the thread is deleted (unless the user edited it) and,
// only then, Phase 2 is re-queued so consolidation forgets it.
func (s *Store) MarkStage1NoOutput(ctx context.Context, threadID, token string) (bool, error) {
	owned := false
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var err error
		if owned, err = finishStage1Tx(ctx, tx, threadID, token, s.now().Unix()); err != nil || !owned {
			return err
		}
		var watermark int64
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(input_watermark, 0) FROM jobs WHERE kind = ? AND job_key = ?`, KindStage1, threadID).Scan(&watermark); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM stage1_outputs WHERE thread_id = ? AND edited_at IS NULL`, threadID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			if err := unindexThreadTx(ctx, tx, threadID); err != nil {
				return err
			}
			if err := requestIfMissedTx(ctx, tx, threadID, s.now().Unix()); err != nil {
				return err
			}
			return enqueueGlobalTx(ctx, tx, watermark)
		}
		return nil
	})
	return owned, err
}

// finishStage1Tx marks an owned running job done with its watermark as
// the last success (Codex 3.7); owned is false when the claim was lost.
func finishStage1Tx(ctx context.Context, tx *sql.Tx, threadID, token string, now int64) (bool, error) {
	res, err := tx.ExecContext(ctx, `
UPDATE jobs SET status = 'done', finished_at = ?, lease_until = NULL, last_error = NULL,
       last_success_watermark = input_watermark
WHERE kind = ? AND job_key = ? AND status = 'running' AND ownership_token = ?`, now, KindStage1, threadID, token)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// MarkStage1Failed records a failed owned job: one hour of backoff and one
// retry less (no floor, as Codex).
func (s *Store) MarkStage1Failed(ctx context.Context, threadID, token, reason string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		now := s.now().Unix()
		_, err := tx.ExecContext(ctx, `
UPDATE jobs SET status = 'error', finished_at = ?, lease_until = NULL, retry_at = ?,
       retry_remaining = retry_remaining - 1, last_error = ?
WHERE kind = ? AND job_key = ? AND status = 'running' AND ownership_token = ?`,
			now, now+int64(RetryDelay/time.Second), reason, KindStage1, threadID, token)
		return err
	})
}

// ReleaseStage1 gives back an owned claim that did no work (the run was
// interrupted): the job returns to pending with its budget intact.
func (s *Store) ReleaseStage1(ctx context.Context, threadID, token string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `
UPDATE jobs SET status = 'pending', lease_until = NULL, finished_at = NULL
WHERE kind = ? AND job_key = ? AND status = 'running' AND ownership_token = ?`, KindStage1, threadID, token)
		return err
	})
}

// EnqueueGlobal marks Phase 2 dirty (Codex 3.8).
func (s *Store) EnqueueGlobal(ctx context.Context, watermark int64) error {
	return s.tx(ctx, func(tx *sql.Tx) error { return enqueueGlobalTx(ctx, tx, watermark) })
}

func enqueueGlobalTx(ctx context.Context, tx *sql.Tx, watermark int64) error {
	_, err := tx.ExecContext(ctx, `
INSERT INTO jobs (kind, job_key, status, retry_remaining, input_watermark, last_success_watermark)
VALUES (?, ?, 'pending', ?, ?, 0)
ON CONFLICT (kind, job_key) DO UPDATE SET
    status = CASE WHEN jobs.status = 'running' THEN 'running' ELSE 'pending' END,
    retry_at = CASE WHEN jobs.status = 'running' THEN jobs.retry_at ELSE NULL END,
    retry_remaining = MAX(jobs.retry_remaining, ?),
    input_watermark = CASE WHEN excluded.input_watermark > COALESCE(jobs.input_watermark, 0)
                           THEN excluded.input_watermark
                           ELSE COALESCE(jobs.input_watermark, 0) + 1 END`,
		KindConsolidate, GlobalKey, DefaultRetries, watermark, DefaultRetries)
	return err
}

// MissedRequest is the consolidation request (ConsolidationRequests)
// recorded when a raw memory lands that a consolidation could not include.
const MissedRequest = "raw memories extracted while a consolidation ran"

// requestIfMissedTx records MissedRequest (once) when the Phase 1 job of
// threadID overlapped a consolidation: one holds the lock now (it may have
// selected its inputs before this output landed), or the last one finished
// after this job was claimed (it ran while the job was in flight). The
// request lets the next consolidation through the cooldown, and a
// consolidation that finds one open when it finishes runs again (issue
// 24: of two parallel runs, the first consolidated none of the memories
// the second was extracting, and the cooldown then kept them out for six
// hours). Times are whole seconds, so a job claimed in the second the
// consolidation finished counts as overlapping it. A job claimed after the
// last consolidation finished is new work and waits for the cooldown, as
// in Codex.
func requestIfMissedTx(ctx context.Context, tx *sql.Tx, threadID string, now int64) error {
	var status string
	var finished, claimed sql.NullInt64
	err := tx.QueryRowContext(ctx, `SELECT g.status, g.finished_at, s.started_at FROM jobs g
LEFT JOIN jobs s ON s.kind = ? AND s.job_key = ?
WHERE g.kind = ? AND g.job_key = ?`, KindStage1, threadID, KindConsolidate, GlobalKey).Scan(&status, &finished, &claimed)
	if errors.Is(err, sql.ErrNoRows) {
		return nil // no consolidation ever ran
	}
	if err != nil {
		return err
	}
	overlapped := status == "running" || (finished.Valid && claimed.Valid && claimed.Int64 <= finished.Int64)
	if !overlapped {
		return nil
	}
	// One open request is enough, but it must be newer than any a running
	// consolidation saw when it claimed: that one's success answers only
	// the requests it saw.
	if _, err := tx.ExecContext(ctx, `DELETE FROM consolidation_requests WHERE reason = ?`, MissedRequest); err != nil {
		return err
	}
	return requestTx(ctx, tx, MissedRequest, false, now)
}

// GlobalClaim is the result of a Phase 2 lock attempt.
type GlobalClaim struct {
	Status         string // GlobalClaimed or a skip reason
	Token          string
	InputWatermark int64
	// Requests are the open consolidation requests (pin, edit, forget)
	// when the lock was taken; they let the claim skip the cooldown.
	Requests []ConsolidationRequest
}

// Regenerate reports whether a request asks the consolidator to run even
// when the folder's inputs look unchanged.
func (c GlobalClaim) Regenerate() bool {
	for _, r := range c.Requests {
		if r.Regenerate {
			return true
		}
	}
	return false
}

// RequestsUpTo is the newest request id the claim saw (0 when none): a
// successful run deletes those requests and keeps any made meanwhile.
func (c GlobalClaim) RequestsUpTo() int64 {
	if len(c.Requests) == 0 {
		return 0
	}
	return c.Requests[len(c.Requests)-1].ID
}

// ClaimGlobal takes the Phase 2 lock (Codex 3.9). force (--force) skips
// the six-hour success cooldown and the hour of backoff after a failure,
// so a user who fixed the cause can retry now; a live lease is never
// skipped. An open consolidation request (a memory pinned, edited or
// forgotten since the last run) skips the cooldown too, and a success
// that left the memory empty starts none (GlobalCommit.LeftMemoryEmpty).
// retry_remaining is not consulted.
func (s *Store) ClaimGlobal(ctx context.Context, workerID string, force bool) (GlobalClaim, error) {
	var out GlobalClaim
	err := s.tx(ctx, func(tx *sql.Tx) error {
		out = GlobalClaim{}
		requests, err := consolidationRequests(ctx, tx)
		if err != nil {
			return err
		}
		ignoreCooldown := force || len(requests) > 0
		now := s.now().Unix()
		if err := s.reapGlobalTx(ctx, tx, now); err != nil {
			return err
		}
		token := uuid.NewString()
		lease := now + int64(Lease/time.Second)
		var status string
		var retryAt, leaseUntil, finishedAt, watermark sql.NullInt64
		var lastErr sql.NullString
		var leftEmpty bool
		err = tx.QueryRowContext(ctx, `SELECT status, retry_at, lease_until, finished_at, last_error, input_watermark, left_memory_empty FROM jobs WHERE kind = ? AND job_key = ?`,
			KindConsolidate, GlobalKey).Scan(&status, &retryAt, &leaseUntil, &finishedAt, &lastErr, &watermark, &leftEmpty)
		if errors.Is(err, sql.ErrNoRows) {
			_, err = tx.ExecContext(ctx, `
INSERT INTO jobs (kind, job_key, status, worker_id, ownership_token, started_at, lease_until, retry_remaining, input_watermark, last_success_watermark)
VALUES (?, ?, 'running', ?, ?, ?, ?, ?, 0, 0)`, KindConsolidate, GlobalKey, workerID, token, now, lease, DefaultRetries)
			if err != nil {
				return err
			}
			out = GlobalClaim{Status: GlobalClaimed, Token: token, Requests: requests}
			return nil
		}
		if err != nil {
			return err
		}
		cooldownFrom := now - int64(Cooldown/time.Second)
		switch {
		case !force && retryAt.Valid && retryAt.Int64 > now:
			out.Status = GlobalSkippedRetryUnavailable
			return nil
		case status == "running" && leaseUntil.Valid && leaseUntil.Int64 > now:
			out.Status = GlobalSkippedRunning
			return nil
		case !ignoreCooldown && !lastErr.Valid && !leftEmpty && finishedAt.Valid && finishedAt.Int64 > cooldownFrom:
			out.Status = GlobalSkippedCooldown
			return nil
		}
		res, err := tx.ExecContext(ctx, `
UPDATE jobs SET status = 'running', worker_id = ?, ownership_token = ?, started_at = ?, finished_at = NULL,
       lease_until = ?, retry_at = NULL, last_error = NULL
WHERE kind = ? AND job_key = ?
  AND (? OR retry_at IS NULL OR retry_at <= ?)
  AND NOT (status = 'running' AND lease_until IS NOT NULL AND lease_until > ?)
  AND (? OR last_error IS NOT NULL OR left_memory_empty = 1 OR finished_at IS NULL OR finished_at <= ?)`,
			workerID, token, now, lease, KindConsolidate, GlobalKey, force, now, now, ignoreCooldown, cooldownFrom)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			out.Status = GlobalSkippedRunning
			return nil
		}
		out = GlobalClaim{Status: GlobalClaimed, Token: token, InputWatermark: watermark.Int64, Requests: requests}
		return nil
	})
	return out, err
}

// abandonedReason is the last_error of a job whose holder exited without
// finishing or giving it back.
func abandonedReason(workerID string) string {
	return "abandoned: " + owner.Describe(workerID) + " exited while holding it"
}

// reapGlobalTx gives back the consolidation lock when the process holding
// it has exited (killed, or failed without releasing it): the job becomes
// pending, as ReleaseGlobal leaves it, so the next claim needs no hour of
// waiting and meets no cooldown. A live holder, or one this host cannot
// judge, keeps it until its lease runs out.
func (s *Store) reapGlobalTx(ctx context.Context, tx *sql.Tx, now int64) error {
	var worker, token sql.NullString
	err := tx.QueryRowContext(ctx, `SELECT worker_id, ownership_token FROM jobs
WHERE kind = ? AND job_key = ? AND status = 'running' AND lease_until > ?`, KindConsolidate, GlobalKey, now).Scan(&worker, &token)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !s.ownerGone(worker.String)) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE jobs SET status = 'pending', lease_until = NULL, finished_at = NULL, last_error = ?
WHERE kind = ? AND job_key = ? AND status = 'running' AND ownership_token IS ?`,
		abandonedReason(worker.String), KindConsolidate, GlobalKey, token)
	return err
}

// ReapAbandoned gives back the Phase 1 claims whose holder has exited on
// this host (killed, or failed without recording the outcome, as when the
// disk was full): each becomes pending with its retry budget intact and
// last_error saying what happened, so it can be claimed at once instead of
// after the hour of its lease. It returns how many it gave back.
func (s *Store) ReapAbandoned(ctx context.Context) (int, error) {
	n := 0
	err := s.tx(ctx, func(tx *sql.Tx) error {
		n = 0
		now := s.now().Unix()
		rows, err := tx.QueryContext(ctx, `SELECT job_key, COALESCE(worker_id, ''), COALESCE(ownership_token, '') FROM jobs
WHERE kind = ? AND status = 'running' AND lease_until > ?`, KindStage1, now)
		if err != nil {
			return err
		}
		type held struct{ key, worker, token string }
		var gone []held
		for rows.Next() {
			var h held
			if err := rows.Scan(&h.key, &h.worker, &h.token); err != nil {
				rows.Close()
				return err
			}
			if s.ownerGone(h.worker) {
				gone = append(gone, h)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, h := range gone {
			res, err := tx.ExecContext(ctx, `UPDATE jobs SET status = 'pending', lease_until = NULL, last_error = ?
WHERE kind = ? AND job_key = ? AND status = 'running' AND ownership_token = ?`, abandonedReason(h.worker), KindStage1, h.key, h.token)
			if err != nil {
				return err
			}
			if k, _ := res.RowsAffected(); k > 0 {
				n++
			}
		}
		return nil
	})
	return n, err
}

// HeldLease is a job whose lease has not run out.
type HeldLease struct {
	Kind, Key string
	WorkerID  string
	Until     int64 // unix seconds
	// Gone is set when the holder has exited on this host: the next claim
	// takes the job back (ReapAbandoned, ClaimGlobal).
	Gone bool
}

// HeldLeases lists the running jobs whose lease has not run out, the
// consolidation lock first, then the Phase 1 claims by thread id.
func (s *Store) HeldLeases(ctx context.Context) ([]HeldLease, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT kind, job_key, COALESCE(worker_id, ''), lease_until FROM jobs
WHERE status = 'running' AND lease_until > ? ORDER BY kind = ? DESC, kind, job_key`, s.now().Unix(), KindConsolidate)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []HeldLease
	for rows.Next() {
		var h HeldLease
		if err := rows.Scan(&h.Kind, &h.Key, &h.WorkerID, &h.Until); err != nil {
			return nil, err
		}
		h.Gone = s.ownerGone(h.WorkerID)
		out = append(out, h)
	}
	return out, rows.Err()
}

// HeartbeatGlobal renews the Phase 2 lease; false means the lock was lost.
func (s *Store) HeartbeatGlobal(ctx context.Context, token string) (bool, error) {
	var owned bool
	err := s.tx(ctx, func(tx *sql.Tx) error {
		now := s.now().Unix()
		res, err := tx.ExecContext(ctx, `UPDATE jobs SET lease_until = ? WHERE kind = ? AND job_key = ? AND status = 'running' AND ownership_token = ?`,
			now+int64(Lease/time.Second), KindConsolidate, GlobalKey, token)
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		owned = n == 1
		return nil
	})
	return owned, err
}

// Snapshot identifies one selected output version.
type Snapshot struct {
	ThreadID        string
	SourceUpdatedAt int64
}

// SucceedGlobal finishes an owned Phase 2 run: marks exactly the selected
// snapshots (a row refreshed meanwhile stays unselected) and raises the
// progress high-water mark. False when the lock was not owned. It is
// CommitGlobal without a baseline or a generation.
func (s *Store) SucceedGlobal(ctx context.Context, token string, watermark int64, selected []Snapshot) (bool, error) {
	owned, _, err := s.CommitGlobal(ctx, GlobalCommit{Token: token, Watermark: watermark, Selected: selected})
	return owned, err
}

// FailGlobal records a failed Phase 2 run: one hour of backoff. When the
// token no longer owns the row, a running row with that token or none is
// failed instead, so a crashed owner never leaves the job stuck.
func (s *Store) FailGlobal(ctx context.Context, token, reason string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		now := s.now().Unix()
		const q = `
UPDATE jobs SET status = 'error', finished_at = ?, lease_until = NULL, retry_at = ?,
       retry_remaining = MAX(retry_remaining - 1, 0), last_error = ?
WHERE kind = ? AND job_key = ? AND status = 'running' AND `
		res, err := tx.ExecContext(ctx, q+`ownership_token = ?`, now, now+int64(RetryDelay/time.Second), reason, KindConsolidate, GlobalKey, token)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			return nil
		}
		_, err = tx.ExecContext(ctx, q+`(ownership_token = ? OR ownership_token IS NULL)`, now, now+int64(RetryDelay/time.Second), reason, KindConsolidate, GlobalKey, token)
		return err
	})
}

// Job is one row of the jobs table.
type Job struct {
	Kind, Key, Status    string
	WorkerID             string
	StartedAt            *int64
	FinishedAt           *int64
	LeaseUntil           *int64
	RetryAt              *int64
	RetryRemaining       int
	LastError            string
	InputWatermark       *int64
	LastSuccessWatermark *int64
}

// Job returns one job row, or ErrNotFound.
func (s *Store) Job(ctx context.Context, kind, key string) (Job, error) {
	jobs, err := s.queryJobs(ctx, `WHERE kind = ? AND job_key = ?`, kind, key)
	if err != nil {
		return Job{}, err
	}
	if len(jobs) == 0 {
		return Job{}, ErrNotFound
	}
	return jobs[0], nil
}

// Jobs lists every job, by kind and key.
func (s *Store) Jobs(ctx context.Context) ([]Job, error) {
	return s.queryJobs(ctx, `ORDER BY kind, job_key`)
}

func (s *Store) queryJobs(ctx context.Context, where string, args ...any) ([]Job, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT kind, job_key, status, COALESCE(worker_id, ''), started_at, finished_at, lease_until, retry_at,
       retry_remaining, COALESCE(last_error, ''), input_watermark, last_success_watermark FROM jobs `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Job
	for rows.Next() {
		var j Job
		var started, finished, lease, retry, in, last sql.NullInt64
		if err := rows.Scan(&j.Kind, &j.Key, &j.Status, &j.WorkerID, &started, &finished, &lease, &retry,
			&j.RetryRemaining, &j.LastError, &in, &last); err != nil {
			return nil, err
		}
		j.StartedAt, j.FinishedAt, j.LeaseUntil, j.RetryAt = nullInt(started), nullInt(finished), nullInt(lease), nullInt(retry)
		j.InputWatermark, j.LastSuccessWatermark = nullInt(in), nullInt(last)
		out = append(out, j)
	}
	return out, rows.Err()
}
