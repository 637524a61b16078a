// Package plainfile opens and reads files as os.Open and os.ReadFile do,
// without handing them to the Go runtime's network poller. On Linux,
// os.Open offers every file it opens to the poller: the first open starts
// it (an epoll instance and an event file) and each open then tries to
// register the file, which a regular file refuses, four system calls in
// all. The summary a hook prints reads a few small files and nothing
// else, and that was a noticeable share of its run.
package plainfile

import (
	"io"
)

// ReadFile is os.ReadFile: the contents of name, with the same errors.
func ReadFile(name string) ([]byte, error) {
	f, err := Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := 0
	if fi, err := f.Stat(); err == nil && int64(int(fi.Size())) == fi.Size() {
		size = int(fi.Size())
	}
	// One byte more for the read that finds the end, and 512 at least,
	// as os.ReadFile reads (files in /proc claim no size).
	data := make([]byte, 0, max(size+1, 512))
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return data, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}
