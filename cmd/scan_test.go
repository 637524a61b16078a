package cmd

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestNewScanCmd(t *testing.T) {
	for _, tt := range []struct {
		name, argv string
		want       ScanOptions
		wantErr    string
	}{
		{name: "defaults"},
		{name: "json", argv: "--json", want: ScanOptions{JSON: true}},
		{name: "argument", argv: "~/.codex", wantErr: `unknown command "~/.codex"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(false)
			f := newTestFactory(t, ios.IOStreams, nil)
			var got *ScanOptions
			err := execCmd(t, f, newScanCmd(f, func(_ context.Context, o *ScanOptions) error { got = o; return nil }), nil,
				strings.Fields(tt.argv)...)
			wantError(t, err, tt.wantErr)
			if g := flagValues(got); tt.wantErr == "" && !reflect.DeepEqual(g, tt.want) {
				t.Errorf("options %+v, want %+v", flagValues(got), tt.want)
			}
		})
	}
}

func TestRunScan(t *testing.T) {
	for _, tt := range []struct {
		name       string
		tty, json  bool
		wantOut    string
		wantErrOut string
	}{
		{name: "piped", wantErrOut: "memctl: warning: SRC/broken.jsonl:2: malformed JSON line skipped: unexpected end of JSON input\n" +
			"scanned 3 transcripts: 3 added, 0 updated, 0 unchanged, 1 problems\n"},
		{name: "terminal: the same", tty: true, wantErrOut: "memctl: warning: SRC/broken.jsonl:2: malformed JSON line skipped: unexpected end of JSON input\n" +
			"scanned 3 transcripts: 3 added, 0 updated, 0 unchanged, 1 problems\n"},
		{name: "json", json: true,
			wantOut: `{"scanned":3,"added":3,"updated":0,"unchanged":0,"errors":[{"path":"SRC/broken.jsonl","line":2,"error":"malformed JSON line skipped: unexpected end of JSON input"}]}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(tt.tty)
			f := jsonlFactory(t, ios.IOStreams, 2)
			src := filepath.Join(filepath.Dir(f.HomeFlag), "transcripts")
			writeFile(t, filepath.Join(src, "broken.jsonl"),
				`{"type":"session","id":"broken-1","cwd":"/src/b","source":"cli","timestamp":"2026-06-09T12:00:00Z"}`+"\n{\"type\":\"mess\n")
			opts := &ScanOptions{IO: ios.IOStreams, Config: f.Config, OpenStore: f.OpenStore, Now: f.Now, Sources: f.Sources, JSON: tt.json}
			if err := runScan(context.Background(), opts); err != nil {
				t.Fatal(err)
			}
			out := ios.out.String()
			if tt.json {
				out = compactJSON(t, out)
			}
			if out = strings.ReplaceAll(out, src, "SRC"); out != tt.wantOut {
				t.Errorf("stdout:\n%q\nwant:\n%q", out, tt.wantOut)
			}
			if got := strings.ReplaceAll(ios.errOut.String(), src, "SRC"); got != tt.wantErrOut {
				t.Errorf("stderr:\n%q\nwant:\n%q", got, tt.wantErrOut)
			}
		})
	}
}
