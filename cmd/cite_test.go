package cmd

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestNewCiteCmd(t *testing.T) {
	tests := []struct {
		name     string
		argv     []string
		want     CiteOptions
		wantErr  string
		wantCode int
	}{
		{name: "stdin", want: CiteOptions{}},
		{name: "file and flags", argv: []string{"reply.md", "--id", "019e1625", "--id", "abc", "--dry-run", "--json"},
			want: CiteOptions{JSON: true, Arg: "reply.md", IDs: []string{"019e1625", "abc"}, DryRun: true}},
		{name: "claude hook", argv: []string{"--hook", "claude"}, want: CiteOptions{Hook: "claude"}},
		{name: "codex hook", argv: []string{"--hook", "codex", `{"type":"agent-turn-complete"}`},
			want: CiteOptions{Hook: "codex", Arg: `{"type":"agent-turn-complete"}`}},
		{name: "an id with a space", argv: []string{"--id", "a b"}, wantErr: `--id "a b" is not a thread id`, wantCode: ExitUsage},
		{name: "two files", argv: []string{"a", "b"}, wantErr: `memctl cite takes at most one argument ([FILE]), got 2: "a" "b"`, wantCode: ExitUsage},
		// A hook never exits 2: Claude Code reads 2 as "do not stop".
		{name: "unknown hook", argv: []string{"--hook", "cursor"}, wantErr: `--hook: invalid value "cursor": want one of: claude, codex`, wantCode: ExitError},
		{name: "codex hook without its JSON", argv: []string{"--hook", "codex"}, wantErr: "--hook codex needs the notify JSON", wantCode: ExitError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(false)
			f := newTestFactory(t, ios.IOStreams, nil)
			var got *CiteOptions
			err := execCmd(t, f, newCiteCmd(f, func(_ context.Context, o *CiteOptions) error { got = o; return nil }), nil, tt.argv...)
			wantError(t, err, tt.wantErr)
			if tt.wantErr != "" {
				if code := exitCode(err); code != tt.wantCode {
					t.Errorf("exit code %d, want %d", code, tt.wantCode)
				}
				return
			}
			if g := flagValues(got); !reflect.DeepEqual(g, tt.want) {
				t.Errorf("options %+v, want %+v", g, tt.want)
			}
		})
	}
}

func TestRunCite(t *testing.T) {
	const reply = "The answer.\n<oai-mem-citation>\n<citation_entries>\nMEMORY.md:1-2|note=[why]\n</citation_entries>\n" +
		"<rollout_ids>\nthread-a\n</rollout_ids>\n</oai-mem-citation>\n"
	tests := []struct {
		name       string
		opts       CiteOptions
		stdin      string
		tty        bool
		wantOut    string
		wantErrOut string
		wantUses   int64
	}{
		{name: "piped", stdin: reply, wantOut: "The answer.\n\n", wantUses: 1},
		{name: "terminal: the same", stdin: reply, tty: true, wantOut: "The answer.\n\n", wantUses: 1},
		{name: "dry run records nothing", opts: CiteOptions{DryRun: true}, stdin: reply, wantOut: "The answer.\n\n", wantUses: 0},
		{name: "--id records directly", opts: CiteOptions{IDs: []string{"thread-a"}}, stdin: "", wantOut: "", wantUses: 1},
		{name: "verbose says what it counted", opts: CiteOptions{}, stdin: reply, wantOut: "The answer.\n\n",
			wantErrOut: "memctl: cited 1 memories, recorded 1 uses\n", wantUses: 1},
		{name: "json", opts: CiteOptions{JSON: true}, stdin: reply,
			wantOut: `{"visible":"The answer.\n\n","entries":[{"path":"MEMORY.md","line_start":1,"line_end":2,"note":"why"}],` +
				`"rollout_ids":["thread-a"],"recorded":1,"cited":true,"unknown_ids":[]}`, wantUses: 1},
		// An id with no stored memory is reported, not counted as 0 in silence
		{name: "unknown --id", opts: CiteOptions{IDs: []string{"nope"}},
			wantErrOut: "memctl: warning: cited id \"nope\" has no stored memory (pruned, forgotten, never extracted or mistyped); not counted\n"},
		{name: "unknown id in the block, json", opts: CiteOptions{JSON: true},
			stdin: strings.Replace(reply, "thread-a\n", "thread-a\nthread-gone\n", 1),
			wantOut: `{"visible":"The answer.\n\n","entries":[{"path":"MEMORY.md","line_start":1,"line_end":2,"note":"why"}],` +
				`"rollout_ids":["thread-a","thread-gone"],"recorded":1,"cited":true,"unknown_ids":["thread-gone"]}`,
			wantErrOut: "memctl: warning: cited id \"thread-gone\" has no stored memory (pruned, forgotten, never extracted or mistyped); not counted\n",
			wantUses:   1},
		{name: "claude hook: prints nothing", opts: CiteOptions{Hook: "claude"},
			stdin: `{"session_id":"s1","prompt_id":"p1","last_assistant_message":` + jsonString(reply) + `}`, wantUses: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(tt.tty)
			ios.Verbose = strings.HasPrefix(tt.name, "verbose")
			f := newTestFactory(t, ios.IOStreams, nil)
			seedMemory(t, f, "v1", "thread-a", testNow.Add(-time.Hour))
			ios.in.WriteString(tt.stdin)
			opts := tt.opts
			opts.IO, opts.Config, opts.OpenStore, opts.Now, opts.Getenv, opts.UserHome = ios.IOStreams, f.Config, f.OpenStore, f.Now, f.Getenv, f.UserHome
			if err := runCite(context.Background(), &opts); err != nil {
				t.Fatal(err)
			}
			ios.wantOutput(t, opts.JSON, tt.wantOut, tt.wantErrOut)
			if got := usageCount(t, f, "thread-a"); got != tt.wantUses {
				t.Errorf("usage count %d, want %d", got, tt.wantUses)
			}
		})
	}
}

// usageCount is how often the raw memory of a thread was cited.
func usageCount(t *testing.T, f *Factory, id string) int64 {
	t.Helper()
	st, err := f.OpenStore(context.Background(), "v1")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	o, err := st.Output(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return o.UsageCount
}
