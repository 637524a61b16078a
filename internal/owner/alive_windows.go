//go:build windows

package owner

import "golang.org/x/sys/windows"

func pidNamespace() string { return "" }

// alive reports whether a process with this pid is still running: it can
// be opened and has no exit code yet. A process that cannot be opened for
// another reason (access denied) counts as alive.
func alive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return err != windows.ERROR_INVALID_PARAMETER
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return true
	}
	const stillActive = 259
	return code == stillActive
}
