package cmd

import (
	"context"
	"strings"
	"testing"
)

func TestNewSearchCmd(t *testing.T) {
	for _, tt := range []struct {
		name    string
		argv    []string
		want    SearchOptions
		wantErr string
	}{
		{name: "words join into one query", argv: []string{"flaky", "parser"}, want: SearchOptions{Query: "flaky parser", Limit: 20}},
		{name: "limit and json", argv: []string{"go test race", "--limit", "5", "--json"}, want: SearchOptions{JSON: true, Query: "go test race", Limit: 5}},
		{name: "limit zero", argv: []string{"x", "--limit", "0"}, wantErr: "--limit must be at least 1"},
		{name: "no query", argv: nil, wantErr: "memctl search needs QUERY"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(false)
			f := newTestFactory(t, ios.IOStreams, nil)
			var got *SearchOptions
			err := execCmd(t, f, newSearchCmd(f, func(_ context.Context, o *SearchOptions) error { got = o; return nil }), nil, tt.argv...)
			wantParsed(t, err, tt.wantErr, got, tt.want)
		})
	}
}

func TestRunSearch(t *testing.T) {
	for _, tt := range []struct {
		name       string
		opts       SearchOptions
		tty        bool
		wantOut    string
		wantErrOut string
	}{
		{name: "piped: tab-separated, raw scores", opts: SearchOptions{Query: "parser", Limit: 2},
			wantOut: "1.87e-06\traw_memory\t" + thread1 + "\t…number 1 in the [parser] — outcome success task: fix the flaky…\t-\tsession\n" +
				"1.87e-06\traw_memory\t" + thread0 + "\t…number 0 in the [parser] — outcome success task: fix the flaky…\t-\tsession\n"},
		{name: "json", opts: SearchOptions{Query: "parser", Limit: 1, JSON: true},
			wantOut: `[{"kind":"raw_memory","thread_id":"` + thread1 + `","path":"","snippet":"…number 1 in the [parser] — outcome success task: fix the flaky…","score":0.0000018737901664730934,"project_key":"path:/src/project-1","project":"project-1","origin":{"kind":"session"}}]`},
		// Readable scores, the snippet cut to the terminal, the header over
		// its column; one row per memory (thread 1's rollout summary is its
		// raw memory's row), an id's first characters naming it.
		{name: "terminal: scores relative to the best, fitted to 120 columns", opts: SearchOptions{Query: "parser", Limit: 3}, tty: true,
			wantOut: "\x1b[1mSCORE  KIND        WHERE     SNIPPET                                                           SCOPE  ORIGIN\x1b[22m\n" +
				"100%   raw_memory  00000000  …number 1 in the [parser] — outcome success task: fix the flaky…  -      session\n" +
				"100%   raw_memory  00000000  …number 0 in the [parser] — outcome success task: fix the flaky…  -      session\n"},
		{name: "no match", opts: SearchOptions{Query: "kubernetes", Limit: 20}, wantErrOut: "no matches\n"},
		{name: "no match, json: an empty array", opts: SearchOptions{Query: "kubernetes", Limit: 20, JSON: true}, wantOut: "[]"},
		// A pasted query is cut, and says so
		{name: "issue_24: a long query is cut, with a warning", opts: SearchOptions{Query: strings.Repeat("parser ", 2000), Limit: 1},
			wantOut:    "1.87e-06\traw_memory\t" + thread1 + "\t…number 1 in the [parser] — outcome success task: fix the flaky…\t-\tsession\n",
			wantErrOut: "memctl: warning: searched for the first 1 distinct words of a query of 2000 words (14000 bytes): a query counts at most 64 distinct words within its first 4096 bytes\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(tt.tty)
			f, _ := extractedFactory(t, ios)
			opts := tt.opts
			opts.IO, opts.Config, opts.OpenStore, opts.Now = ios.IOStreams, f.Config, f.OpenStore, f.Now
			if err := runSearch(context.Background(), &opts); err != nil {
				t.Fatal(err)
			}
			ios.wantOutput(t, opts.JSON, tt.wantOut, tt.wantErrOut)
		})
	}
}
