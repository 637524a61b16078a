package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/consolidate"
)

// runMemctl runs memctl in-process over test streams and a temporary home.
func runMemctl(t *testing.T, tty bool, env map[string]string, args ...string) (*testStreams, int) {
	t.Helper()
	ios := newTestIO(tty)
	f := newTestFactory(t, ios.IOStreams, nil)
	userHome, _ := f.UserHome()
	all := map[string]string{"MEMCTL_HOME": f.HomeFlag, "HOME": userHome}
	for k, v := range env {
		all[k] = v
	}
	code := run(args, ios.IOStreams, func() time.Time { return testNow }, func(k string) string { return all[k] })
	return ios, code
}

// TestRunExitCodes is the exit-code table, end to end through run.
func TestRunExitCodes(t *testing.T) {
	for _, tt := range []struct {
		args       []string
		want       int
		wantStderr string
	}{
		{[]string{"--help"}, ExitOK, ""},
		{[]string{"version"}, ExitOK, ""},
		{[]string{"summary"}, ExitOK, ""},
		{[]string{"prune", "--bogus"}, ExitUsage, "memctl: error: unknown flag: --bogus\nmemctl: hint: run with --help for usage\n"},
		{[]string{"prune", "--max-unused-days", "abc"}, ExitUsage, "memctl: error: --max-unused-days: invalid value \"abc\": want an integer\n"},
		{[]string{"--memory-version", "v3", "status"}, ExitUsage, "memctl: error: --memory-version: invalid value \"v3\": want one of: v1, v2\n"},
		{[]string{"-q", "-v", "status"}, ExitUsage, "memctl: error: --quiet and --verbose cannot be used together\n"},
		{[]string{"config"}, ExitUsage, "memctl: error: memctl config needs a subcommand: init, path, show\n"},
		{[]string{"clear"}, ExitUsage, "memctl: error: clear deletes every memory; pass --yes to confirm"},
		{[]string{"extract", "--provider", "heuristic", "--thread", "nope"}, ExitUsage, "memctl: error: --thread \"nope\""},
		{[]string{"cite", "--hook", "cursor"}, ExitError, "memctl: error: --hook: invalid value \"cursor\""},
		{[]string{"--config", "/nonexistent/memctl.toml", "status"}, ExitUsage, "memctl: error: config /nonexistent/memctl.toml: open"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			ios, code := runMemctl(t, false, nil, tt.args...)
			if code != tt.want {
				t.Errorf("exit %d, want %d\nstderr: %s", code, tt.want, ios.errOut)
			}
			if got := ios.errOut.String(); !strings.HasPrefix(got, tt.wantStderr) {
				t.Errorf("stderr:\n%q\nwant it to start with:\n%q", got, tt.wantStderr)
			}
		})
	}
}

func TestExitCode(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want int
	}{
		{nil, ExitOK},
		{errors.New("boom"), ExitError},
		{FlagErrorf("--x"), ExitUsage},
		{fmt.Errorf("wrapped: %w", FlagErrorf("--x")), ExitUsage},
		{&config.Error{Key: "memories.version", Err: errors.New("bad")}, ExitUsage},
		{&PartialError{Failed: 1, Total: 2}, ExitPartial},
		{fmt.Errorf("v1: %w", &consolidate.FailedError{Status: consolidate.StatusFailedAgent, Err: errors.New("exit 4")}), ExitError},
		{fmt.Errorf("extract: %w", context.Canceled), ExitInterrupted},
		{&hookError{err: FlagErrorf("--hook codex needs the notify JSON")}, ExitError},
		{&hookError{err: &config.Error{Key: "k", Err: errors.New("bad")}}, ExitError},
	} {
		if got := exitCode(tt.err); got != tt.want {
			t.Errorf("exitCode(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}

func TestReport(t *testing.T) {
	for _, tt := range []struct {
		name       string
		err        error
		json, tty  bool
		wantErrOut string
	}{
		{name: "error", err: errors.New("open store: locked"), wantErrOut: "memctl: error: open store: locked\n"},
		{name: "error on a terminal: red label", err: errors.New("boom"), tty: true, wantErrOut: "memctl: \x1b[31merror\x1b[0m: boom\n"},
		{name: "usage error: hint", err: FlagErrorf("--max must be at least 1"),
			wantErrOut: "memctl: error: --max must be at least 1\nmemctl: hint: run with --help for usage\n"},
		{name: "hint", err: withHint(errors.New("x already exists"), "use --force to overwrite it"),
			wantErrOut: "memctl: error: x already exists\nmemctl: hint: use --force to overwrite it\n"},
		{name: "partial is a warning", err: &PartialError{Failed: 1, Total: 3},
			wantErrOut: "memctl: warning: 1 of 3 jobs failed (each is recorded with its reason and retried later; see `memctl status`)\n"},
		{name: "interrupted", err: fmt.Errorf("extract: %w", context.Canceled), wantErrOut: "memctl: error: interrupted\n"},
		{name: "json", err: &PartialError{Failed: 1, Total: 3}, json: true,
			wantErrOut: `{"error":"1 of 3 jobs failed (each is recorded with its reason and retried later; see ` + "`memctl status`" + `)","code":3}` + "\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(tt.tty)
			code := report(ios.IOStreams, tt.json, tt.err)
			if code != exitCode(tt.err) {
				t.Errorf("code %d, want %d", code, exitCode(tt.err))
			}
			if got := ios.errOut.String(); got != tt.wantErrOut {
				t.Errorf("stderr:\n%q\nwant:\n%q", got, tt.wantErrOut)
			}
			if ios.out.Len() != 0 {
				t.Errorf("stdout %q", ios.out)
			}
		})
	}
}

// TestUsageErrorsInMemctlWords: each mistake names the
// command, what it takes and what it got, with the same exit code (2).
func TestUsageErrorsInMemctlWords(t *testing.T) {
	const help = "memctl: hint: run with --help for usage\n"
	for _, tt := range []struct {
		args       []string
		wantErrOut string
	}{
		{[]string{"stauts"}, "memctl: error: unknown command \"stauts\" for \"memctl\"\nmemctl: hint: did you mean memctl status?\n"},
		{[]string{"threads", "lst"}, "memctl: error: unknown command \"lst\" for \"memctl threads\"\nmemctl: hint: did you mean memctl threads list?\n"},
		{[]string{"frobnicate"}, "memctl: error: unknown command \"frobnicate\" for \"memctl\"\nmemctl: hint: run 'memctl --help' for the commands\n"},
		{[]string{"prune", "--dryrun"}, "memctl: error: unknown flag: --dryrun\nmemctl: hint: did you mean --dry-run?\n"},
		{[]string{"extract", "--thred", "x"}, "memctl: error: unknown flag: --thred\nmemctl: hint: did you mean --thread?\n"},
		{[]string{"summary", "extra-arg"}, "memctl: error: memctl summary takes no arguments, got \"extra-arg\"\n" + help},
		{[]string{"search"}, "memctl: error: memctl search needs QUERY\n" + help},
		{[]string{"threads", "show"}, "memctl: error: memctl threads show needs ID\n" + help},
		{[]string{"threads", "show", "a", "b"}, "memctl: error: memctl threads show takes one argument (ID), got 2: \"a\" \"b\"\n" + help},
		{[]string{"completion"}, "memctl: error: memctl completion needs one of: bash, zsh, fish, powershell\n" + help},
		{[]string{"completion", "tcsh"}, "memctl: error: memctl completion: invalid argument \"tcsh\": want one of: bash, zsh, fish, powershell\n" + help},
		{[]string{"--max", "abc"}, "memctl: error: unknown flag: --max\n" + help},
		{[]string{"extract", "--max", "abc"}, "memctl: error: --max: invalid value \"abc\": want an integer\n" + help},
		{[]string{"extract", "--provider", "gpt"}, "memctl: error: --provider: invalid value \"gpt\": want one of: auto, openai, openai-compatible, anthropic, command, claude-code, codex, heuristic\n" + help},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			ios, code := runMemctl(t, false, nil, tt.args...)
			if code != ExitUsage {
				t.Errorf("exit %d, want %d", code, ExitUsage)
			}
			if got := ios.errOut.String(); got != tt.wantErrOut {
				t.Errorf("stderr:\n%q\nwant:\n%q", got, tt.wantErrOut)
			}
			if ios.out.Len() != 0 {
				t.Errorf("stdout %q", ios.out)
			}
		})
	}
}

// TestBareMemctlShowsHelp: memctl alone prints its help and exits 0, and
// --version prints what `memctl version` prints.
func TestBareMemctlShowsHelp(t *testing.T) {
	ios, code := runMemctl(t, false, nil)
	if code != ExitOK || !strings.HasPrefix(ios.out.String(), "memctl reads the sessions coding agents") ||
		!strings.Contains(ios.out.String(), "Pipeline commands:") || ios.errOut.Len() != 0 {
		t.Errorf("exit %d\nstdout %q\nstderr %q", code, ios.out, ios.errOut)
	}
	ios, code = runMemctl(t, false, nil, "--version")
	if want := versionLine() + "\n"; code != ExitOK || ios.out.String() != want {
		t.Errorf("--version: exit %d, stdout %q, want %q", code, ios.out, want)
	}
}
