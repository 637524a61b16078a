package cmd

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/store"
)

// rejectPending rejects generation 1, which generationsFactory with review
// leaves pending, so that nothing waits for review.
func rejectPending(t *testing.T, f *Factory) {
	t.Helper()
	st, err := f.OpenStore(context.Background(), "v1")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.RejectGeneration(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
}

// generationsFactory is a home with two consolidations: generation 1 from
// thread-a and thread-b, generation 2 after thread-a's memory was edited.
// With review set, consolidations stop at a pending generation instead.
func generationsFactory(t *testing.T, ios *testStreams, review bool) *Factory {
	t.Helper()
	f := newTestFactory(t, ios.IOStreams, nil)
	cfg := "[memories]\nmax_unused_days = 365\n[consolidation]\nmode = \"heuristic\"\n"
	if review {
		cfg += "review = true\n"
	}
	writeConfig(t, f, cfg)
	seedMemory(t, f, "v1", "thread-a", testNow.Add(-48*time.Hour))
	seedMemory(t, f, "v1", "thread-b", testNow.Add(-24*time.Hour))
	consolidateQuietly(t, f)
	if review {
		return f
	}
	st, err := f.OpenStore(context.Background(), "v1")
	if err != nil {
		t.Fatal(err)
	}
	text := "the deploy key lives in the vault"
	if err := st.EditMemory(context.Background(), "thread-a", store.MemoryEdit{RawMemory: &text}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	consolidateQuietly(t, f)
	return f
}

func consolidateQuietly(t *testing.T, f *Factory) {
	t.Helper()
	quiet := newTestIO(false)
	opts := &ConsolidateOptions{IO: quiet.IOStreams, Config: f.Config, Pipeline: f.Pipeline}
	if err := runConsolidate(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
}

func TestNewHistoryCmd(t *testing.T) {
	for _, tt := range []struct {
		name    string
		argv    string
		want    HistoryOptions
		wantErr string
	}{
		{name: "defaults", want: HistoryOptions{}},
		{name: "limit and json", argv: "--limit 3 --json", want: HistoryOptions{Limit: 3, JSON: true}},
		{name: "negative limit", argv: "--limit -1", wantErr: "--limit must not be negative, got -1"},
		{name: "argument", argv: "seven", wantErr: `unknown command "seven"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(false)
			f := newTestFactory(t, ios.IOStreams, nil)
			var got *HistoryOptions
			err := execCmd(t, f, newHistoryCmd(f, func(_ context.Context, o *HistoryOptions) error { got = o; return nil }), nil,
				strings.Fields(tt.argv)...)
			wantParsed(t, err, tt.wantErr, got, tt.want)
		})
	}
}

func TestNewHistoryShowCmd(t *testing.T) {
	for _, tt := range []struct {
		name    string
		argv    string
		want    HistoryShowOptions
		wantErr string
	}{
		{name: "id", argv: "4", want: HistoryShowOptions{ID: 4}},
		{name: "stat", argv: "4 --stat", want: HistoryShowOptions{ID: 4, Stat: true}},
		{name: "input", argv: "#4 --input", want: HistoryShowOptions{ID: 4, Input: true}},
		{name: "not a number", argv: "four", wantErr: `generation id "four": want a positive number`},
		{name: "zero", argv: "0", wantErr: `generation id "0": want a positive number`},
		{name: "both", argv: "4 --stat --input", wantErr: "--stat and --input cannot be used together"},
		{name: "no id", argv: "", wantErr: "memctl history show needs N"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(false)
			f := newTestFactory(t, ios.IOStreams, nil)
			var got *HistoryShowOptions
			err := execCmd(t, f, newHistoryShowCmd(f, func(_ context.Context, o *HistoryShowOptions) error { got = o; return nil }),
				[]string{"history"}, strings.Fields(tt.argv)...)
			wantParsed(t, err, tt.wantErr, got, tt.want)
		})
	}
}

func TestRunHistory(t *testing.T) {
	for _, tt := range []struct {
		name       string
		tty        bool
		empty      bool
		opts       HistoryOptions
		wantOut    string
		wantErrOut string
	}{
		{name: "piped: tab-separated, RFC 3339, no header",
			wantOut: "2\t2026-06-10T12:00:00Z\tcurrent\tconsolidation\theuristic\theuristic\t2\t0\t+0 ~5 -0\n" +
				"1\t2026-06-10T12:00:00Z\tapproved\tconsolidation\theuristic\theuristic\t2\t0\t+10 ~0 -0\n"},
		{name: "terminal: header, relative times", tty: true,
			wantOut: "\x1b[1mID  WHEN         STATE     KIND           MODE       MODEL      INPUTS  TOKENS  FILES\x1b[22m\n" +
				"2   moments ago  current   consolidation  heuristic  heuristic  2       0       +0 ~5 -0\n" +
				"1   moments ago  approved  consolidation  heuristic  heuristic  2       0       +10 ~0 -0\n"},
		{name: "limit", opts: HistoryOptions{Limit: 1},
			wantOut: "2\t2026-06-10T12:00:00Z\tcurrent\tconsolidation\theuristic\theuristic\t2\t0\t+0 ~5 -0\n"},
		{name: "json", opts: HistoryOptions{JSON: true, Limit: 1},
			wantOut: `{"version":"v1","keep":20,"generations":[{"id":2,"created_at":"2026-06-10T12:00:00Z","state":"approved",` +
				`"kind":"consolidation","parent_id":1,"mode":"heuristic","provider":"heuristic","selected":2,"input_tokens":0,` +
				`"output_tokens":0,"total_tokens":0,"added":0,"modified":5,"deleted":0,"watermark":1781006400,` +
				`"settled_at":"2026-06-10T12:00:00Z","purged_at":null,"current":true}]}`},
		{name: "nothing yet", empty: true, wantErrOut: "v1: no generations yet; the next consolidation that changes the memory folder records one\n"},
		{name: "nothing yet, json", empty: true, opts: HistoryOptions{JSON: true},
			wantOut: `{"version":"v1","keep":20,"generations":[]}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(tt.tty)
			var f *Factory
			if tt.empty {
				f = newTestFactory(t, ios.IOStreams, nil)
			} else {
				f = generationsFactory(t, ios, false)
			}
			opts := tt.opts
			opts.IO, opts.Config, opts.OpenStore, opts.Now = ios.IOStreams, f.Config, f.OpenStore, f.Now
			if err := runHistory(context.Background(), &opts); err != nil {
				t.Fatal(err)
			}
			ios.wantOutput(t, opts.JSON, tt.wantOut, tt.wantErrOut)
		})
	}
}

func TestRunHistoryShow(t *testing.T) {
	header := func(bold func(string) string) string {
		return bold("generation") + " 2 (consolidation, current)\n" +
			"  created   2026-06-10T12:00:00Z\n  mode      heuristic\n  model     heuristic\n" +
			"  inputs    2 raw memories\n  tokens    0 (0 in, 0 out)\n  against   generation 1\n\n"
	}
	plain := func(s string) string { return s }
	stat := "M MEMORY.md\nM memory_summary.md\nM projects/thread-a-987e139c/summary.md\nM raw_memories.md\nM rollout_summaries/2026-06-08T12-00-00-Jb1I.md\n"
	for _, tt := range []struct {
		name    string
		tty     bool
		opts    HistoryShowOptions
		check   func(t *testing.T, out string)
		wantErr string
	}{
		{name: "stat, piped", opts: HistoryShowOptions{ID: 2, Stat: true}, check: func(t *testing.T, out string) {
			if want := header(plain) + stat; out != want {
				t.Errorf("stdout:\n%q\nwant:\n%q", out, want)
			}
		}},
		{name: "stat, terminal", tty: true, opts: HistoryShowOptions{ID: 2, Stat: true}, check: func(t *testing.T, out string) {
			if want := header(func(s string) string { return "\x1b[1m" + s + "\x1b[22m" }) + stat; out != want {
				t.Errorf("stdout:\n%q\nwant:\n%q", out, want)
			}
		}},
		{name: "diffs", opts: HistoryShowOptions{ID: 2}, check: func(t *testing.T, out string) {
			for _, want := range []string{header(plain) + stat + "\ndiff --git a/MEMORY.md b/MEMORY.md\n",
				"\n+user_asserted: true\n", "\n+the deploy key lives in the vault\n"} {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
		}},
		{name: "first generation: against nothing", opts: HistoryShowOptions{ID: 1, Stat: true}, check: func(t *testing.T, out string) {
			if !strings.Contains(out, "  against   nothing (the first generation)\n\nA MEMORY.md\n") {
				t.Errorf("stdout:\n%s", out)
			}
		}},
		{name: "input", opts: HistoryShowOptions{ID: 2, Input: true}, check: func(t *testing.T, out string) {
			if !strings.HasPrefix(out, "# Memory Workspace Diff\n") || !strings.Contains(out, "- M raw_memories.md\n") {
				t.Errorf("stdout:\n%s", out)
			}
		}},
		{name: "json", opts: HistoryShowOptions{ID: 2, Stat: true, JSON: true}, check: func(t *testing.T, out string) {
			for _, want := range []string{`"previous":1,"previous_kept":true,"files":[{"status":"M","path":"MEMORY.md","artifact":true,"diff":""}`,
				`{"status":"M","path":"raw_memories.md","artifact":false,"diff":""}`, `"thread_id":"thread-a"`, `"user_asserted":true`} {
				if !strings.Contains(compactJSON(t, out), want) {
					t.Errorf("json lacks %s:\n%s", want, out)
				}
			}
		}},
		{name: "unknown", opts: HistoryShowOptions{ID: 9}, wantErr: "v1: no generation 9 is kept"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(tt.tty)
			f := generationsFactory(t, ios, false)
			opts := tt.opts
			opts.IO, opts.Config, opts.OpenStore = ios.IOStreams, f.Config, f.OpenStore
			err := runHistoryShow(context.Background(), &opts)
			wantError(t, err, tt.wantErr)
			if err != nil {
				return
			}
			tt.check(t, ios.out.String())
			if ios.errOut.Len() != 0 {
				t.Errorf("stderr %q", ios.errOut)
			}
		})
	}
}
