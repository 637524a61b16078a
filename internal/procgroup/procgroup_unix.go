//go:build unix

package procgroup

import (
	"os/exec"
	"syscall"
)

// Set makes cmd start in its own process group, die with memctl (where the
// kernel offers that), and, when its context is cancelled, be killed with
// its whole group. Call it before cmd.Start.
func Set(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr)
	cmd.Cancel = func() error { return Kill(cmd) }
}

// Kill sends SIGKILL to cmd's process group, or to the process alone when
// the group cannot be signalled. A command not started yet is left alone.
func Kill(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		return cmd.Process.Kill()
	}
	return nil
}
