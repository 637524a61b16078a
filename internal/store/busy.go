package store

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// isBusy reports whether err is SQLITE_BUSY or SQLITE_LOCKED, in any of
// their extended forms (BUSY_SNAPSHOT, BUSY_RECOVERY, LOCKED_SHAREDCACHE…).
func isBusy(err error) bool {
	switch primaryCode(err) {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return true
	}
	return false
}

// primaryCode is SQLite's primary result code of err (the extended code's
// low byte: SQLITE_IOERR for SQLITE_IOERR_SHMSIZE), 0 when err is not
// SQLite's.
func primaryCode(err error) int {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return 0
	}
	return se.Code() & 0xff
}

// retryBusy runs fn again while it fails with SQLITE_BUSY, for the few
// statements SQLite does not route through the busy handler (a journal
// mode switch, a read that meets another process's WAL recovery). The
// waits grow from 1 ms to 100 ms with jitter and stop at busyTimeout, the
// same bound every other statement has; any other error returns at once.
func retryBusy(ctx context.Context, fn func() error) error {
	// Elapsed real time, not the injected clock: a clock pinned with
	// MEMCTL_NOW never advances, and the wait is about other processes.
	deadline := time.Now().Add(busyTimeout)
	wait := time.Millisecond
	for {
		err := fn()
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait/2 + rand.N(wait)):
		}
		if wait < 100*time.Millisecond {
			wait *= 2
		}
	}
}
