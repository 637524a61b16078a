//go:build unix

package summary

import (
	"errors"
	"io"
	"os"
	"slices"
	"time"

	"golang.org/x/sys/unix"
)

// readFileWithin is readWithin for an *os.File, on the calling thread:
// poll(2) waits for each read with what is left of wait. A goroutine and
// a timer would start a thread and the runtime's poller, which took a
// noticeable share of the hook's time. polled is false for anything but
// a file, which the caller then reads itself.
func readFileWithin(r io.Reader, wait time.Duration) (b []byte, ok, polled bool) {
	f, isFile := r.(*os.File)
	if !isFile {
		return nil, false, false
	}
	conn, err := f.SyscallConn()
	if err != nil {
		return nil, false, false
	}
	deadline := time.Now().Add(wait)
	if err := conn.Control(func(fd uintptr) { b, ok = pollRead(int(fd), deadline) }); err != nil {
		return nil, false, true
	}
	return b, ok, true
}

// pollRead reads fd to its end, or its first maxHookPayload bytes, by
// deadline.
func pollRead(fd int, deadline time.Time) ([]byte, bool) {
	var b []byte
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return nil, false
		}
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int((left+time.Millisecond-1)/time.Millisecond))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n == 0 {
			return nil, false // poll failed, or the payload is late
		}
		if len(b) == cap(b) {
			b = slices.Grow(b, max(512, len(b))) // a payload is a few hundred bytes
		}
		m, err := unix.Read(fd, b[len(b):min(cap(b), maxHookPayload)])
		switch {
		case errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN):
			continue
		case err != nil:
			return nil, false
		case m == 0:
			return b, true
		}
		if b = b[:len(b)+m]; len(b) == maxHookPayload {
			return b, true
		}
	}
}
