//go:build !unix && !windows

package filelock

import "os"

// Platforms without advisory locks (wasm, plan9) rely on SQLite's own
// locking and the retries around it.
func tryLock(*os.File) (bool, error) { return true, nil }
func unlock(*os.File) error          { return nil }
