package store

import (
	"errors"
	"fmt"

	sqlite3 "modernc.org/sqlite/lib"
)

// ErrDamaged is matched (errors.Is) by the error of Open, or of a read or
// write, when the database file is not a usable memctl database: empty,
// not SQLite (a damaged header) or corrupt. Retrying cannot help; the
// backup (BackupPath) or a salvage (Salvage) can.
var ErrDamaged = errors.New("damaged database")

// DamagedError is the error behind ErrDamaged: the file and what is wrong.
type DamagedError struct {
	Path string
	Why  string
	// Empty: the file has no byte at all.
	Empty bool
	Err   error
}

func (e *DamagedError) Error() string {
	msg := fmt.Sprintf("the database %s is damaged: %s", e.Path, e.Why)
	if e.Err != nil {
		msg += fmt.Sprintf(" (%v)", e.Err)
	}
	return msg
}

func (e *DamagedError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrDamaged) true.
func (e *DamagedError) Is(target error) bool { return target == ErrDamaged }

// IsDamaged reports whether err says the database file is damaged: a
// *DamagedError, or SQLite's SQLITE_NOTADB or SQLITE_CORRUPT met on any
// statement. The user needs to be told how to recover, not to retry.
func IsDamaged(err error) bool {
	if errors.Is(err, ErrDamaged) {
		return true
	}
	switch primaryCode(err) {
	case sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT:
		return true
	}
	return false
}

// damaged turns an error of Open that says the file is not SQLite, or is
// corrupt, into a *DamagedError naming the file; other errors pass.
func (s *Store) damaged(err error) error {
	var de *DamagedError
	if err == nil || errors.As(err, &de) || !IsDamaged(err) {
		return err
	}
	why := "it is corrupt"
	if primaryCode(err) == sqlite3.SQLITE_NOTADB {
		why = "it is not a SQLite database (its header is damaged or it was overwritten)"
	}
	return &DamagedError{Path: s.path, Why: why, Err: err}
}
