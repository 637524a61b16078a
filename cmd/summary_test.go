package cmd

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/inject"
)

func TestNewSummaryCmd(t *testing.T) {
	tests := []struct {
		name    string
		argv    string
		want    SummaryOptions
		wantErr string
	}{
		{name: "defaults", want: SummaryOptions{MaxTokens: inject.DefaultSummaryTokens}},
		{name: "every flag", argv: "--raw --max-tokens 20 --agent claude-code --json",
			want: SummaryOptions{JSON: true, Raw: true, MaxTokens: 20, Agent: "claude-code"}},
		{name: "unknown agent", argv: "--agent cursor", wantErr: `--agent: invalid value "cursor": want one of: claude-code, codex`},
		{name: "negative budget", argv: "--max-tokens -1", wantErr: "--max-tokens must not be negative"},
		{name: "budget not a number", argv: "--max-tokens lots", wantErr: `--max-tokens: invalid value "lots": want an integer`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(false)
			f := newTestFactory(t, ios.IOStreams, nil)
			var got *SummaryOptions
			err := execCmd(t, f, newSummaryCmd(f, func(_ context.Context, o *SummaryOptions) error { got = o; return nil }), nil,
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

func TestRunSummary(t *testing.T) {
	const summary = "v1\n- The parser tests run with go test ./parser.\n"
	tests := []struct {
		name      string
		opts      SummaryOptions
		config    string
		noSummary bool
		tty       bool
		check     func(t *testing.T, out string)
	}{
		{name: "raw", opts: SummaryOptions{Raw: true, MaxTokens: 5000},
			check: exactly(summary)},
		{name: "raw on a terminal is the same", opts: SummaryOptions{Raw: true, MaxTokens: 5000}, tty: true,
			check: exactly(summary)},
		{name: "instructions around the summary", opts: SummaryOptions{MaxTokens: 5000},
			check: func(t *testing.T, out string) {
				if !strings.Contains(out, summary) || !strings.Contains(out, "<oai-mem-citation>") {
					t.Errorf("stdout lacks the summary or the citation instructions:\n%s", out)
				}
			}},
		{name: "json", opts: SummaryOptions{Raw: true, MaxTokens: 5000, JSON: true},
			check: exactly(`{"text":"v1\n- The parser tests run with go test ./parser.","injected":true,"approx_tokens":12,"truncated":false}`)},
		{name: "no summary: nothing at all", opts: SummaryOptions{MaxTokens: 5000}, noSummary: true, check: exactly("")},
		{name: "use_memories = false: nothing at all", opts: SummaryOptions{MaxTokens: 5000},
			config: "[memories]\nuse_memories = false\n", check: exactly("")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(tt.tty)
			f := newTestFactory(t, ios.IOStreams, nil)
			writeConfig(t, f, tt.config)
			if !tt.noSummary {
				root, _ := f.MemoryRoot("v1")
				if err := os.MkdirAll(root, 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(root, "memory_summary.md"), []byte(summary), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			opts := tt.opts
			opts.IO, opts.Config, opts.MemoryRoot, opts.Now = ios.IOStreams, f.Config, f.MemoryRoot, f.Now
			if err := runSummary(context.Background(), &opts); err != nil {
				t.Fatal(err)
			}
			out := ios.out.String()
			if opts.JSON {
				out = compactJSON(t, out)
			}
			tt.check(t, out)
			if ios.errOut.Len() != 0 {
				t.Errorf("stderr %q, want nothing: summary's output goes into a prompt", ios.errOut)
			}
			home, _ := f.Home()
			if _, err := os.Stat(filepath.Join(home, "memories_1.sqlite")); err == nil {
				t.Error("summary opened the database")
			}
		})
	}
}

// exactly checks stdout against want.
func exactly(want string) func(t *testing.T, out string) {
	return func(t *testing.T, out string) {
		t.Helper()
		if out != want {
			t.Errorf("stdout:\n%q\nwant:\n%q", out, want)
		}
	}
}
