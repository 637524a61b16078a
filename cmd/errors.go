package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/fatih/color"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/doctor"
	"github.com/memctl/memctl/internal/store"
	"github.com/memctl/memctl/internal/syncgit"
	"github.com/memctl/memctl/internal/termtext"
)

// Exit codes: a small, stable, documented table (docs/exit-codes.md).
const (
	ExitOK          = 0   // success, also "nothing to do" and a skipped stage
	ExitError       = 1   // runtime failure
	ExitUsage       = 2   // bad flag, argument or config value
	ExitPartial     = 3   // some jobs of this run failed
	ExitUnhealthy   = 5   // memctl doctor found problems
	ExitDiverged    = 6   // memctl sync: the remote cannot be merged cleanly; nothing changed
	ExitRefused     = 7   // memctl team propose: a secret or an instruction; nothing written
	ExitInterrupted = 130 // stopped by SIGINT or SIGTERM
)

// FlagError is a usage error: it prints the usage hint and exits 2.
type FlagError struct{ Err error }

func (e *FlagError) Error() string { return e.Err.Error() }
func (e *FlagError) Unwrap() error { return e.Err }

// FlagErrorf builds a FlagError.
func FlagErrorf(format string, args ...any) error {
	return &FlagError{Err: fmt.Errorf(format, args...)}
}

// EnvError is a malformed MEMCTL_* environment variable; exit 2.
type EnvError struct {
	Name, Value string
	Want        string // what a valid value looks like
}

func (e *EnvError) Error() string {
	return fmt.Sprintf("%s=%q is not valid: want %s", e.Name, e.Value, e.Want)
}

// PartialError reports a run where some jobs failed; exit 3.
type PartialError struct {
	Failed int
	Total  int
}

func (e *PartialError) Error() string {
	return fmt.Sprintf("%d of %d jobs failed (each is recorded with its reason and retried later; see `memctl status`)", e.Failed, e.Total)
}

// SalvageError is an export that read a damaged database: the bundle
// holds what could be read, and the warnings before it list what could
// not; exit 3 (partial).
type SalvageError struct {
	Path string
	// Memories counts the memories the bundle holds.
	Memories int
}

func (e *SalvageError) Error() string {
	return fmt.Sprintf("the database %s is damaged: the bundle holds the %d memories that could be read (what could not is listed above)", e.Path, e.Memories)
}

// RefusedError is content memctl will not share (a secret, an
// instruction-shaped line), refused whole; exit 7.
type RefusedError struct{ Err error }

func (e *RefusedError) Error() string { return e.Err.Error() }
func (e *RefusedError) Unwrap() error { return e.Err }

// hookError is a failure of `cite --hook`: an agent hook must never be
// told to block (Claude Code treats exit 2 as "do not stop"), so every
// hook failure is a plain error, exit 1.
type hookError struct{ err error }

func (e *hookError) Error() string { return e.err.Error() }
func (e *hookError) Unwrap() error { return e.err }

// hintError adds a "memctl: hint:" line under the error.
type hintError struct {
	err  error
	hint string
}

func (e *hintError) Error() string { return e.err.Error() }
func (e *hintError) Unwrap() error { return e.err }

func withHint(err error, hint string) error { return &hintError{err: err, hint: hint} }

// exitCode maps an error to the exit-code table; the only place that does.
func exitCode(err error) int {
	var flagErr *FlagError
	var cfgErr *config.Error
	var partial *PartialError
	var hook *hookError
	var envErr *EnvError
	var unhealthy *doctor.UnhealthyError
	var diverged *syncgit.DivergedError
	var refused *RefusedError
	var salvage *SalvageError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &hook):
		return ExitError
	case errors.As(err, &flagErr), errors.As(err, &cfgErr), errors.As(err, &envErr):
		return ExitUsage
	case errors.As(err, &partial), errors.As(err, &salvage):
		return ExitPartial
	case errors.As(err, &unhealthy):
		return ExitUnhealthy
	case errors.As(err, &diverged):
		return ExitDiverged
	case errors.As(err, &refused):
		return ExitRefused
	case errors.Is(err, context.Canceled):
		return ExitInterrupted
	}
	return ExitError
}

// errorJSON is what a failure writes to stderr under --json.
type errorJSON struct {
	Error string `json:"error"`
	Code  int    `json:"code"`
}

// report prints an error once, to stderr, and returns its exit code.
// Under --json a failure also writes {"error","code"} to stderr.
func report(ios *IOStreams, jsonMode bool, err error) int {
	code := exitCode(err)
	if err == nil {
		return code
	}
	msg := err.Error()
	if errors.Is(err, context.Canceled) {
		msg = "interrupted"
	}
	if jsonMode {
		b, _ := json.Marshal(errorJSON{Error: msg, Code: code})
		fmt.Fprintln(ios.ErrOut, string(termtext.JSON(b)))
		return code
	}
	label := "error"
	var partial *PartialError
	var unhealthy *doctor.UnhealthyError
	var salvage *SalvageError
	if errors.As(err, &partial) || errors.As(err, &unhealthy) || errors.As(err, &salvage) {
		label = "warning"
	}
	// An error may quote a path found on disk or words of a transcript.
	fmt.Fprintf(ios.ErrOut, "memctl: %s: %s\n", ios.errPaint(color.FgRed, label), ios.ErrText(msg))
	var h *hintError
	var flagErr *FlagError
	switch {
	case errors.As(err, &h) && h.hint != "":
		fmt.Fprintf(ios.ErrOut, "memctl: hint: %s\n", ios.ErrText(h.hint))
	case errors.As(err, &flagErr) && !strings.Contains(msg, "--help"):
		fmt.Fprintln(ios.ErrOut, "memctl: hint: run with --help for usage")
	case errors.Is(err, store.ErrDiskFull):
		fmt.Fprintln(ios.ErrOut, "memctl: hint: free some space on that disk and run again; the next run takes back the threads this one held")
	case errors.Is(err, store.ErrReadOnly):
		fmt.Fprintln(ios.ErrOut, "memctl: hint: the memctl home cannot be written; the commands that only read (status, search, memories list, doctor, export) still work")
	case store.IsDamaged(err):
		// The file is not moved or rebuilt here: what it still holds
		// (pins, edits, uses, history) is the user's to recover.
		fmt.Fprintln(ios.ErrOut, "memctl: hint: `memctl doctor` names the backup memctl keeps and how to restore it; `memctl export -o rescue.jsonl` salvages what can still be read")
	}
	return code
}
