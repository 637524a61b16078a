//go:build unix

package plainfile

import (
	"io/fs"
	"os"
	"syscall"
)

// Open is os.Open for reading: the file is opened by open(2) and wrapped
// by os.NewFile, which leaves a blocking descriptor out of the poller.
// Its errors are os.Open's.
func Open(name string) (*os.File, error) {
	for {
		fd, err := syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err == nil {
			return os.NewFile(uintptr(fd), name), nil
		}
		if err != syscall.EINTR {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
	}
}
