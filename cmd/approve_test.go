package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNewApproveCmd(t *testing.T) {
	for _, tt := range []struct {
		name    string
		argv    string
		want    ApproveOptions
		wantErr string
	}{
		{name: "whatever is pending", want: ApproveOptions{}},
		{name: "one generation", argv: "7 --json", want: ApproveOptions{ID: 7, JSON: true}},
		{name: "held items by id", argv: "note-8faec3e0a398 memory-3f", want: ApproveOptions{Held: []string{"note-8faec3e0a398", "memory-3f"}}},
		{name: "everything", argv: "--all", want: ApproveOptions{All: true}},
		{name: "no generation zero", argv: "0", wantErr: `generation id "0": want a positive number`},
		{name: "two generations", argv: "1 2", wantErr: `one generation at a time: 1 and 2`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(false)
			f := newTestFactory(t, ios.IOStreams, nil)
			var got *ApproveOptions
			err := execCmd(t, f, newApproveCmd(f, func(_ context.Context, o *ApproveOptions) error { got = o; return nil }), nil,
				strings.Fields(tt.argv)...)
			wantParsed(t, err, tt.wantErr, got, tt.want)
		})
	}
}

func TestRunApprove(t *testing.T) {
	changes := "A MEMORY.md\nA memory_summary.md\nA projects/index.json\nA projects/personal.md\nA projects/thread-a-987e139c/summary.md\n" +
		"A projects/thread-b-2dddb76d/summary.md\nA raw_memories.md\nA rollout_summaries/2026-06-08T12-00-00-Jb1I.md\n" +
		"A rollout_summaries/2026-06-09T12-00-00-Jb1J.md\n"
	for _, tt := range []struct {
		name       string
		tty        bool
		opts       ApproveOptions
		settle     bool
		wantOut    string
		wantErrOut string
		wantErr    string
	}{
		{name: "piped", wantOut: changes, wantErrOut: "v1: approved generation 1 (9 files changed); summary injects it from now on\n"},
		{name: "terminal", tty: true, wantOut: changes, wantErrOut: "v1: approved generation 1 (9 files changed); summary injects it from now on\n"},
		{name: "by id, json", opts: ApproveOptions{ID: 1, JSON: true},
			wantOut: `{"approved":[{"version":"v1","action":"approve","generation":1,"changes":["A MEMORY.md","A memory_summary.md",` +
				`"A projects/index.json","A projects/personal.md","A projects/thread-a-987e139c/summary.md","A projects/thread-b-2dddb76d/summary.md",` +
				`"A raw_memories.md","A rollout_summaries/2026-06-08T12-00-00-Jb1I.md","A rollout_summaries/2026-06-09T12-00-00-Jb1J.md"]}],"held":[]}`},
		{name: "nothing pending", settle: true, wantErrOut: "nothing waits for review\n"},
		{name: "nothing pending, json", settle: true, opts: ApproveOptions{JSON: true}, wantOut: `{"approved":[],"held":[]}`},
		{name: "an id that is not pending", settle: true, opts: ApproveOptions{ID: 1},
			wantErr: "v1: no generation is pending review: generation 1 is not pending"},
		{name: "an id that is not kept", opts: ApproveOptions{ID: 5}, wantErr: "v1: no generation 5 is kept"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(tt.tty)
			f := generationsFactory(t, ios, true)
			if tt.settle {
				rejectPending(t, f)
			}
			root, _ := f.MemoryRoot("v1")
			opts := tt.opts
			opts.IO, opts.Config, opts.OpenStore, opts.Now, opts.MemoryRoot = ios.IOStreams, f.Config, f.OpenStore, f.Now, f.MemoryRoot
			err := runApprove(context.Background(), &opts)
			wantError(t, err, tt.wantErr)
			if err != nil {
				if _, serr := os.Stat(filepath.Join(root, "MEMORY.md")); serr == nil {
					t.Error("a refused approve wrote the folder")
				}
				return
			}
			ios.wantOutput(t, opts.JSON, tt.wantOut, tt.wantErrOut)
			_, serr := os.Stat(filepath.Join(root, "MEMORY.md"))
			if landed := serr == nil; landed == tt.settle {
				t.Errorf("MEMORY.md exists: %v", landed)
			}
		})
	}
}
