// Command memctl-summary prints what `memctl summary` prints, for the
// agents' hooks: a small program that starts in a fraction of memctl's
// time and hands every call it does not answer itself on to the memctl
// installed beside it (internal/summary, Main).
//
// It runs once per agent session and ends within milliseconds, so the
// runtime's watch of the container's CPU limit is left off: reading the
// cgroup files at start and the goroutine that re-reads them cost more
// than the whole summary.

//go:debug containermaxprocs=0
//go:debug updatemaxprocs=0
package main

import (
	"context"
	"io"
	"os"

	"github.com/memctl/memctl/internal/summary"
	"golang.org/x/term"
)

func main() {
	reserveStack(len(os.Args))
	os.Exit(summary.Main(context.Background(), os.Args[1:], summary.System{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		StdinTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		StdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		StderrTTY: term.IsTerminal(int(os.Stderr.Fd())),
		Getenv:    os.Getenv, Environ: os.Environ, UserHome: userHome, Getwd: os.Getwd,
		HandOver: func(args []string, stdin io.Reader) int {
			// Found only when needed: reading /proc/self/exe cost a
			// summary printed here more than the flags did.
			exe, _ := os.Executable()
			return summary.RunMemctl(summary.MemctlBeside(exe), args, stdin, os.Stdout, os.Stderr)
		},
	}))
}

// userHome is $HOME, as memctl finds it.
func userHome() (string, error) {
	if h := os.Getenv("HOME"); h != "" {
		return h, nil
	}
	return os.UserHomeDir()
}

// reserveStack grows the main goroutine's stack once, while it is
// shallow, to the 32 KB a summary reaches. Left to grow as it goes, the
// stack is copied four times (2 KB to 32 KB), each copy walking every
// frame of a deeper stack and faulting in the runtime's tables for them.
// Its frame alone makes the stack grow; the array is never touched.
//
//go:noinline
func reserveStack(n int) byte {
	if n < 0 {
		var frame [20 << 10]byte
		frame[n&0x3fff] = byte(n)
		return frame[(n*7)&0x3fff]
	}
	return 0
}
