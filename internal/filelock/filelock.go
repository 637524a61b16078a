// Package filelock takes an exclusive advisory lock on a file, shared by
// every process on the machine: flock(2) on Unix, LockFileEx on Windows.
// The lock goes away with the process, so a crash never leaves it held.
package filelock

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"time"
)

// Lock creates path (0600) when missing and holds an exclusive lock on it
// until release is called, waiting while another process holds it. It
// polls rather than blocks so that ctx can end the wait.
func Lock(ctx context.Context, path string) (release func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	wait := time.Millisecond
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if ok {
			return func() {
				_ = unlock(f)
				_ = f.Close()
			}, nil
		}
		// Jitter keeps a crowd of waiters from waking in step.
		d := wait/2 + rand.N(wait)
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, ctx.Err())
		case <-time.After(d):
		}
		if wait < 32*time.Millisecond {
			wait *= 2
		}
	}
}
