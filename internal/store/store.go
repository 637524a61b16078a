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

	"github.com/memctl/memctl/internal/filelock"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/owner"
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
	// fallback: Open may open the file read-only (ReadOnlyFallback).
	fallback bool
	// readOnly is why the store was opened read-only; nil when it can
	// write.
	readOnly error
	now      func() time.Time
	// ownerGone says whether the process a lease's worker id names has
	// exited (owner.Gone); such a lease is taken back at once.
	ownerGone func(workerID string) bool
	// freeBytes reports the space left on the disk holding a path, to tell
	// a full disk from another I/O error (diskfull.go).
	freeBytes func(path string) (uint64, bool)
}

// Option configures Open.
type Option func(*Store)

// WithClock sets the clock used for leases, backoffs and timestamps.
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// FileName returns the database file name of a memory version.
func FileName(version memversion.Version) string {
	if version == memversion.V2 {
		return "memories_v2_1.sqlite"
	}
	return "memories_1.sqlite"
}

// Open opens the database at path and applies pending migrations. A
// database that does not exist yet is made whole under a temporary name
// and renamed into place (folder 0700, file 0600), so no process ever
// finds a half-made one: an empty file at path is never memctl's, and is
// refused (a *DamagedError) rather than taken for a new home, as is a
// file that is not SQLite or whose schema cannot be read. With
// ReadOnlyFallback, a database that cannot be opened for writing is
// opened read-only.
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	s := &Store{path: path, now: time.Now, ownerGone: owner.Gone, freeBytes: freeBytes}
	for _, o := range opts {
		o(s)
	}
	st, err := s.open(ctx)
	if err != nil && s.fallback && cannotWrite(err) {
		if ro, rerr := s.openReadOnly(ctx, err); rerr == nil {
			return ro, nil
		} else if !errors.Is(rerr, fs.ErrNotExist) {
			return nil, errors.Join(err, rerr)
		}
	}
	return st, err
}

// open opens the database for reading and writing.
func (s *Store) open(ctx context.Context) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", filepath.Dir(s.path), err)
	}
	if err := s.ensureFile(ctx); err != nil {
		return nil, s.diskFull(err)
	}
	// journal_mode is not in the DSN: every new pooled connection would
	// run it, and switching to WAL can fail with SQLITE_BUSY without ever
	// calling the busy handler. prepare switches once, under a file lock.
	db, err := sql.Open("sqlite", dsn(s.path, nil))
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", s.path, err)
	}
	db.SetMaxOpenConns(4)
	db.SetConnMaxIdleTime(time.Minute)
	s.db = db
	if err := s.prepare(ctx); err != nil {
		db.Close()
		return nil, s.damaged(s.diskFull(err))
	}
	// WAL and SHM files are created by SQLite with the umask; tighten them.
	for _, suffix := range []string{"-wal", "-shm"} {
		_ = os.Chmod(s.path+suffix, 0o600)
	}
	return s, nil
}

// dsn is the connection string of the database at path: the busy timeout,
// the synchronous level and foreign keys on every pooled connection, write
// transactions that take the lock at BEGIN, and extra query parameters.
func dsn(path string, extra url.Values) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(1)")
	// Deleted text is overwritten with zeros, not left in free pages: a
	// forgotten memory must not be readable from the file.
	q.Add("_pragma", "secure_delete(1)")
	q.Set("_txlock", "immediate")
	for k, vs := range extra {
		q[k] = vs
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// ensureFile makes sure a database file is at s.path. A missing one is
// made complete (WAL mode, every migration) under a temporary name in the
// same folder and renamed into place while <path>.lock is held, so a
// concurrent Open either waits or finds the whole file. An empty file is
// refused.
func (s *Store) ensureFile(ctx context.Context) error {
	if fi, err := os.Stat(s.path); err == nil {
		return s.checkSize(fi)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("open store %s: %w", s.path, err)
	}
	release, err := filelock.Lock(ctx, s.path+".lock")
	if err != nil {
		return fmt.Errorf("open store %s: %w", s.path, err)
	}
	defer release()
	if fi, err := os.Stat(s.path); err == nil {
		return s.checkSize(fi) // another process made it while this one waited
	}
	// A -wal file without its database holds changes of a file moved or
	// deleted: SQLite would apply them to the new one and damage it.
	if _, err := os.Stat(s.path + "-wal"); err == nil {
		return fmt.Errorf("open store %s: the database is missing but %s-wal is there, with changes of the file that was moved away; move it along with that file (or delete it) first", s.path, s.path)
	}
	f, err := os.CreateTemp(filepath.Dir(s.path), "."+filepath.Base(s.path)+".new-*")
	if err != nil {
		return fmt.Errorf("create store %s: %w", s.path, err)
	}
	tmp := f.Name()
	f.Close()
	defer func() {
		for _, suffix := range []string{"", "-wal", "-shm", ".lock"} {
			_ = os.Remove(tmp + suffix)
		}
	}()
	db, err := sql.Open("sqlite", dsn(tmp, nil))
	if err != nil {
		return fmt.Errorf("create store %s: %w", s.path, err)
	}
	fresh := &Store{db: db, path: tmp, now: s.now}
	err = fresh.prepare(ctx)
	// Closing the last connection checkpoints the WAL into the file.
	if cerr := db.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("create store %s: %w", s.path, cerr)
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, s.path); err != nil {
		return fmt.Errorf("create store %s: %w", s.path, err)
	}
	return nil
}

// checkSize refuses an empty database file: memctl never leaves one (a
// new database is renamed into place whole), so something truncated it,
// and taking it for a new home would silently drop pins, edits, uses and
// history.
func (s *Store) checkSize(fi fs.FileInfo) error {
	if fi.Size() > 0 {
		return nil
	}
	return &DamagedError{Path: s.path, Why: "the file is empty (0 bytes); memctl never leaves an empty database, so something truncated it", Empty: true}
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

// prepare leaves the file in WAL mode at the newest schema. A store that is
// already there (every open but the first) takes no lock. Otherwise one
// process at a time, holding <path>.lock, switches the journal mode and
// runs the pending migrations; the others wait for the lock and then find
// the work done. The lock file is advisory and released with the process,
// so a crash mid-open never blocks the next one.
func (s *Store) prepare(ctx context.Context) error {
	ready, err := s.ready(ctx)
	if err != nil || ready {
		return err
	}
	release, err := filelock.Lock(ctx, s.path+".lock")
	if err != nil {
		return fmt.Errorf("open store %s: %w", s.path, err)
	}
	defer release()
	var mode string
	err = retryBusy(ctx, func() error {
		return s.db.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode)
	})
	if err != nil {
		return fmt.Errorf("open store %s: %w", s.path, err)
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("open store %s: journal mode is %q, want wal", s.path, mode)
	}
	return s.migrate(ctx)
}

// ready reports whether the file is already a WAL database at this
// binary's schema, and fails with ErrTooNew when it is past it.
func (s *Store) ready(ctx context.Context) (bool, error) {
	var mode string
	var version int
	err := retryBusy(ctx, func() error {
		if err := s.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
			return err
		}
		return s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version)
	})
	if err != nil {
		return false, fmt.Errorf("open store %s: %w", s.path, err)
	}
	latest := SchemaVersion()
	if version > latest {
		return false, fmt.Errorf("open store %s: %w: version %d, this binary knows up to %d", s.path, ErrTooNew, version, latest)
	}
	return strings.EqualFold(mode, "wal") && version == latest, nil
}

// migrate applies each pending migration in its own immediate transaction;
// user_version records the applied version. prepare holds the open lock,
// so only a process that bypasses it (an older memctl, the sqlite3 shell)
// can still meet SQLITE_BUSY here; retryBusy waits that out.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	latest := SchemaVersion()
	for _, m := range ms {
		err := retryBusy(ctx, func() error {
			return s.tx(ctx, func(tx *sql.Tx) error {
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
		})
		if err != nil {
			return fmt.Errorf("open store %s: %w", s.path, err)
		}
	}
	return nil
}

// tx runs fn in a write transaction (BEGIN IMMEDIATE through _txlock).
// A write that failed because the disk is full says so (ErrDiskFull).
func (s *Store) tx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if err := s.writable(); err != nil {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.diskFull(err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return s.diskFull(err)
	}
	return s.diskFull(tx.Commit())
}

// IntegrityCheck runs PRAGMA integrity_check and returns its verdict ("ok").
func (s *Store) IntegrityCheck(ctx context.Context) (string, error) {
	var res string
	err := s.db.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&res)
	return res, err
}

// QuickCheck runs SQLite's quick_check, which reads every page of the
// file (the cost grows with its size: a second or so for a few hundred
// megabytes) but skips the slower check that indexes match their tables.
// It returns at most limit problems SQLite found, none when the file is
// sound; a file too damaged to check is one problem, not an error.
func (s *Store) QuickCheck(ctx context.Context, limit int) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, fmt.Sprintf("PRAGMA quick_check(%d)", max(limit, 1)))
	if err != nil {
		if IsDamaged(err) {
			return []string{err.Error()}, nil
		}
		return nil, err
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return nil, err
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		if IsDamaged(err) {
			return append(problems, err.Error()), nil
		}
		return nil, err
	}
	return problems, nil
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
