// Package testenv holds the one switch that turns on memctl's slow and
// networked test suites. A plain `go test ./...` stays fast and hermetic:
// the MCP inspector (fetched from npm), the soak, SIGKILL-crash and stress
// storms and the real-agent suite skip, each saying how to run it. CI
// (.ci/run) sets the switch and runs them all:
//
//	MEMCTL_FULL=1 go test ./...
package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// FullVar is the environment variable of the switch; "1" turns it on.
const FullVar = "MEMCTL_FULL"

// Full reports whether the full suite was asked for.
func Full() bool { return os.Getenv(FullVar) == "1" }

// RequireFull skips t unless the full suite was asked for. why says what
// makes the test slow or networked; the message names the command that
// runs it.
func RequireFull(t testing.TB, why string) {
	t.Helper()
	if !Full() {
		t.Skipf("%s; run it with: %s=1 go test -run '^%s$' %s", why, FullVar, t.Name(), PackageArg())
	}
}

// PackageArg returns the go test argument of the package whose test is
// running ("./cmd"), found from the working directory, which go test sets
// to the package's folder; "." when the module root is not found.
func PackageArg() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil || rel == "." {
				return "."
			}
			return "./" + filepath.ToSlash(rel)
		}
		if filepath.Dir(dir) == dir {
			return "."
		}
	}
}
