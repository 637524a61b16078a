// Package cmd is memctl's command-line layer: flags to options to a pkg
// call. It owns the streams, the exit-code table and the one place errors
// are printed.
package cmd

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// Main runs memctl with the process's arguments and streams.
func Main() int {
	return run(os.Args[1:], SystemIO(), time.Now, os.Getenv)
}

// run is Main with its dependencies injected (tests call it directly).
// $MEMCTL_NOW, when set, replaces now.
func run(args []string, ios *IOStreams, now func() time.Time, getenv func(string) string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	now, clockErr := pinnedClock(getenv, now)
	f := &Factory{IO: ios, Now: now, Getenv: getenv, UserHome: userHome(getenv), Environ: os.Environ, clockErr: clockErr}
	root := newRootCmd(f)
	root.SetArgs(args)
	root.SetIn(ios.In)
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)
	err := root.ExecuteContext(ctx)
	return report(ios, f.JSON, err)
}

// userHome finds the user's home through getenv ($HOME, as
// os.UserHomeDir does on Unix), so in-process tests can place it.
func userHome(getenv func(string) string) func() (string, error) {
	return func() (string, error) {
		if h := getenv("HOME"); h != "" {
			return h, nil
		}
		return os.UserHomeDir()
	}
}

// pinnedClock applies MEMCTL_NOW: an RFC 3339 time that every clock read
// of the process returns, so tests and reproductions of a report see the
// same windows, cooldowns and backoffs every time. A malformed value is an
// *EnvError (exit 2), reported before any command runs: silently keeping
// the real clock would make a reproduction quietly wrong.
func pinnedClock(getenv func(string) string, now func() time.Time) (func() time.Time, error) {
	v := getenv("MEMCTL_NOW")
	if v == "" {
		return now, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return now, &EnvError{Name: "MEMCTL_NOW", Value: v, Want: "an RFC 3339 time such as 2026-06-10T12:00:00Z"}
	}
	return func() time.Time { return t }, nil
}
