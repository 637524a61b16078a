//go:build windows

package store

import (
	"path/filepath"

	"golang.org/x/sys/windows"
)

// freeBytes returns the space the caller may still use on the disk
// holding path.
func freeBytes(path string) (uint64, bool) {
	dir, err := windows.UTF16PtrFromString(filepath.Dir(path))
	if err != nil {
		return 0, false
	}
	var avail, total, free uint64
	if err := windows.GetDiskFreeSpaceEx(dir, &avail, &total, &free); err != nil {
		return 0, false
	}
	return avail, true
}
