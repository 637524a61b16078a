//go:build !unix

package consolidate

import "os/exec"

// setProcessGroup is a no-op where process groups are not available.
func setProcessGroup(cmd *exec.Cmd) {}

func killProcessGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
