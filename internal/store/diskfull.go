package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"syscall"

	sqlite3 "modernc.org/sqlite/lib"
)

// ErrDiskFull is matched (errors.Is) by the error of Open or of a write
// that failed because the disk holding the database is full: SQLite's
// SQLITE_FULL, ENOSPC, or an I/O error (SQLITE_IOERR_*, such as "disk I/O
// error (4874)" when the shared-memory file cannot grow) met while the
// disk has less than lowSpace left.
var ErrDiskFull = errors.New("disk full")

// lowSpace is the free space under which an I/O error is taken for a full
// disk: SQLite grows its files by pages and its shared memory by 32 KiB.
const lowSpace = 1 << 20

// DiskFullError is the error behind ErrDiskFull: the database, the space
// left on its disk (when known) and SQLite's own error.
type DiskFullError struct {
	Path string
	Free uint64
	// FreeKnown is false where the free space cannot be read.
	FreeKnown bool
	Err       error
}

func (e *DiskFullError) Error() string {
	free := ""
	if e.FreeKnown {
		free = fmt.Sprintf(" (%s free)", byteCount(e.Free))
	}
	return fmt.Sprintf("the disk holding %s is full%s: %v", filepath.Dir(e.Path), free, e.Err)
}

func (e *DiskFullError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrDiskFull) true.
func (e *DiskFullError) Is(target error) bool { return target == ErrDiskFull }

// diskFull returns err as a *DiskFullError when it comes from a full disk,
// else unchanged.
func (s *Store) diskFull(err error) error {
	if err == nil {
		return nil
	}
	var already *DiskFullError
	if errors.As(err, &already) {
		return err
	}
	enospc := errors.Is(err, syscall.ENOSPC)
	sqliteFull, ioErr := false, false
	switch primaryCode(err) {
	case sqlite3.SQLITE_FULL:
		sqliteFull = true
	case sqlite3.SQLITE_IOERR:
		ioErr = true
	}
	if !enospc && !sqliteFull && !ioErr {
		return err
	}
	free, known := s.freeBytes(s.path)
	switch {
	case enospc:
		// The kernel said so.
	case known && free < lowSpace:
		// SQLite's "database or disk is full", or an I/O error, on a disk
		// with (almost) nothing left.
	case !known && sqliteFull:
		// Nothing to check against: take SQLite's word.
	default:
		// Room to spare: SQLITE_FULL from a page-count limit or a full
		// temporary directory, or an I/O error of another kind.
		return err
	}
	return &DiskFullError{Path: s.path, Free: free, FreeKnown: known, Err: err}
}

// byteCount renders n bytes for a message: 512 B, 12 KiB, 3.4 MiB.
func byteCount(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := uint64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	v := float64(n) / float64(div)
	if v >= 10 {
		return fmt.Sprintf("%.0f %ciB", v, "KMGTP"[exp])
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGTP"[exp])
}
