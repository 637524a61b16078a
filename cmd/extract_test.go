package cmd

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

func TestNewExtractCmd(t *testing.T) {
	tests := []struct {
		name    string
		argv    string
		want    ExtractOptions
		wantErr string
	}{
		{name: "defaults", want: ExtractOptions{}},
		{name: "every flag", argv: "--provider heuristic --model m1 --max 5 --concurrency 3 --all --thread a1b2c3 --thread d4e5 --current-thread ffff --dry-run --json",
			want: ExtractOptions{JSON: true, ExtractFlags: ExtractFlags{ProviderKind: "heuristic", Model: "m1", Max: ptrTo(5), Concurrency: ptrTo(3),
				All: true, Threads: []string{"a1b2c3", "d4e5"}, CurrentThread: "ffff", DryRun: true}}},
		{name: "unknown provider", argv: "--provider gpt",
			wantErr: `--provider: invalid value "gpt": want one of: auto, openai, openai-compatible, anthropic, command, heuristic`},
		{name: "max not a number", argv: "--max abc", wantErr: `--max: invalid value "abc": want an integer`},
		{name: "max zero", argv: "--max 0", wantErr: "--max must be at least 1"},
		{name: "argument", argv: "now", wantErr: `unknown command "now"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(false)
			f := newTestFactory(t, ios.IOStreams, nil)
			var got *ExtractOptions
			err := execCmd(t, f, newExtractCmd(f, func(_ context.Context, o *ExtractOptions) error { got = o; return nil }), nil,
				strings.Fields(tt.argv)...)
			wantError(t, err, tt.wantErr)
			if tt.wantErr != "" {
				if code := exitCode(err); code != ExitUsage {
					t.Errorf("exit code %d, want %d", code, ExitUsage)
				}
				return
			}
			if g := flagValues(got); !reflect.DeepEqual(g, tt.want) {
				t.Errorf("options %+v, want %+v", g, tt.want)
			}
		})
	}
}

func TestRunExtract(t *testing.T) {
	for _, tty := range []bool{false, true} {
		t.Run(ttyName(tty), func(t *testing.T) {
			ios := newTestIO(tty)
			f := jsonlFactory(t, ios.IOStreams, 2)
			opts := &ExtractOptions{IO: ios.IOStreams, Config: f.Config, OpenStore: f.OpenStore, Now: f.Now, StageLoaders: f.stageLoaders(),
				ExtractFlags: ExtractFlags{All: true}}
			err := runExtract(context.Background(), opts)
			t.Logf("err=%v\nstdout=%q\nstderr=%q", err, ios.out.String(), ios.errOut.String())
		})
	}
}
