package cmd

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestNewClearCmd(t *testing.T) {
	tests := []struct {
		name    string
		argv    string
		want    ClearOptions
		wantErr string
	}{
		{name: "defaults", want: ClearOptions{}},
		{name: "every flag", argv: "-y --dry-run --json", want: ClearOptions{JSON: true, Yes: true, DryRun: true}},
		{name: "argument", argv: "all", wantErr: `memctl clear takes no arguments, got "all"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(false)
			f := newTestFactory(t, ios.IOStreams, nil)
			var got *ClearOptions
			err := execCmd(t, f, newClearCmd(f, func(_ context.Context, o *ClearOptions) error { got = o; return nil }), nil,
				strings.Fields(tt.argv)...)
			wantParsed(t, err, tt.wantErr, got, tt.want)
		})
	}
}

func TestRunClear(t *testing.T) {
	tests := []struct {
		name       string
		opts       ClearOptions
		tty        bool
		stdin      string
		wantOut    string
		wantErrOut string
		wantErr    string
		cleared    bool
	}{
		{name: "terminal: asks, yes", tty: true, stdin: "y\n",
			wantErrOut: "Delete every memory under HOME? [y/N] cleared 1 database and 3 folders\n", cleared: true},
		{name: "terminal: asks, no", tty: true, stdin: "n\n",
			wantErrOut: "Delete every memory under HOME? [y/N] nothing deleted\n"},
		{name: "terminal: asks, end of input", tty: true, stdin: "",
			wantErrOut: "Delete every memory under HOME? [y/N] nothing deleted\n"},
		{name: "piped without --yes: refused", wantErr: "pass --yes to confirm when not on a terminal"},
		{name: "piped with --yes", opts: ClearOptions{Yes: true}, wantErrOut: "cleared 1 database and 3 folders\n", cleared: true},
		{name: "dry run lists, asks nothing", opts: ClearOptions{DryRun: true}, tty: true,
			wantOut: "HOME/memories/raw_memories.md\n", wantErrOut: "would clear 1 database and 3 folders (1 entry)\n"},
		{name: "json", opts: ClearOptions{Yes: true, JSON: true},
			wantOut: `{"cleared_databases":["HOME/memories_1.sqlite"],"cleared_folders":["HOME/memories","HOME/memories_v2","HOME/memories_extensions"],"entries":["HOME/memories/raw_memories.md"]}`,
			cleared: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(tt.tty)
			ios.in.WriteString(tt.stdin)
			f := newTestFactory(t, ios.IOStreams, nil)
			seedMemory(t, f, "v1", "thread-a", testNow.Add(-time.Hour))
			root, _ := f.MemoryRoot("v1")
			writeFile(t, root+"/raw_memories.md", "raw\n")
			home, _ := f.Home()
			opts := tt.opts
			opts.IO, opts.Home, opts.OpenStore = ios.IOStreams, f.Home, f.OpenStore
			err := runClear(context.Background(), &opts)
			wantError(t, err, tt.wantErr)
			if err != nil {
				if exitCode(err) != ExitUsage {
					t.Errorf("exit %d, want %d", exitCode(err), ExitUsage)
				}
			}
			out := strings.ReplaceAll(ios.out.String(), home, "HOME")
			if opts.JSON {
				out = compactJSON(t, out)
			}
			if out != tt.wantOut {
				t.Errorf("stdout:\n%q\nwant:\n%q", out, tt.wantOut)
			}
			if got := strings.ReplaceAll(ios.errOut.String(), home, "HOME"); got != tt.wantErrOut {
				t.Errorf("stderr:\n%q\nwant:\n%q", got, tt.wantErrOut)
			}
			st, err := f.OpenStore(context.Background(), "v1")
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			_, err = st.Output(context.Background(), "thread-a")
			if gone := err != nil; gone != tt.cleared {
				t.Errorf("memory cleared = %v, want %v", gone, tt.cleared)
			}
		})
	}
}
