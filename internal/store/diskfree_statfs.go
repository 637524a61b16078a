//go:build linux || darwin

package store

import (
	"path/filepath"
	"syscall"
)

// freeBytes returns the space an unprivileged process may still use on
// the disk holding path.
func freeBytes(path string) (uint64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(filepath.Dir(path), &st); err != nil {
		return 0, false
	}
	return uint64(st.Bavail) * uint64(st.Bsize), true
}
