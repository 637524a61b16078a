package cmd

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestNewSetupCmd(t *testing.T) {
	for _, tt := range []struct {
		name    string
		argv    []string
		want    SetupOptions
		wantErr string
	}{
		{name: "agent", argv: []string{"codex"}, want: SetupOptions{Agent: "codex"}},
		{name: "dry run", argv: []string{"claude-code", "--dry-run", "--memctl", "/bin/memctl"}, want: SetupOptions{Agent: "claude-code", DryRun: true, Memctl: "/bin/memctl"}},
		{name: "undo every agent", argv: []string{"--undo"}, want: SetupOptions{Undo: true}},
		{name: "unknown agent", argv: []string{"cursor"}, wantErr: `unknown agent "cursor" (want claude-code or codex)`},
		{name: "no agent", wantErr: "name the agent"},
		{name: "undo and dry run", argv: []string{"codex", "--undo", "--dry-run"}, wantErr: "--undo and --dry-run cannot be combined"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(false)
			f := newTestFactory(t, ios.IOStreams, nil)
			var got *SetupOptions
			err := execCmd(t, f, newSetupCmd(f, func(_ context.Context, o *SetupOptions) error { got = o; return nil }), nil, tt.argv...)
			wantError(t, err, tt.wantErr)
			if tt.wantErr != "" {
				if exitCode(err) != ExitUsage {
					t.Errorf("exit %d", exitCode(err))
				}
				return
			}
			if g := flagValues(got); !reflect.DeepEqual(g, tt.want) {
				t.Errorf("options %+v, want %+v", g, tt.want)
			}
		})
	}
}

func TestRunSetup(t *testing.T) {
	ios := newTestIO(false)
	f := newTestFactory(t, ios.IOStreams, nil)
	userHome, _ := f.UserHome()
	home, _ := f.Home()
	newOpts := func() *SetupOptions {
		return &SetupOptions{IO: ios.IOStreams, Config: f.Config, Now: f.Now, Getenv: f.Getenv, UserHome: f.UserHome, Home: f.Home,
			HookArgs: func() ([]string, error) { return nil, nil }, Agent: "codex", Memctl: "/opt/bin/memctl"}
	}
	reset := func() { ios.out.Reset(); ios.errOut.Reset() }
	codexConfig := userHome + "/.codex/config.toml"

	opts := newOpts()
	opts.DryRun = true
	if err := runSetup(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if out := ios.out.String(); !strings.Contains(out, "--- /dev/null\n+++ b"+codexConfig+"\n") ||
		!strings.Contains(out, "\n+notify = [\"/opt/bin/memctl\", \"cite\", \"--hook\", \"codex\"]\n") || ios.errOut.Len() != 0 {
		t.Errorf("dry run: stdout %q stderr %q", out, ios.errOut)
	}
	reset()

	if err := runSetup(context.Background(), newOpts()); err != nil {
		t.Fatal(err)
	}
	if got := ios.errOut.String(); !strings.HasPrefix(got, "memctl: wrote "+codexConfig+"\nmemctl: the previous files are in "+home+"/setup-backups/codex/") ||
		!strings.HasSuffix(got, " (memctl setup --undo codex puts them back)\n") || ios.out.Len() != 0 {
		t.Errorf("apply: stdout %q stderr %q", ios.out, got)
	}
	reset()

	if err := runSetup(context.Background(), newOpts()); err != nil {
		t.Fatal(err)
	}
	if got := ios.errOut.String(); got != "memctl: codex is already set up; nothing changed\n" {
		t.Errorf("again: stderr %q", got)
	}
	reset()

	opts = newOpts()
	opts.Undo = true
	if err := runSetup(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if got := ios.errOut.String(); got != "memctl: removed "+codexConfig+"\n" {
		t.Errorf("undo: stderr %q", got)
	}
}

// `go run . setup claude-code` wrote hooks naming the temporary
// binary of `go run`, which Go deletes. The real process, at the path Go
// gives such a binary, refuses and names the installed memctl; a dry run
// only warns.
func TestSetupRefusesGoRunBinary(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	goRun := filepath.Join(tmp, "go-build1234", "b001", "exe", "memctl")
	if err := os.MkdirAll(filepath.Dir(goRun), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(self, goRun); err != nil {
		b, err := os.ReadFile(self)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goRun, b, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(tmp, "user")
	gobin := filepath.Join(home, "go", "bin")
	run := func(withInstalled bool, args ...string) (string, int) {
		t.Helper()
		c := exec.Command(goRun, args...)
		c.Env = []string{"MEMCTL_TEST_AS_CLI=1", "HOME=" + home, "PATH=/nonexistent", "NO_COLOR=1", "MEMCTL_HOME=" + filepath.Join(tmp, "mhome")}
		if withInstalled {
			c.Env = append(c.Env, "PATH="+gobin)
		}
		var errOut bytes.Buffer
		c.Stderr = &errOut
		err := c.Run()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return errOut.String(), exit.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return errOut.String(), 0
	}
	settings := filepath.Join(home, ".claude", "settings.json")

	errOut, code := run(false, "setup", "claude-code")
	if code != ExitError || !strings.Contains(errOut, "memctl: error: this memctl is a temporary build of `go run` ("+goRun+")") ||
		!strings.Contains(errOut, "memctl: hint: install memctl first with `go install . ./cmd/memctl-summary`") {
		t.Errorf("setup from go run without an installed memctl: exit %d\n%s", code, errOut)
	}
	if _, err := os.Stat(settings); err == nil {
		t.Errorf("setup wrote %s though it refused", settings)
	}

	if err := os.MkdirAll(gobin, 0o700); err != nil {
		t.Fatal(err)
	}
	installed := filepath.Join(gobin, "memctl")
	if err := os.WriteFile(installed, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	errOut, code = run(true, "setup", "claude-code")
	if code != ExitError || !strings.Contains(errOut, "memctl: hint: run the installed binary instead: "+installed+" setup claude-code (or pass --memctl "+installed+")") {
		t.Errorf("setup from go run with %s installed: exit %d\n%s", installed, code, errOut)
	}
	errOut, code = run(true, "setup", "claude-code", "--dry-run")
	if code != 0 || !strings.Contains(errOut, "memctl: warning: this memctl is a temporary build of `go run`") {
		t.Errorf("a dry run from go run: exit %d\n%s", code, errOut)
	}
	// Naming the binary is the way out, and writes hooks that run it.
	if errOut, code = run(true, "setup", "claude-code", "--memctl", installed); code != 0 {
		t.Fatalf("setup --memctl %s: exit %d\n%s", installed, code, errOut)
	}
	if b, _ := os.ReadFile(settings); !strings.Contains(string(b), `"`+installed+" --home ") {
		t.Errorf("the hooks do not run %s:\n%s", installed, b)
	}
}

// With memctl-summary installed beside the memctl the hooks run, the
// SessionStart hook runs it (with the same flags); the notify hook and the
// MCP server stay memctl's. Without it the hook is `memctl summary`.
func TestSetupHookRunsMemctlSummaryBeside(t *testing.T) {
	for _, beside := range []bool{false, true} {
		ios := newTestIO(false)
		f := newTestFactory(t, ios.IOStreams, nil)
		userHome, _ := f.UserHome()
		bin := t.TempDir()
		memctl := filepath.Join(bin, "memctl")
		for _, p := range []string{memctl, filepath.Join(bin, "memctl-summary")} {
			if p != memctl && !beside {
				continue
			}
			if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		opts := &SetupOptions{IO: ios.IOStreams, Config: f.Config, Now: f.Now, Getenv: f.Getenv, UserHome: f.UserHome, Home: f.Home,
			HookArgs: func() ([]string, error) { return []string{"--home", "/h"}, nil }, Agent: "codex", Memctl: memctl}
		if err := runSetup(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(userHome, ".codex", "config.toml"))
		if err != nil {
			t.Fatal(err)
		}
		hook := memctl + " --home /h summary --agent codex"
		if beside {
			hook = filepath.Join(bin, "memctl-summary") + " --home /h --agent codex"
		}
		if s := string(b); !strings.Contains(s, "command = \""+hook+"\"\n") ||
			!strings.Contains(s, "notify = [\""+memctl+"\", \"--home\", \"/h\", \"cite\"") {
			t.Errorf("memctl-summary beside %v: want hook %q:\n%s", beside, hook, s)
		}
	}
}
