// Package store is memctl's SQLite store and the only package that speaks
// SQL. One database file per memory version (memories_1.sqlite for v1,
// memories_v2_1.sqlite for v2) holds the thread index, Phase 1 outputs, the
// jobs table with its leases, the Phase 2 baseline and the search index.
//
// Any number of processes may use one file at once: the database runs in
// WAL mode with a long busy timeout, and every write transaction takes the
// write lock at BEGIN (BEGIN IMMEDIATE), so contention is a short wait and
// never a "database is locked" error in the middle of a transaction.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// ErrNotFound is returned by lookups (Thread, Output) when no row matches.
var ErrNotFound = errors.New("not found")

// ErrTooNew is returned by Open when the database was written by a newer memctl.
var ErrTooNew = errors.New("database schema is newer than this memctl")

// busyTimeout bounds how long a statement waits for another process's
// write lock. Generous: cron, a host agent and a human may all run at once.
const busyTimeout = 60 * time.Second

// Store is an open memctl database. Safe for concurrent use.
type Store struct {
	db   *sql.DB
	path string
	now  func() time.Time
}

// Option configures Open.
type Option func(*Store)

// WithClock sets the clock used for leases, backoffs and timestamps.
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// FileName returns the database file name of a memory version.
func FileName(version string) string {
	if version == "v2" {
		return "memories_v2_1.sqlite"
	}
	return "memories_1.sqlite"
}

// Open opens (creating when needed) the database at path, with its
// folder created 0700 and the file 0600, and applies pending migrations.
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	// Create the file ourselves so it is 0600 from the first byte.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	f.Close()

	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Set("_txlock", "immediate")
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	db.SetMaxOpenConns(4)
	db.SetConnMaxIdleTime(time.Minute)
	s := &Store{db: db, path: path, now: time.Now}
	for _, o := range opts {
		o(s)
	}
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	if !strings.EqualFold(mode, "wal") {
		db.Close()
		return nil, fmt.Errorf("open store %s: journal mode is %q, want wal", path, mode)
	}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	// WAL and SHM files are created by SQLite with the umask; tighten them.
	for _, suffix := range []string{"-wal", "-shm"} {
		_ = os.Chmod(path+suffix, 0o600)
	}
	return s, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Path returns the database file path.
func (s *Store) Path() string { return s.path }

type migration struct {
	version int
	name    string
	sql     string
}

func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		if !ok {
			continue
		}
		v, err := strconv.Atoi(num)
		if err != nil {
			return nil, fmt.Errorf("migration %s: bad number", e.Name())
		}
		b, err := migrationFS.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: e.Name(), sql: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	return out, nil
}

// SchemaVersion is the newest schema this binary knows.
func SchemaVersion() int {
	ms, _ := migrations()
	if len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].version
}

// migrate applies each pending migration in its own immediate transaction;
// user_version records the applied version. Two processes opening a fresh
// file at once serialise on the write lock and the second sees the work done.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	latest := SchemaVersion()
	for _, m := range ms {
		err := s.tx(ctx, func(tx *sql.Tx) error {
			var cur int
			if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&cur); err != nil {
				return err
			}
			if cur > latest {
				return fmt.Errorf("%w: %s has version %d, this binary knows up to %d", ErrTooNew, s.path, cur, latest)
			}
			if cur >= m.version {
				return nil
			}
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return fmt.Errorf("migration %s: %w", m.name, err)
			}
			_, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.version))
			return err
		})
		if err != nil {
			return fmt.Errorf("open store %s: %w", s.path, err)
		}
	}
	// A database at version 0 with no migrations pending can only be newer
	// when user_version exceeds ours; check once more for files at rest.
	var cur int
	if err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&cur); err != nil {
		return err
	}
	if cur > latest {
		return fmt.Errorf("open store %s: %w: version %d, this binary knows up to %d", s.path, ErrTooNew, cur, latest)
	}
	return nil
}

// tx runs fn in a write transaction (BEGIN IMMEDIATE through _txlock).
func (s *Store) tx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// IntegrityCheck runs PRAGMA integrity_check and returns its verdict ("ok").
func (s *Store) IntegrityCheck(ctx context.Context) (string, error) {
	var res string
	err := s.db.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&res)
	return res, err
}

func nullInt(v sql.NullInt64) *int64 {
	if !v.Valid {
		return nil
	}
	x := v.Int64
	return &x
}

func unixTime(v *int64) *time.Time {
	if v == nil {
		return nil
	}
	t := time.Unix(*v, 0).UTC()
	return &t
}
