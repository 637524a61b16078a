package cmd

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/extract"
	"github.com/memctl/memctl/internal/model"
	"github.com/memctl/memctl/internal/pipeline"
	"github.com/memctl/memctl/internal/store"
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
			wantErr: `--provider: invalid value "gpt": want one of: auto, openai, openai-compatible, anthropic, command, claude-code, codex, heuristic`},
		{name: "max not a number", argv: "--max abc", wantErr: `--max: invalid value "abc": want an integer`},
		{name: "max zero", argv: "--max 0", wantErr: "--max must be at least 1"},
		{name: "argument", argv: "now", wantErr: `memctl extract takes no arguments, got "now"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(false)
			f := newTestFactory(t, ios.IOStreams, nil)
			var got *ExtractOptions
			err := execCmd(t, f, newExtractCmd(f, func(_ context.Context, o *ExtractOptions) error { got = o; return nil }), nil,
				strings.Fields(tt.argv)...)
			wantParsed(t, err, tt.wantErr, got, tt.want)
		})
	}
}

// fakeProvider is a model provider answering from a function.
type fakeProvider struct {
	call func(ctx context.Context, req model.Request) (model.Response, error)
}

var _ model.Provider = (*fakeProvider)(nil)

func (p *fakeProvider) Name() string { return "fake" }
func (p *fakeProvider) Call(ctx context.Context, req model.Request) (model.Response, error) {
	return p.call(ctx, req)
}

// withProvider builds the Home of f with p answering every stage.
func withProvider(f *Factory, p model.Provider) func(*config.Config, pipeline.Reporter) (*pipeline.Home, error) {
	return func(cfg *config.Config, rep pipeline.Reporter) (*pipeline.Home, error) {
		env, err := f.pipelineEnv(rep)
		env.Provider = &pipeline.Provider{Provider: p, Kind: "fake", Model: "fake-model"}
		return pipeline.New(cfg, env), err
	}
}

func TestRunExtract(t *testing.T) {
	const done = "extracted 2 threads: 2 with a memory, 0 with nothing worth keeping, 0 failed\n"
	tests := []struct {
		name       string
		flags      ExtractFlags
		json, tty  bool
		wantOut    string
		wantErrOut string
	}{
		{name: "piped", flags: ExtractFlags{All: true}, wantErrOut: done},
		{name: "terminal: a quick stage shows no progress", flags: ExtractFlags{All: true}, tty: true, wantErrOut: done},
		{name: "limit", flags: ExtractFlags{Max: ptrTo(1)},
			wantErrOut: "extracted 1 thread: 1 with a memory, 0 with nothing worth keeping, 0 failed; not claimed: 1 eligible, past this run's limit (--max N claims more)\n"},
		{name: "dry run piped", flags: ExtractFlags{All: true, DryRun: true},
			wantOut: "00000000-0000-4000-8000-000000000001\t1795\tfix the flaky test number 1 in the parser\n" +
				"00000000-0000-4000-8000-000000000000\t1795\tfix the flaky test number 0 in the parser\n",
			wantErrOut: "would claim 2 threads, about 3590 input tokens in total\n"},
		{name: "dry run on a terminal", flags: ExtractFlags{All: true, DryRun: true}, tty: true,
			wantOut: "\x1b[1mTHREAD                                ~TOKENS  PREVIEW\x1b[22m\n" +
				"00000000-0000-4000-8000-000000000001  1795     fix the flaky test number 1 in the parser\n" +
				"00000000-0000-4000-8000-000000000000  1795     fix the flaky test number 0 in the parser\n",
			wantErrOut: "would claim 2 threads, about 3590 input tokens in total\n"},
		{name: "json", flags: ExtractFlags{All: true, Max: ptrTo(1)}, json: true,
			wantOut: `{"claimed":1,"succeeded":1,"succeeded_no_output":0,"failed":0,"jobs":[{"thread_id":"00000000-0000-4000-8000-000000000001","status":"succeeded","preview":"fix the flaky test number 1 in the parser","usage":{"input_tokens":0,"cached_input_tokens":0,"output_tokens":0,"reasoning_output_tokens":0,"total_tokens":0}}],"usage":{"input_tokens":0,"cached_input_tokens":0,"output_tokens":0,"reasoning_output_tokens":0,"total_tokens":0},"not_claimed":{"over_limit":1}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(tt.tty)
			f := jsonlFactory(t, ios.IOStreams, 2)
			opts := &ExtractOptions{IO: ios.IOStreams, Config: f.Config, Pipeline: f.Pipeline,
				JSON: tt.json, ExtractFlags: tt.flags}
			if err := runExtract(context.Background(), opts); err != nil {
				t.Fatal(err)
			}
			gotOut := ios.out.String()
			if tt.json {
				gotOut = compactJSON(t, gotOut)
			}
			if gotOut != tt.wantOut {
				t.Errorf("stdout:\n%q\nwant:\n%q", gotOut, tt.wantOut)
			}
			if got := ios.errOut.String(); got != tt.wantErrOut {
				t.Errorf("stderr:\n%q\nwant:\n%q", got, tt.wantErrOut)
			}
		})
	}

	t.Run("failed calls: exit 3, each failure named", func(t *testing.T) {
		ios := newTestIO(false)
		f := jsonlFactory(t, ios.IOStreams, 2)
		fail := &fakeProvider{call: func(context.Context, model.Request) (model.Response, error) {
			return model.Response{}, errors.New("HTTP 500 from the stand-in")
		}}
		opts := &ExtractOptions{IO: ios.IOStreams, Config: f.Config, Pipeline: withProvider(f, fail), ExtractFlags: ExtractFlags{All: true, Concurrency: ptrTo(1)}}
		err := runExtract(context.Background(), opts)
		var partial *PartialError
		if !errors.As(err, &partial) || exitCode(err) != ExitPartial {
			t.Fatalf("err %v (exit %d), want a *PartialError (exit 3)", err, exitCode(err))
		}
		want := "memctl: warning: 00000000-0000-4000-8000-000000000000 failed: HTTP 500 from the stand-in\n" +
			"memctl: warning: 00000000-0000-4000-8000-000000000001 failed: HTTP 500 from the stand-in\n" +
			"extracted 2 threads: 0 with a memory, 0 with nothing worth keeping, 2 failed\n"
		if got := ios.errOut.String(); got != want {
			t.Errorf("stderr:\n%s\nwant:\n%s", got, want)
		}
	})

	t.Run("unknown --thread is a usage error", func(t *testing.T) {
		ios := newTestIO(false)
		f := jsonlFactory(t, ios.IOStreams, 1)
		opts := &ExtractOptions{IO: ios.IOStreams, Config: f.Config, Pipeline: f.Pipeline,
			ExtractFlags: ExtractFlags{Threads: []string{"nope"}}}
		err := runExtract(context.Background(), opts)
		wantError(t, err, `--thread "nope": no such thread`)
		if exitCode(err) != ExitUsage {
			t.Errorf("exit %d, want %d", exitCode(err), ExitUsage)
		}
	})
}

// A skip names its reason, the count and, where one exists, the
// flag or command that overrides it. Every reason has its own words.
func TestNotClaimedNamesTheOverride(t *testing.T) {
	for reason, override := range map[string]string{
		store.ReasonNotIdle:        "--all",
		store.ReasonTooOld:         "--all",
		extract.ReasonOverLimit:    "--max N",
		store.ReasonMemoryDisabled: "`memctl threads enable ID`",
	} {
		got := notClaimedText(map[string]int{reason: 3})
		if !strings.HasPrefix(got, "; not claimed: 3 ") || !strings.Contains(got, override) {
			t.Errorf("%s: %q, want the count and %s", reason, got, override)
		}
	}
	for _, reason := range []string{store.ReasonNonInteractive, store.ReasonSubagent, store.ReasonImported, store.ReasonMemoryDisabled, store.ReasonMemoryFolder,
		store.ReasonArchived, store.ReasonNoPreview, store.ReasonTooOld, store.ReasonNotIdle, extract.ReasonUpToDate, extract.ReasonRunning,
		extract.ReasonBackoff, extract.ReasonNoRetries, extract.ReasonOverLimit} {
		if notClaimedLabel[reason] == "" {
			t.Errorf("reason %s has no label", reason)
		}
	}
}
