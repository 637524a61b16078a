//go:build linux

package procgroup

import "syscall"

// dieWithParent asks the kernel to kill the child when memctl dies, even
// by SIGKILL: a consolidation agent or model command left running without
// memctl would keep writing with no lock held.
func dieWithParent(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
