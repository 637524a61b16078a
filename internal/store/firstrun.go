package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// Backlog is a version's first-run backlog: the past sessions its first
// extraction found. The age and idle windows leave them alone until every
// one is taken (CandidateFilter.BacklogUntil), so a first run cut short
// by Ctrl-C, a crash or a failed call is finished by the runs after it.
type Backlog struct {
	// Until is the first run's clock: a thread updated at or before it is
	// a past session.
	Until time.Time
	// Sessions is how many past sessions the first run found.
	Sessions  int
	StartedAt time.Time
	// TakenAt is when no past session was left to take; nil while some
	// wait.
	TakenAt *time.Time
}

// Open reports whether past sessions of b may still wait.
func (b *Backlog) Open() bool { return b != nil && b.TakenAt == nil }

// Backlog returns the version's first-run backlog, or nil before its
// first run.
func (s *Store) Backlog(ctx context.Context) (*Backlog, error) {
	var until, started int64
	var taken sql.NullInt64
	b := &Backlog{}
	err := s.db.QueryRowContext(ctx, `SELECT backlog_until, sessions, started_at, taken_at FROM first_run WHERE singleton = 1`).
		Scan(&until, &b.Sessions, &started, &taken)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	b.Until, b.StartedAt = time.UnixMilli(until).UTC(), time.Unix(started, 0).UTC()
	if taken.Valid {
		t := time.Unix(taken.Int64, 0).UTC()
		b.TakenAt = &t
	}
	return b, nil
}

// StartBacklog records the first run's backlog: every thread updated at
// or before until, sessions of them. A backlog already recorded (another
// process's first run started first) is kept; the one in force is
// returned.
func (s *Store) StartBacklog(ctx context.Context, until time.Time, sessions int) (*Backlog, error) {
	_, err := s.db.ExecContext(ctx, `INSERT INTO first_run (singleton, backlog_until, sessions, started_at) VALUES (1, ?, ?, ?)
ON CONFLICT (singleton) DO NOTHING`, until.UnixMilli(), sessions, s.now().Unix())
	if err != nil {
		return nil, err
	}
	return s.Backlog(ctx)
}

// FinishBacklog records that no past session is left to take: from now
// on the windows hold for every thread.
func (s *Store) FinishBacklog(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, `UPDATE first_run SET taken_at = ? WHERE singleton = 1 AND taken_at IS NULL`, s.now().Unix())
	return err
}

// NeverExtracted reports whether the version has had no first run: no
// backlog recorded, no Phase 1 job and no raw memory of a session of this
// machine (imported memories do not count: a machine that synced first
// still has its own history to take).
func (s *Store) NeverExtracted(ctx context.Context) (bool, error) {
	var never bool
	err := s.db.QueryRowContext(ctx, `SELECT NOT EXISTS (SELECT 1 FROM first_run)
  AND NOT EXISTS (SELECT 1 FROM jobs WHERE kind = ?)
  AND NOT EXISTS (SELECT 1 FROM stage1_outputs o JOIN threads t ON t.id = o.thread_id WHERE t.source_kind <> ?)`,
		KindStage1, SourceImported).Scan(&never)
	return never, err
}
