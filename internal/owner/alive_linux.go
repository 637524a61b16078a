//go:build linux

package owner

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// hostPidNamespace is the inode of the host's (initial) pid namespace,
// which the kernel gives a fixed number (PROC_PID_INIT_INO).
const hostPidNamespace = "4026531836"

// pidNamespace returns the inode of this process's pid namespace when it
// is not the host's, else "".
func pidNamespace() string {
	link, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return ""
	}
	ns := strings.TrimSuffix(strings.TrimPrefix(link, "pid:["), "]")
	if ns == hostPidNamespace || ns == link {
		return ""
	}
	return ns
}

// alive reports whether a process with this pid exists and is not a
// zombie (a killed memctl that its parent has not reaped yet holds
// nothing any more).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return !errors.Is(err, syscall.ESRCH)
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z' && s[i+2] != 'X'
	}
	return true
}
