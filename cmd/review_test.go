package cmd

import (
	"context"
	"strings"
	"testing"
)

func TestNewReviewCmd(t *testing.T) {
	for _, tt := range []struct {
		name    string
		argv    string
		want    ReviewOptions
		wantErr string
	}{
		{name: "defaults", want: ReviewOptions{}},
		{name: "stat and json", argv: "--stat --json", want: ReviewOptions{Stat: true, JSON: true}},
		{name: "argument", argv: "3", wantErr: `memctl review takes no arguments, got "3"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(false)
			f := newTestFactory(t, ios.IOStreams, nil)
			var got *ReviewOptions
			err := execCmd(t, f, newReviewCmd(f, func(_ context.Context, o *ReviewOptions) error { got = o; return nil }), nil,
				strings.Fields(tt.argv)...)
			wantParsed(t, err, tt.wantErr, got, tt.want)
		})
	}
}

func TestRunReview(t *testing.T) {
	head := func(bold func(string) string) string {
		return bold("generation") + " 1 (v1, pending review)\n  created   2026-06-10T12:00:00Z\n  mode      heuristic\n" +
			"  model     heuristic\n  tokens    0\n  inputs    2 raw memories\n    thread-a\n    thread-b\n\n"
	}
	stat := "A MEMORY.md\nA memory_summary.md\nA projects/index.json\nA projects/personal.md\nA projects/thread-a-987e139c/summary.md\nA projects/thread-b-2dddb76d/summary.md\nA raw_memories.md\nA rollout_summaries/2026-06-08T12-00-00-Jb1I.md\n" +
		"A rollout_summaries/2026-06-09T12-00-00-Jb1J.md\n"
	for _, tt := range []struct {
		name       string
		tty        bool
		settle     bool
		opts       ReviewOptions
		wantOut    string
		wantErrOut string
	}{
		{name: "stat, piped", opts: ReviewOptions{Stat: true}, wantOut: head(func(s string) string { return s }) + stat,
			wantErrOut: "`memctl approve` lands it, `memctl reject` drops it\n"},
		{name: "stat, terminal", tty: true, opts: ReviewOptions{Stat: true},
			wantOut:    head(func(s string) string { return "\x1b[1m" + s + "\x1b[22m" }) + stat,
			wantErrOut: "`memctl approve` lands it, `memctl reject` drops it\n"},
		{name: "nothing pending", settle: true, wantErrOut: "nothing waits for review\n"},
		{name: "nothing pending, json", settle: true, opts: ReviewOptions{JSON: true}, wantOut: `{"pending":[],"held":[]}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(tt.tty)
			f := generationsFactory(t, ios, true)
			if tt.settle {
				rejectPending(t, f)
			}
			opts := tt.opts
			opts.IO, opts.Config, opts.OpenStore, opts.Now, opts.MemoryRoot = ios.IOStreams, f.Config, f.OpenStore, f.Now, f.MemoryRoot
			if err := runReview(context.Background(), &opts); err != nil {
				t.Fatal(err)
			}
			ios.wantOutput(t, opts.JSON, tt.wantOut, tt.wantErrOut)
		})
	}
}

func TestRunReviewDiffsAndJSON(t *testing.T) {
	ios := newTestIO(false)
	f := generationsFactory(t, ios, true)
	opts := &ReviewOptions{IO: ios.IOStreams, Config: f.Config, OpenStore: f.OpenStore, Now: f.Now, MemoryRoot: f.MemoryRoot}
	if err := runReview(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if out := ios.out.String(); !strings.Contains(out, "\ndiff --git a/MEMORY.md b/MEMORY.md\nnew file mode 100644\n") {
		t.Errorf("no diff:\n%s", out)
	}
	ios.out.Reset()
	opts.JSON = true
	if err := runReview(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	out := compactJSON(t, ios.out.String())
	for _, want := range []string{`{"pending":[{"version":"v1","generation":{"id":1,`, `"state":"pending"`, `"settled_at":null`,
		`"files":[{"status":"A","path":"MEMORY.md","artifact":true,"diff":"diff --git a/MEMORY.md b/MEMORY.md\n`, `"inputs":[{"thread_id":"thread-a"`} {
		if !strings.Contains(out, want) {
			t.Errorf("json lacks %s:\n%s", want, out)
		}
	}
}
