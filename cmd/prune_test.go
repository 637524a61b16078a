package cmd

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestNewPruneCmd(t *testing.T) {
	tests := []struct {
		name    string
		argv    string
		want    PruneOptions
		wantErr string
	}{
		{name: "defaults", argv: "", want: PruneOptions{}},
		{name: "all flags", argv: "--max-unused-days 14 --dry-run --json",
			want: PruneOptions{MaxUnusedDays: ptrTo(14), DryRun: true, JSON: true}},
		{name: "zero days is a value", argv: "--max-unused-days 0", want: PruneOptions{MaxUnusedDays: ptrTo(0)}},
		{name: "not a number", argv: "--max-unused-days abc", wantErr: `--max-unused-days: invalid value "abc": want an integer`},
		{name: "unknown flag", argv: "--bogus", wantErr: "unknown flag: --bogus"},
		// A window a config file would clamp is refused on the command line
		{name: "negative days", argv: "--max-unused-days -3", wantErr: "--max-unused-days: invalid value -3: want 0 to 365"},
		{name: "too many days", argv: "--max-unused-days 400", wantErr: "--max-unused-days: invalid value 400: want 0 to 365"},
		{name: "argument", argv: "extra", wantErr: `memctl prune takes no arguments, got "extra"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(false)
			f := newTestFactory(t, ios.IOStreams, nil)
			var got *PruneOptions
			err := execCmd(t, f, newPruneCmd(f, func(_ context.Context, o *PruneOptions) error { got = o; return nil }), nil,
				strings.Fields(tt.argv)...)
			wantParsed(t, err, tt.wantErr, got, tt.want)
		})
	}
}

func TestRunPrune(t *testing.T) {
	old := testNow.Add(-40 * 24 * time.Hour)
	tests := []struct {
		name       string
		opts       PruneOptions
		tty        bool
		wantOut    string
		wantErrOut string
	}{
		{name: "prune", opts: PruneOptions{},
			wantOut: "stale-thread\n", wantErrOut: "pruned 1 raw memory\n"},
		{name: "prune on a terminal", opts: PruneOptions{}, tty: true,
			wantOut: "stale-thread\n", wantErrOut: "pruned 1 raw memory\n"},
		{name: "dry run", opts: PruneOptions{DryRun: true},
			wantOut: "stale-thread\n", wantErrOut: "would prune 1 raw memory\n"},
		{name: "longer window keeps it", opts: PruneOptions{MaxUnusedDays: ptrTo(60)},
			wantOut: "", wantErrOut: "pruned 0 raw memories\n"},
		{name: "json", opts: PruneOptions{JSON: true, DryRun: true},
			wantOut: "{\n  \"pruned\": 1,\n  \"thread_ids\": [\n    \"stale-thread\"\n  ],\n  \"dry_run\": true\n}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(tt.tty)
			f := newTestFactory(t, ios.IOStreams, nil)
			seedMemory(t, f, "v1", "stale-thread", old)
			seedMemory(t, f, "v1", "fresh-thread", testNow.Add(-time.Hour))
			opts := tt.opts
			opts.IO, opts.Config, opts.Pipeline = ios.IOStreams, f.Config, f.Pipeline
			if err := runPrune(context.Background(), &opts); err != nil {
				t.Fatal(err)
			}
			if got := ios.out.String(); got != tt.wantOut {
				t.Errorf("stdout:\n%s\nwant:\n%s", got, tt.wantOut)
			}
			if got := ios.errOut.String(); got != tt.wantErrOut {
				t.Errorf("stderr:\n%s\nwant:\n%s", got, tt.wantErrOut)
			}
		})
	}

	t.Run("quiet", func(t *testing.T) {
		ios := newTestIO(false)
		ios.Quiet = true
		f := newTestFactory(t, ios.IOStreams, nil)
		opts := PruneOptions{IO: ios.IOStreams, Config: f.Config, Pipeline: f.Pipeline}
		if err := runPrune(context.Background(), &opts); err != nil {
			t.Fatal(err)
		}
		if ios.out.Len()+ios.errOut.Len() != 0 {
			t.Errorf("quiet prune printed %q %q", ios.out, ios.errOut)
		}
	})

	t.Run("both versions under dual_write", func(t *testing.T) {
		ios := newTestIO(false)
		f := newTestFactory(t, ios.IOStreams, nil)
		writeConfig(t, f, "[memories]\ndual_write = true\n")
		seedMemory(t, f, "v1", "stale-v1", old)
		seedMemory(t, f, "v2", "stale-v2", old)
		opts := PruneOptions{IO: ios.IOStreams, Config: f.Config, Pipeline: f.Pipeline}
		if err := runPrune(context.Background(), &opts); err != nil {
			t.Fatal(err)
		}
		if got, want := ios.out.String(), "stale-v1\nstale-v2\n"; got != want {
			t.Errorf("stdout %q, want %q", got, want)
		}
	})
}
