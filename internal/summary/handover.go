package summary

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// MemctlBeside is the memctl installed in the same folder as the program
// exe (memctl-summary): the one whose summary it stands in for. "" when
// there is none.
func MemctlBeside(exe string) string { return programBeside(exe, "memctl") }

// ProgramBeside is the memctl-summary installed in the same folder as
// memctl, which memctl setup writes into the hooks; "" when there is none.
func ProgramBeside(memctl string) string { return programBeside(memctl, "memctl-summary") }

// programBeside is the executable file name in the folder of exe, or "".
func programBeside(exe, name string) string {
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	p := filepath.Join(filepath.Dir(exe), name)
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0 {
		return ""
	}
	return p
}

// RunMemctl runs `memctl summary args…` with stdin, stdout and stderr,
// and returns its exit code: what memctl-summary hands on. Without a
// memctl to run it says so and fails (exit 1).
func RunMemctl(memctl string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if memctl == "" {
		fmt.Fprintln(stderr, "memctl-summary: error: no memctl in the folder of memctl-summary to answer this call; install both with go install . ./cmd/memctl-summary")
		return 1
	}
	c := exec.Command(memctl, append([]string{"summary"}, args...)...)
	c.Stdin, c.Stdout, c.Stderr = stdin, stdout, stderr
	err := c.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		return exit.ExitCode()
	case errors.As(err, &exit):
		return 1 // ended by a signal
	}
	fmt.Fprintf(stderr, "memctl-summary: error: run %s: %v\n", memctl, err)
	return 1
}
