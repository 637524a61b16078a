package cmd

import (
	"context"
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
