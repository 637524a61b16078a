//go:build unix && !linux

package procgroup

import "syscall"

// dieWithParent is a no-op where the kernel offers no parent-death signal.
func dieWithParent(*syscall.SysProcAttr) {}
