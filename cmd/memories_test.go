package cmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/store"
	"github.com/spf13/cobra"
)

// memoriesFactory is a home with two raw memories, thread-a (older) and
// thread-b, none consolidated yet.
func memoriesFactory(t *testing.T, ios *testStreams) *Factory {
	t.Helper()
	f := newTestFactory(t, ios.IOStreams, nil)
	writeConfig(t, f, "[memories]\nmax_unused_days = 365\n[consolidation]\nmode = \"heuristic\"\n")
	seedMemory(t, f, "v1", "thread-a", testNow.Add(-48*time.Hour))
	seedMemory(t, f, "v1", "thread-b", testNow.Add(-24*time.Hour))
	return f
}

// parseMemoriesArgs runs `memctl memories <sub> argv` and returns the
// options its runF received.
func parseMemoriesArgs[T any](t *testing.T, mk func(f *Factory, runF func(context.Context, *T) error) *cobra.Command, argv string) (T, error) {
	t.Helper()
	ios := newTestIO(false)
	f := newTestFactory(t, ios.IOStreams, nil)
	var got *T
	err := execCmd(t, f, mk(f, func(_ context.Context, o *T) error { got = o; return nil }), []string{"memories"}, strings.Fields(argv)...)
	return flagValues(got), err
}

func TestNewMemoriesCmds(t *testing.T) {
	check := func(t *testing.T, got, want any, err error, wantErr string) {
		t.Helper()
		wantError(t, err, wantErr)
		if wantErr != "" {
			if exitCode(err) != ExitUsage {
				t.Errorf("exit code %d, want %d", exitCode(err), ExitUsage)
			}
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("options %+v, want %+v", got, want)
		}
	}
	for _, tt := range []struct {
		argv    string
		want    MemoriesListOptions
		wantErr string
	}{
		{"", MemoriesListOptions{}, ""},
		{"--pinned --edited --limit 5 --json", MemoriesListOptions{Pinned: true, Edited: true, Limit: 5, JSON: true}, ""},
		{"--limit -2", MemoriesListOptions{}, "--limit must not be negative, got -2"},
		{"x", MemoriesListOptions{}, `memctl memories list takes no arguments, got "x"`},
	} {
		got, err := parseMemoriesArgs(t, newMemoriesListCmd, tt.argv)
		check(t, got, tt.want, err, tt.wantErr)
	}
	for _, tt := range []struct {
		argv    string
		want    MemoriesShowOptions
		wantErr string
	}{
		{"019e --json", MemoriesShowOptions{ID: "019e", JSON: true}, ""},
		{"", MemoriesShowOptions{}, "memctl memories show needs ID"},
	} {
		got, err := parseMemoriesArgs(t, newMemoriesShowCmd, tt.argv)
		check(t, got, tt.want, err, tt.wantErr)
	}
	pin := func(p bool) func(f *Factory, runF func(context.Context, *MemoriesPinOptions) error) *cobra.Command {
		return func(f *Factory, runF func(context.Context, *MemoriesPinOptions) error) *cobra.Command {
			return newMemoriesPinCmd(f, runF, p)
		}
	}
	got, err := parseMemoriesArgs(t, pin(true), "019e")
	check(t, got, MemoriesPinOptions{ID: "019e", Pin: true}, err, "")
	got, err = parseMemoriesArgs(t, pin(false), "019e --json")
	check(t, got, MemoriesPinOptions{ID: "019e", JSON: true}, err, "")
	_, err = parseMemoriesArgs(t, pin(false), "a b")
	check(t, nil, nil, err, `memctl memories unpin takes one argument (ID), got 2: "a" "b"`)
	fgot, err := parseMemoriesArgs(t, newMemoriesForgetCmd, "019e")
	check(t, fgot, MemoriesForgetOptions{IDs: []string{"019e"}}, err, "")
	for _, tt := range []struct {
		argv    string
		want    MemoriesEditOptions
		wantErr string
	}{
		{"019e", MemoriesEditOptions{ID: "019e"}, ""},
		{"019e --summary --from - --json", MemoriesEditOptions{ID: "019e", Summary: true, From: "-", JSON: true}, ""},
		{"019e --from", MemoriesEditOptions{}, "flag needs an argument"},
	} {
		got, err := parseMemoriesArgs(t, newMemoriesEditCmd, tt.argv)
		check(t, got, tt.want, err, tt.wantErr)
	}
}

func TestRunMemoriesList(t *testing.T) {
	for _, tt := range []struct {
		name    string
		tty     bool
		opts    MemoriesListOptions
		pin     string
		wantOut string
	}{
		{name: "piped: tab-separated, ranked",
			wantOut: "thread-b\t-\t0\t2026-06-09T12:00:00Z\t/src/thread-b\traw memory of thread-b\n" +
				"thread-a\t-\t0\t2026-06-08T12:00:00Z\t/src/thread-a\traw memory of thread-a\n"},
		{name: "pinned first", pin: "thread-a",
			wantOut: "thread-a\tpinned\t0\t2026-06-08T12:00:00Z\t/src/thread-a\traw memory of thread-a\n" +
				"thread-b\t-\t0\t2026-06-09T12:00:00Z\t/src/thread-b\traw memory of thread-b\n"},
		{name: "only pinned", pin: "thread-a", opts: MemoriesListOptions{Pinned: true},
			wantOut: "thread-a\tpinned\t0\t2026-06-08T12:00:00Z\t/src/thread-a\traw memory of thread-a\n"},
		{name: "terminal", tty: true, pin: "thread-a",
			wantOut: "\x1b[1mID        FLAGS   USES  UPDATED  CWD            DESCRIPTION\x1b[22m\n" +
				"thread-a  pinned  0     2d ago   /src/thread-a  raw memory of thread-a\n" +
				"thread-b  -       0     24h ago  /src/thread-b  raw memory of thread-b\n"},
		{name: "json", opts: MemoriesListOptions{JSON: true, Limit: 1},
			wantOut: `[{"id":"thread-b","description":"raw memory of thread-b","pinned":false,"user_asserted":false,"edited_at":null,` +
				`"usage_count":0,"last_usage":null,"selected_for_phase2":false,"updated_at":"2026-06-09T12:00:00Z",` +
				`"extracted_at":"2026-06-09T12:00:00Z","cwd":"/src/thread-b","source":"cli","memory_mode":"enabled","origin":{"kind":"session"}}]`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(tt.tty)
			f := memoriesFactory(t, ios)
			if tt.pin != "" {
				st, _ := f.OpenStore(context.Background(), "v1")
				if _, err := st.SetPinned(context.Background(), tt.pin, true); err != nil {
					t.Fatal(err)
				}
				st.Close()
			}
			opts := tt.opts
			opts.IO, opts.Config, opts.OpenStore, opts.Now = ios.IOStreams, f.Config, f.OpenStore, f.Now
			if err := runMemoriesList(context.Background(), &opts); err != nil {
				t.Fatal(err)
			}
			out := ios.out.String()
			if opts.JSON {
				out = compactJSON(t, out)
			}
			if out != tt.wantOut {
				t.Errorf("stdout:\n%q\nwant:\n%q", out, tt.wantOut)
			}
			if ios.errOut.Len() != 0 {
				t.Errorf("stderr %q", ios.errOut)
			}
		})
	}
}

func TestRunMemoriesShow(t *testing.T) {
	body := func(bold func(string) string) string {
		return bold("memory") + " thread-a\n  flags     -\n  origin    session\n  uses      0\n  updated   2026-06-08T12:00:00Z\n" +
			"  extracted 2026-06-08T12:00:00Z\n  cwd       /src/thread-a\n  thread    enabled (memctl threads show thread-a)\n\n" +
			bold("raw memory") + "\nraw memory of thread-a\n\n" + bold("rollout summary") + "\nsummary of thread-a\n"
	}
	for _, tt := range []struct {
		name    string
		tty     bool
		id      string
		json    bool
		wantOut string
		wantErr string
	}{
		{name: "piped", id: "thread-a", wantOut: body(func(s string) string { return s })},
		{name: "terminal", tty: true, id: "thread-a", wantOut: body(func(s string) string { return "\x1b[1m" + s + "\x1b[22m" })},
		{name: "prefix", id: "thread-a", wantOut: body(func(s string) string { return s })},
		{name: "json", id: "thread-b", json: true,
			wantOut: `{"id":"thread-b","description":"raw memory of thread-b","pinned":false,"user_asserted":false,"edited_at":null,` +
				`"usage_count":0,"last_usage":null,"selected_for_phase2":false,"updated_at":"2026-06-09T12:00:00Z",` +
				`"extracted_at":"2026-06-09T12:00:00Z","cwd":"/src/thread-b","source":"cli","memory_mode":"enabled","origin":{"kind":"session"},` +
				`"raw_memory":"raw memory of thread-b","rollout_summary":"summary of thread-b"}`},
		{name: "ambiguous prefix", id: "thread", wantErr: `ambiguous id prefix "thread": it matches thread-a, thread-b`},
		{name: "short prefix", id: "thr", wantErr: `v1: no raw memory "thr"`},
		{name: "unknown", id: "nothing", wantErr: `v1: no raw memory "nothing"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(tt.tty)
			f := memoriesFactory(t, ios)
			opts := &MemoriesShowOptions{IO: ios.IOStreams, Config: f.Config, OpenStore: f.OpenStore, JSON: tt.json, ID: tt.id}
			err := runMemoriesShow(context.Background(), opts)
			wantError(t, err, tt.wantErr)
			if err != nil {
				// A memory id is a thread id; its mistakes exit 2 as lookupThread's do
				if exitCode(err) != ExitUsage {
					t.Errorf("exit code %d, want %d", exitCode(err), ExitUsage)
				}
				return
			}
			out := ios.out.String()
			if tt.json {
				out = compactJSON(t, out)
			}
			if out != tt.wantOut {
				t.Errorf("stdout:\n%q\nwant:\n%q", out, tt.wantOut)
			}
		})
	}
}

func TestRunMemoriesPinAndForget(t *testing.T) {
	for _, tty := range []bool{false, true} {
		t.Run(ttyName(tty), func(t *testing.T) {
			ios := newTestIO(tty)
			f := memoriesFactory(t, ios)
			ctx := context.Background()
			pin := &MemoriesPinOptions{IO: ios.IOStreams, Config: f.Config, OpenStore: f.OpenStore, ID: "thread-a", Pin: true}
			steps := []struct {
				run        func() error
				wantOut    string
				wantErrOut string
			}{
				{func() error { return runMemoriesPin(ctx, pin) }, "", "pinned thread-a\n"},
				{func() error { return runMemoriesPin(ctx, pin) }, "", "thread-a was already pinned\n"},
				{func() error { pin.JSON = true; return runMemoriesPin(ctx, pin) },
					"{\n  \"id\": \"thread-a\",\n  \"pinned\": true,\n  \"changed\": false,\n  \"versions\": [\n    \"v1\"\n  ]\n}\n", ""},
				{func() error { pin.JSON, pin.Pin = false, false; return runMemoriesPin(ctx, pin) }, "", "unpinned thread-a\n"},
				{func() error {
					return runMemoriesForget(ctx, &MemoriesForgetOptions{IO: ios.IOStreams, Config: f.Config, OpenStore: f.OpenStore, IDs: []string{"thread-b"}})
				}, "", "forgot thread-b; the next consolidation rebuilds the memory folder without it (`memctl consolidate`)\n"},
			}
			for i, st := range steps {
				ios.out.Reset()
				ios.errOut.Reset()
				if err := st.run(); err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if got := ios.out.String(); got != st.wantOut {
					t.Errorf("step %d stdout:\n%q\nwant:\n%q", i, got, st.wantOut)
				}
				if got := ios.errOut.String(); got != st.wantErrOut {
					t.Errorf("step %d stderr:\n%q\nwant:\n%q", i, got, st.wantErrOut)
				}
			}
			err := runMemoriesForget(ctx, &MemoriesForgetOptions{IO: ios.IOStreams, Config: f.Config, OpenStore: f.OpenStore, IDs: []string{"thread-b"}})
			if !errors.Is(err, store.ErrNotFound) {
				t.Errorf("forgetting twice: %v", err)
			}
		})
	}
}

// Forget, pin and unpin reach every generated version that holds the
// memory, and say which.
func TestMemoriesForgetUnderDualWrite(t *testing.T) {
	ios := newTestIO(false)
	f := newTestFactory(t, ios.IOStreams, nil)
	writeConfig(t, f, "[memories]\ndual_write = true\n")
	seedMemory(t, f, "v1", "thread-a", testNow.Add(-time.Hour))
	seedMemory(t, f, "v2", "thread-a", testNow.Add(-time.Hour))
	seedMemory(t, f, "v1", "thread-only-v1", testNow.Add(-time.Hour))
	opts := &MemoriesForgetOptions{IO: ios.IOStreams, Config: f.Config, OpenStore: f.OpenStore, IDs: []string{"thread-a"}, JSON: true}
	if err := runMemoriesForget(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if got := compactJSON(t, ios.out.String()); got != `{"id":"thread-a","versions":["v1","v2"],"forgotten":[{"id":"thread-a","versions":["v1","v2"]}]}` {
		t.Errorf("json %s", got)
	}
	ios.out.Reset()
	opts.IDs = []string{"thread-only"}
	if err := runMemoriesForget(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if got := compactJSON(t, ios.out.String()); got != `{"id":"thread-only-v1","versions":["v1"],"forgotten":[{"id":"thread-only-v1","versions":["v1"]}]}` {
		t.Errorf("json %s", got)
	}
}

func TestRunMemoriesEdit(t *testing.T) {
	for _, tt := range []struct {
		name       string
		env        map[string]string
		opts       MemoriesEditOptions
		editorText string // what the fake editor saves; "" leaves the file alone
		editorErr  error
		editorRm   bool // the editor deletes the file (a save elsewhere, a quit that cleans up)
		wantEditor string
		wantText   string // the stored raw memory afterwards
		wantErrOut string
		wantOut    string
		wantErr    string
	}{
		{name: "EDITOR first", env: map[string]string{"EDITOR": "ed -x", "VISUAL": "vis"}, editorText: "mine\n",
			wantEditor: "ed -x", wantText: "mine\n",
			wantErrOut: "stored your text of thread-a (raw memory) as user-asserted; the next consolidation takes it in\n"},
		{name: "then VISUAL", env: map[string]string{"VISUAL": "vis"}, editorText: "mine\n", wantEditor: "vis", wantText: "mine\n",
			wantErrOut: "stored your text of thread-a (raw memory) as user-asserted; the next consolidation takes it in\n"},
		{name: "then vi", editorText: "mine\n", wantEditor: "vi", wantText: "mine\n",
			wantErrOut: "stored your text of thread-a (raw memory) as user-asserted; the next consolidation takes it in\n"},
		{name: "saved unchanged", wantEditor: "vi", wantText: "raw memory of thread-a", wantErrOut: "thread-a is unchanged\n"},
		{name: "json", opts: MemoriesEditOptions{JSON: true}, editorText: "mine\n", wantEditor: "vi", wantText: "mine\n",
			wantOut: `{"id":"thread-a","version":"v1","field":"raw_memory","changed":true,"redacted":false}`},
		{name: "the rollout summary", opts: MemoriesEditOptions{Summary: true}, editorText: "better summary\n", wantEditor: "vi",
			wantText:   "raw memory of thread-a",
			wantErrOut: "stored your text of thread-a (rollout summary) as user-asserted; the next consolidation takes it in\n"},
		{name: "empty", editorText: "\n\n", wantEditor: "vi", wantText: "raw memory of thread-a",
			wantErr: "the new text of thread-a is empty; nothing was stored"},
		{name: "editor fails", editorErr: errors.New("exit status 1"), wantEditor: "vi", wantText: "raw memory of thread-a",
			wantErr: `editor "vi": exit status 1; nothing was stored`},
		// The editor left no file: say so, and that nothing was stored
		{name: "the editor removed the file", editorRm: true, wantEditor: "vi", wantText: "raw memory of thread-a",
			wantErr: `editor "vi" left no file to read; nothing was stored`},
		// a pasted log of megabytes would be read by every consolidation
		{name: "too long", editorText: strings.Repeat("log line\n", 8000), wantEditor: "vi", wantText: "raw memory of thread-a",
			wantErr: "the new text of thread-a is 70.3 KiB, over the 64.0 KiB a memory may hold; nothing was stored"},
		{name: "a secret is redacted", editorText: "token ghp_abcdefghijklmnopqrstuvwxyz0123456789 here\n", wantEditor: "vi",
			wantText:   "token [REDACTED_SECRET] here\n",
			wantErrOut: "memctl: warning: secrets were redacted from the text of thread-a\nstored your text of thread-a (raw memory) as user-asserted; the next consolidation takes it in\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(false)
			f := memoriesFactory(t, ios)
			var ranEditor, seen string
			opts := tt.opts
			opts.IO, opts.Config, opts.OpenStore, opts.ID = ios.IOStreams, f.Config, f.OpenStore, "thread-a"
			opts.Getenv = func(k string) string { return tt.env[k] }
			opts.RunEditor = func(_ context.Context, _ *IOStreams, editor, path string) error {
				ranEditor = editor
				b, _ := os.ReadFile(path)
				seen = string(b)
				if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 || filepath.Base(path) != "thread-a.md" {
					t.Errorf("the copy is %v %s", fi.Mode().Perm(), path)
				}
				if tt.editorText != "" {
					os.WriteFile(path, []byte(tt.editorText), 0o600)
				}
				if tt.editorRm {
					os.Remove(path)
				}
				return tt.editorErr
			}
			err := runMemoriesEdit(context.Background(), &opts)
			wantError(t, err, tt.wantErr)
			if ranEditor != tt.wantEditor {
				t.Errorf("editor %q, want %q", ranEditor, tt.wantEditor)
			}
			if want := "raw memory of thread-a"; !tt.opts.Summary && seen != want || tt.opts.Summary && seen != "summary of thread-a" {
				t.Errorf("the editor was given %q", seen)
			}
			st, _ := f.OpenStore(context.Background(), "v1")
			m, _ := st.Memory(context.Background(), "thread-a")
			st.Close()
			if m.RawMemory != tt.wantText {
				t.Errorf("stored %q, want %q", m.RawMemory, tt.wantText)
			}
			if m.UserAsserted() != (tt.wantErr == "" && (tt.editorText != "" || tt.opts.Summary)) {
				t.Errorf("user-asserted = %v", m.UserAsserted())
			}
			if err != nil {
				return
			}
			ios.wantOutput(t, opts.JSON, tt.wantOut, tt.wantErrOut)
		})
	}
}

// A v2 memory has only its rollout summary: that is what edit rewrites.
func TestRunMemoriesEditV2(t *testing.T) {
	ios := newTestIO(false)
	f := newTestFactory(t, ios.IOStreams, nil)
	writeConfig(t, f, "[memories]\nversion = \"v2\"\n")
	seedMemory(t, f, "v2", "thread-a", testNow.Add(-time.Hour))
	in := strings.NewReader("what the user says happened\n")
	ios.In = in
	opts := &MemoriesEditOptions{IO: ios.IOStreams, Config: f.Config, OpenStore: f.OpenStore, Getenv: func(string) string { return "" },
		ID: "thread-a", From: "-", JSON: true}
	if err := runMemoriesEdit(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if got := compactJSON(t, ios.out.String()); got != `{"id":"thread-a","version":"v2","field":"rollout_summary","changed":true,"redacted":false}` {
		t.Errorf("json %s", got)
	}
	st, _ := f.OpenStore(context.Background(), "v2")
	defer st.Close()
	m, _ := st.Memory(context.Background(), "thread-a")
	if m.RolloutSummary != "what the user says happened\n" || !m.UserAsserted() {
		t.Errorf("stored %+v", m)
	}
}
