package cmd

import (
	"context"
	"os"
	"strings"
	"testing"
)

func TestNewRejectCmd(t *testing.T) {
	for _, tt := range []struct {
		name    string
		argv    string
		want    RejectOptions
		wantErr string
	}{
		{name: "whatever is pending", want: RejectOptions{}},
		{name: "one generation", argv: "7 --json", want: RejectOptions{ID: 7, JSON: true}},
		{name: "held items by id", argv: "note-8faec3e0a398", want: RejectOptions{Held: []string{"note-8faec3e0a398"}}},
		{name: "everything", argv: "--all", want: RejectOptions{All: true}},
		{name: "no generation zero", argv: "#0", wantErr: `generation id "#0": want a positive number`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(false)
			f := newTestFactory(t, ios.IOStreams, nil)
			var got *RejectOptions
			err := execCmd(t, f, newRejectCmd(f, func(_ context.Context, o *RejectOptions) error { got = o; return nil }), nil,
				strings.Fields(tt.argv)...)
			wantParsed(t, err, tt.wantErr, got, tt.want)
		})
	}
}

func TestRunReject(t *testing.T) {
	for _, tt := range []struct {
		name       string
		tty        bool
		opts       RejectOptions
		twice      bool
		wantOut    string
		wantErrOut string
		wantErr    string
	}{
		{name: "piped", wantErrOut: "v1: rejected generation 1; the memory folder is unchanged\n"},
		{name: "terminal", tty: true, wantErrOut: "v1: rejected generation 1; the memory folder is unchanged\n"},
		{name: "by id, json", opts: RejectOptions{ID: 1, JSON: true}, wantOut: `{"rejected":[{"version":"v1","generation":1}],"held":[]}`},
		{name: "nothing pending", twice: true, wantErrOut: "nothing waits for review\n"},
		{name: "an id already settled", twice: true, opts: RejectOptions{ID: 1},
			wantErr: "v1: generation is not pending review: generation 1 is rejected"},
		{name: "an id not kept", opts: RejectOptions{ID: 3}, wantErr: "v1: no generation 3 is kept"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(tt.tty)
			f := generationsFactory(t, ios, true)
			opts := tt.opts
			opts.IO, opts.Config, opts.OpenStore = ios.IOStreams, f.Config, f.OpenStore
			if tt.twice {
				quiet := newTestIO(false)
				if err := runReject(context.Background(), &RejectOptions{IO: quiet.IOStreams, Config: f.Config, OpenStore: f.OpenStore}); err != nil {
					t.Fatal(err)
				}
			}
			err := runReject(context.Background(), &opts)
			wantError(t, err, tt.wantErr)
			root, _ := f.MemoryRoot("v1")
			if _, serr := os.Stat(root); serr == nil {
				t.Error("reject created the memory folder")
			}
			if err != nil {
				return
			}
			ios.wantOutput(t, opts.JSON, tt.wantOut, tt.wantErrOut)
		})
	}
}
