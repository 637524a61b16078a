//go:build unix

package model

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts the program in its own process group and makes
// cancellation kill the whole group, so a wrapper script's children (an
// agent CLI it launched, say) die with it instead of running on unseen.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr)
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
