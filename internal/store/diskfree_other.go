//go:build !linux && !darwin && !windows

package store

// freeBytes cannot tell on this platform; only SQLITE_FULL and ENOSPC
// are then reported as a full disk.
func freeBytes(string) (uint64, bool) { return 0, false }
