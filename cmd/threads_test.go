package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/store"
)

const (
	thread0 = "00000000-0000-4000-8000-000000000000"
	thread1 = "00000000-0000-4000-8000-000000000001"
)

func TestNewThreadsCmds(t *testing.T) {
	type capture struct {
		list  *ThreadsListOptions
		show  *ThreadsShowOptions
		input *ThreadsInputOptions
		mode  *ThreadsModeOptions
	}
	tests := []struct {
		name    string
		argv    string
		want    any
		wantErr string
	}{
		{name: "list", argv: "list --limit 5 --json", want: ThreadsListOptions{JSON: true, Limit: 5}},
		{name: "list takes no id", argv: "list 0000", wantErr: `memctl threads list takes no arguments, got "0000"`},
		{name: "show", argv: "show 019e1625", want: ThreadsShowOptions{ID: "019e1625"}},
		{name: "show needs an id", argv: "show", wantErr: "memctl threads show needs ID"},
		{name: "input", argv: "input 019e1625 --system", want: ThreadsInputOptions{ID: "019e1625", System: true}},
		{name: "enable", argv: "enable 019e", want: ThreadsModeOptions{ID: "019e", Mode: "enabled"}},
		{name: "disable", argv: "disable 019e --json", want: ThreadsModeOptions{JSON: true, ID: "019e", Mode: "disabled"}},
		{name: "forget", argv: "forget 019e", want: ThreadsModeOptions{ID: "019e", Mode: "disabled", Forget: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(false)
			f := newTestFactory(t, ios.IOStreams, nil)
			var c capture
			argv := strings.Fields(tt.argv)
			var sub = map[string]func() error{
				"list": func() error {
					return execCmd(t, f, newThreadsListCmd(f, func(_ context.Context, o *ThreadsListOptions) error { c.list = o; return nil }), []string{"threads"}, argv[1:]...)
				},
				"show": func() error {
					return execCmd(t, f, newThreadsShowCmd(f, func(_ context.Context, o *ThreadsShowOptions) error { c.show = o; return nil }), []string{"threads"}, argv[1:]...)
				},
				"input": func() error {
					return execCmd(t, f, newThreadsInputCmd(f, func(_ context.Context, o *ThreadsInputOptions) error { c.input = o; return nil }), []string{"threads"}, argv[1:]...)
				},
				"enable": func() error {
					return execCmd(t, f, newThreadsModeCmd(f, func(_ context.Context, o *ThreadsModeOptions) error { c.mode = o; return nil },
						"enable", "enabled", ""), []string{"threads"}, argv[1:]...)
				},
				"disable": func() error {
					return execCmd(t, f, newThreadsModeCmd(f, func(_ context.Context, o *ThreadsModeOptions) error { c.mode = o; return nil },
						"disable", "disabled", ""), []string{"threads"}, argv[1:]...)
				},
				"forget": func() error {
					return execCmd(t, f, newThreadsForgetCmd(f, func(_ context.Context, o *ThreadsModeOptions) error { c.mode = o; return nil }), []string{"threads"}, argv[1:]...)
				},
			}
			err := sub[argv[0]]()
			wantError(t, err, tt.wantErr)
			if tt.wantErr != "" {
				if exitCode(err) != ExitUsage {
					t.Errorf("exit %d, want %d", exitCode(err), ExitUsage)
				}
				return
			}
			var got any
			switch {
			case c.list != nil:
				got = flagValues(c.list)
			case c.show != nil:
				got = flagValues(c.show)
			case c.input != nil:
				got = flagValues(c.input)
			case c.mode != nil:
				got = flagValues(c.mode)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("options %+v, want %+v", got, tt.want)
			}
		})
	}
}

// extractedFactory is a jsonlFactory whose two threads were extracted.
func extractedFactory(t *testing.T, ios *testStreams) (*Factory, string) {
	t.Helper()
	f := jsonlFactory(t, ios.IOStreams, 2)
	quiet := newTestIO(false)
	quiet.Quiet = true
	// One call at a time: the rows are stored in claim order, and ties
	// in search rank come out in that order.
	opts := &ExtractOptions{IO: quiet.IOStreams, Config: f.Config, Pipeline: f.Pipeline,
		ExtractFlags: ExtractFlags{All: true, Concurrency: ptrTo(1)}}
	if err := runExtract(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	return f, filepath.Join(filepath.Dir(f.HomeFlag), "transcripts")
}

func TestRunThreadsList(t *testing.T) {
	for _, tt := range []struct {
		name    string
		tty     bool
		width   int
		json    bool
		limit   int
		wantOut string
	}{
		{name: "piped: tab-separated, RFC 3339, no header",
			wantOut: thread1 + "\tcli\t2026-06-09T12:00:01Z\tenabled\tyes\t/src/project-1\tfix the flaky test number 1 in the parser\tproject-1\n" +
				thread0 + "\tcli\t2026-06-09T12:00:00Z\tenabled\tyes\t/src/project-0\tfix the flaky test number 0 in the parser\tproject-0\n"},
		// The folder (the project says it) and the mode go
		// first, and the preview is whole.
		{name: "terminal: header over its column, the agent, relative times, fitted to 120 columns", tty: true,
			wantOut: "\x1b[1mID                                    SOURCE  UPDATED  MEMORY  PREVIEW                                    PROJECT\x1b[22m\n" +
				thread1 + "  jsonl   23h ago  yes     fix the flaky test number 1 in the parser  project-1\n" +
				thread0 + "  jsonl   24h ago  yes     fix the flaky test number 0 in the parser  project-0\n"},
		{name: "narrow terminal: columns dropped, the preview keeps a minimum, no row wraps", tty: true, width: 60,
			wantOut: "\x1b[1mID                                    UPDATED  PREVIEW\x1b[22m\n" +
				thread1 + "  23h ago  fix the flak…\n" +
				thread0 + "  24h ago  fix the flak…\n"},
		{name: "wide terminal: nothing cut", tty: true, width: 200,
			wantOut: "\x1b[1mID                                    SOURCE  UPDATED  MODE     MEMORY  CWD             PREVIEW                                    PROJECT\x1b[22m\n" +
				thread1 + "  jsonl   23h ago  enabled  yes     /src/project-1  fix the flaky test number 1 in the parser  project-1\n" +
				thread0 + "  jsonl   24h ago  enabled  yes     /src/project-0  fix the flaky test number 0 in the parser  project-0\n"},
		{name: "limit", limit: 1,
			wantOut: thread1 + "\tcli\t2026-06-09T12:00:01Z\tenabled\tyes\t/src/project-1\tfix the flaky test number 1 in the parser\tproject-1\n"},
		{name: "json", json: true, limit: 1,
			wantOut: `[{"id":"` + thread1 + `","source":"cli","source_kind":"jsonl","path":"SRC/` + thread1 + `.jsonl","cwd":"/src/project-1",` +
				`"preview":"fix the flaky test number 1 in the parser","created_at":"2026-06-09T12:00:01Z","updated_at":"2026-06-09T12:00:01Z",` +
				`"memory_mode":"enabled","has_memory":true,"subagent":false,"archived":false,"project_key":"path:/src/project-1","project":"project-1"}]`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(tt.tty)
			if tt.width > 0 {
				ios.width = func() int { return tt.width }
			}
			f, src := extractedFactory(t, ios)
			opts := &ThreadsListOptions{IO: ios.IOStreams, Config: f.Config, OpenStore: f.OpenStore, Now: f.Now, JSON: tt.json, Limit: tt.limit}
			if err := runThreadsList(context.Background(), opts); err != nil {
				t.Fatal(err)
			}
			out := ios.out.String()
			if tt.json {
				out = compactJSON(t, out)
			}
			if out = strings.ReplaceAll(out, src, "SRC"); out != tt.wantOut {
				t.Errorf("stdout:\n%q\nwant:\n%q", out, tt.wantOut)
			}
			if ios.errOut.Len() != 0 {
				t.Errorf("stderr %q", ios.errOut)
			}
		})
	}
}

func TestRunThreadsShow(t *testing.T) {
	body := func(bold, red func(string) string) string {
		return bold("thread") + " " + thread0 + "\n" +
			"  source    cli (jsonl)\n  path      SRC/" + thread0 + ".jsonl\n  cwd       /src/project-0\n  project   project-0 (path:/src/project-0)\n" +
			"  created   2026-06-09T12:00:00Z\n  updated   2026-06-09T12:00:00Z\n  mode      enabled\n" +
			"  preview   fix the flaky test number 0 in the parser\n\n" +
			bold("extraction") + ": " + red("not eligible") + "\n" +
			"  ok  source          source \"cli\" (interactive true, sub-agent false)\n" +
			"  ok  memory_mode     memory mode enabled\n" +
			"  ok  not_archived    archived false\n" +
			"  ok  has_preview     a first human message is present\n" +
			"  ok  age             updated 24h ago, window 10 days (extract --all ignores it)\n" +
			"  ok  idle            idle 24h, needs 6 hours (extract --all ignores it)\n" +
			"  NO  not_up_to_date  this version of the thread was already extracted\n" +
			"  ok  not_running     job status done\n" +
			"  ok  backoff         no backoff\n" +
			"  ok  retries_left    3 retries left for this version\n\n" +
			bold("raw memory") + " (used 0 times)\n"
	}
	plain := func(s string) string { return s }
	for _, tt := range []struct {
		name string
		tty  bool
		want string
	}{
		{name: "piped", want: body(plain, plain)},
		{name: "terminal: colour", tty: true,
			want: body(func(s string) string { return "\x1b[1m" + s + "\x1b[22m" }, func(s string) string { return "\x1b[31m" + s + "\x1b[0m" })},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(tt.tty)
			f, src := extractedFactory(t, ios)
			opts := &ThreadsShowOptions{IO: ios.IOStreams, Config: f.Config, Pipeline: f.Pipeline, ID: thread0}
			if err := runThreadsShow(context.Background(), opts); err != nil {
				t.Fatal(err)
			}
			out := strings.ReplaceAll(ios.out.String(), src, "SRC")
			if !strings.HasPrefix(out, tt.want) {
				t.Errorf("stdout:\n%q\nwant it to start with:\n%q", out, tt.want)
			}
		})
	}
}

func TestRunThreadsInput(t *testing.T) {
	ios := newTestIO(false)
	f, _ := extractedFactory(t, ios)
	opts := &ThreadsInputOptions{IO: ios.IOStreams, Config: f.Config, OpenStore: f.OpenStore, ID: thread0}
	if err := runThreadsInput(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	plain := ios.out.String()
	if !strings.Contains(plain, "fix the flaky test number 0 in the parser") || strings.Contains(plain, "-----") {
		t.Errorf("input:\n%s", plain)
	}
	ios.out.Reset()
	opts.System = true
	if err := runThreadsInput(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if withSystem := ios.out.String(); !strings.HasSuffix(withSystem, "\n-----\n"+plain) {
		t.Errorf("--system does not print the system prompt, a line of dashes, then the input:\n%s", withSystem)
	}
	ios.out.Reset()
	opts.System, opts.JSON = false, true
	if err := runThreadsInput(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	var doc threadInputJSON
	if err := json.Unmarshal(ios.out.Bytes(), &doc); err != nil || doc.System == "" || len(doc.Input) != 1 || doc.Input[0] != plain {
		t.Errorf("json %+v, %v", doc, err)
	}
}

func TestRunThreadsMode(t *testing.T) {
	steps := []struct {
		name       string
		opts       ThreadsModeOptions
		wantOut    string
		wantErrOut string
		wantMode   string
		wantMemory bool
	}{
		{name: "disable", opts: ThreadsModeOptions{ID: thread0, Mode: "disabled"},
			wantErrOut: "disabled " + thread0 + "\n", wantMode: "disabled", wantMemory: true},
		{name: "enable", opts: ThreadsModeOptions{ID: thread0, Mode: "enabled"},
			wantErrOut: "enabled " + thread0 + "\n", wantMode: "enabled", wantMemory: true},
		{name: "forget, json", opts: ThreadsModeOptions{ID: thread0, Mode: "disabled", Forget: true, JSON: true},
			wantOut: `{"id":"` + thread0 + `","memory_mode":"disabled"}`, wantMode: "disabled"},
	}
	ios := newTestIO(false)
	f, _ := extractedFactory(t, ios)
	for _, st := range steps {
		ios.out.Reset()
		ios.errOut.Reset()
		opts := st.opts
		opts.IO, opts.Config, opts.OpenStore = ios.IOStreams, f.Config, f.OpenStore
		if err := runThreadsMode(context.Background(), &opts); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		out := ios.out.String()
		if opts.JSON {
			out = compactJSON(t, out)
		}
		if out != st.wantOut || ios.errOut.String() != st.wantErrOut {
			t.Errorf("%s: stdout %q stderr %q, want %q %q", st.name, out, ios.errOut, st.wantOut, st.wantErrOut)
		}
		st2, err := f.OpenStore(context.Background(), "v1")
		if err != nil {
			t.Fatal(err)
		}
		th, _ := st2.Thread(context.Background(), thread0)
		_, outErr := st2.Output(context.Background(), thread0)
		st2.Close()
		if th.MemoryMode != st.wantMode || (outErr == nil) != st.wantMemory {
			t.Errorf("%s: mode %s, memory %v; want %s, %v", st.name, th.MemoryMode, outErr == nil, st.wantMode, st.wantMemory)
		}
	}

	t.Run("unknown id", func(t *testing.T) {
		opts := &ThreadsModeOptions{IO: ios.IOStreams, Config: f.Config, OpenStore: f.OpenStore, ID: "nope", Mode: "enabled"}
		err := runThreadsMode(context.Background(), opts)
		wantError(t, err, `thread "nope": no such thread`)
	})
}

// forget said only "forgot ID" though the memory folder keeps
// what it learned from the thread until the next consolidation.
func TestRunThreadsForgetSaysWhatTheFolderKeeps(t *testing.T) {
	ios := newTestIO(false)
	f, _ := extractedFactory(t, ios)
	forget := func(id string) string {
		t.Helper()
		ios.errOut.Reset()
		opts := &ThreadsModeOptions{IO: ios.IOStreams, Config: f.Config, OpenStore: f.OpenStore, ID: id, Mode: "disabled", Forget: true}
		if err := runThreadsMode(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
		return ios.errOut.String()
	}
	if got, want := forget(thread1), "forgot "+thread1+": its raw memory is deleted (no consolidation had used it yet)\n"; got != want {
		t.Errorf("before any consolidation:\n%q\nwant\n%q", got, want)
	}
	quiet := newTestIO(false)
	quiet.Quiet = true
	co := &ConsolidateOptions{IO: quiet.IOStreams, Config: f.Config, Pipeline: f.Pipeline}
	if err := runConsolidate(context.Background(), co); err != nil {
		t.Fatal(err)
	}
	want := "forgot " + thread0 + ": its raw memory is deleted, but the memory folder keeps what it learned from it until the next consolidation\n" +
		"memctl: hint: `memctl consolidate --force` rewrites the folder now\n"
	if got := forget(thread0); got != want {
		t.Errorf("after a consolidation:\n%q\nwant\n%q", got, want)
	}
	if got, want := forget(thread0), "forgot "+thread0+": it had no raw memory; it is disabled and will not be extracted\n"; got != want {
		t.Errorf("forgotten twice:\n%q\nwant\n%q", got, want)
	}
}

// TestThreadIDMistakes: an id typed on the command line
// that names no thread, one too short or one shared by several threads is
// said as such, with the candidates, and is the same usage error (exit 2)
// for threads show as for extract --thread.
func TestThreadIDMistakes(t *testing.T) {
	ios := newTestIO(false)
	f, _ := extractedFactory(t, ios)
	for _, tt := range []struct {
		id, wantErr, wantHint string
	}{
		{"nope", `"nope": no such thread`, "`memctl threads list` shows the indexed threads; `memctl scan` indexes new sessions"},
		{"000", `"000": an id prefix needs at least 4 characters`, "`memctl threads list` shows the ids"},
		{"0000", `"0000": the prefix matches 2 threads: ` + thread0 + ", " + thread1, "give more characters of the id"},
	} {
		t.Run(tt.id, func(t *testing.T) {
			show := runThreadsShow(context.Background(), &ThreadsShowOptions{IO: ios.IOStreams, Config: f.Config, Pipeline: f.Pipeline, ID: tt.id})
			ext := runExtract(context.Background(), &ExtractOptions{IO: ios.IOStreams, Config: f.Config,
				Pipeline: f.Pipeline, ExtractFlags: ExtractFlags{Threads: []string{tt.id}}})
			wantError(t, show, "thread "+tt.wantErr)
			wantError(t, ext, "--thread "+tt.wantErr)
			for _, err := range []error{show, ext} {
				if exitCode(err) != ExitUsage {
					t.Errorf("%v: exit %d, want %d", err, exitCode(err), ExitUsage)
				}
				var h *hintError
				if !errors.As(err, &h) || h.hint != tt.wantHint {
					t.Errorf("%v: hint %v, want %q", err, h, tt.wantHint)
				}
			}
		})
	}
}

// The SOURCE column said "cli" for both agents. On a terminal it
// names the agent, and the session's origin when that is not its CLI;
// piped it stays the origin, as scripts read it.
func TestSourceCellNamesTheAgent(t *testing.T) {
	for _, tt := range []struct {
		kind, source string
		tty          bool
		want         string
	}{
		{"codex", "cli", true, "codex"},
		{"claude-code", "cli", true, "claude-code"},
		{"codex", "exec", true, "codex exec"},
		{"claude-code", "", true, "claude-code"},
		{"codex", "cli", false, "cli"},
		{"claude-code", "cli", false, "cli"},
	} {
		ios := newTestIO(tt.tty)
		if got := sourceCell(ios.IOStreams, store.Thread{SourceKind: tt.kind, Source: tt.source}); got != tt.want {
			t.Errorf("%s/%q, %s: %q, want %q", tt.kind, tt.source, ttyName(tt.tty), got, tt.want)
		}
	}
}
