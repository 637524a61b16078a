//go:build !unix

package model

import "os/exec"

// setProcessGroup keeps exec's default on systems without Unix process
// groups: cancellation kills the program itself.
func setProcessGroup(cmd *exec.Cmd) {}
