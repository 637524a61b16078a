//go:build !unix

package procgroup

import "os/exec"

// Set keeps exec's default where there are no Unix process groups:
// cancellation kills the program itself.
func Set(cmd *exec.Cmd) {}

// Kill kills cmd's process. A command not started yet is left alone.
func Kill(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
