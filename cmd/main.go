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
	now := time.Now
	// MEMCTL_NOW pins the clock (RFC 3339) so tests and reproductions of a
	// report see the same windows, cooldowns and backoffs every time.
	if v := os.Getenv("MEMCTL_NOW"); v != "" {
		if t, err := time.Parse(time.RFC3339, v); err == nil {
			now = func() time.Time { return t }
		}
	}
	return run(os.Args[1:], SystemIO(), now, os.Getenv)
}

// run is Main with its dependencies injected (tests call it directly).
func run(args []string, ios *IOStreams, now func() time.Time, getenv func(string) string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	f := &Factory{IO: ios, Now: now, Getenv: getenv, UserHome: os.UserHomeDir}
	root := newRootCmd(f)
	root.SetArgs(args)
	root.SetIn(ios.In)
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)
	err := root.ExecuteContext(ctx)
	return report(ios, f.JSON, err)
}
