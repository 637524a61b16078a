package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"syscall"
	"time"

	sqlite3 "modernc.org/sqlite/lib"
)

// ErrReadOnly is matched (errors.Is) by the error of a write to a store
// that Open opened read-only (ReadOnlyFallback).
var ErrReadOnly = errors.New("the database can only be read")

// ReadOnlyError is the error behind ErrReadOnly: the database and why it
// could not be opened for writing (a read-only folder or file system, a
// full disk: errors.Is(err, ErrDiskFull) holds then too).
type ReadOnlyError struct {
	Path  string
	Cause error
}

func (e *ReadOnlyError) Error() string {
	return fmt.Sprintf("the database %s can only be read, not written (%v)", e.Path, e.Cause)
}

func (e *ReadOnlyError) Unwrap() []error { return []error{ErrReadOnly, e.Cause} }

// ReadOnlyFallback lets Open open an existing database read-only when it
// cannot be opened for writing: its folder or file system is read-only,
// or the disk is full (SQLite cannot make its shared-memory file). Reads
// work as usual; every write fails with a *ReadOnlyError. A database that
// does not exist is not made, and one at an older schema is not read (it
// would need its migrations written first).
func ReadOnlyFallback() Option { return func(s *Store) { s.fallback = true } }

// ReadOnly reports why the store can only be read; nil when it can write.
func (s *Store) ReadOnly() error { return s.readOnly }

// writable fails with a *ReadOnlyError on a store opened read-only, so a
// write says why it cannot be done rather than SQLite's "attempt to write
// a readonly database".
func (s *Store) writable() error {
	if s.readOnly != nil {
		return &ReadOnlyError{Path: s.path, Cause: s.readOnly}
	}
	return nil
}

// cannotWrite reports whether an error of Open means the database could
// not be opened for writing, though it may be read.
func cannotWrite(err error) bool {
	if errors.Is(err, ErrDiskFull) || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM) {
		return true
	}
	switch primaryCode(err) {
	case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM:
		return true
	}
	return false
}

// openReadOnly opens the existing database read-only; cause is why it
// could not be opened for writing. SQLite reads a WAL database read-only
// when its shared-memory file exists or can be made (mode=ro); on a
// folder where it cannot, the file is opened as immutable, which is
// right only when no changes wait in the -wal file (closing the last
// connection moves them into the database), so a non-empty -wal file is
// refused then.
func (s *Store) openReadOnly(ctx context.Context, cause error) (*Store, error) {
	fi, err := os.Stat(s.path)
	if err != nil {
		return nil, err
	}
	if err := s.checkSize(fi); err != nil {
		return nil, err
	}
	ro := *s
	ro.readOnly = writeCause(filepath.Dir(s.path), cause)
	if err := ro.connect(ctx, url.Values{"mode": {"ro"}}); err == nil {
		return &ro, nil
	} else if IsDamaged(err) || errors.Is(err, ErrTooNew) || errors.Is(err, errOldSchema) {
		return nil, err
	}
	if wal, err := os.Stat(s.path + "-wal"); err == nil && wal.Size() > 0 {
		return nil, fmt.Errorf("open store %s read-only: changes wait in %s, which SQLite cannot read without writing %s-shm", s.path, s.path+"-wal", s.path)
	}
	if err := ro.connect(ctx, url.Values{"immutable": {"1"}}); err != nil {
		return nil, err
	}
	return &ro, nil
}

// writeCause says why a database in dir cannot be written, in the words
// of the file system when a file cannot be made there ("read-only file
// system", "permission denied"), else SQLite's error of the open.
func writeCause(dir string, openErr error) error {
	if errors.Is(openErr, ErrDiskFull) {
		return openErr
	}
	f, err := os.CreateTemp(dir, ".memctl-write-probe-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return fmt.Errorf("the folder %s cannot be written: %w", dir, pe.Err)
		}
		return err
	}
	f.Close()
	_ = os.Remove(f.Name())
	return openErr
}

// errOldSchema is a read-only database at an older schema than this
// binary's: its migrations cannot be applied.
var errOldSchema = errors.New("older schema")

// connect opens s.db read-only with the extra DSN parameters and checks
// that the schema is this binary's.
func (s *Store) connect(ctx context.Context, extra url.Values) error {
	db, err := sql.Open("sqlite", dsn(s.path, extra))
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(4)
	db.SetConnMaxIdleTime(time.Minute)
	var version int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		db.Close()
		return s.damaged(fmt.Errorf("open store %s read-only: %w", s.path, err))
	}
	if latest := SchemaVersion(); version != latest {
		db.Close()
		if version > latest {
			return fmt.Errorf("open store %s: %w: version %d, this binary knows up to %d", s.path, ErrTooNew, version, latest)
		}
		return fmt.Errorf("open store %s read-only: %w: it is at schema %d and this memctl needs %d, which it cannot write while the database can only be read", s.path, errOldSchema, version, latest)
	}
	s.db = db
	return nil
}

// exec runs one write statement outside a transaction.
func (s *Store) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if err := s.writable(); err != nil {
		return nil, err
	}
	res, err := s.db.ExecContext(ctx, query, args...)
	return res, s.diskFull(err)
}
