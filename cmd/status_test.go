package cmd

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/memversion"
)

func TestNewStatusCmd(t *testing.T) {
	for _, tt := range []struct {
		name, argv string
		want       StatusOptions
		wantErr    string
	}{
		{name: "defaults"},
		{name: "json", argv: "--json", want: StatusOptions{JSON: true}},
		{name: "argument", argv: "v2", wantErr: `memctl status takes no arguments, got "v2"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(false)
			f := newTestFactory(t, ios.IOStreams, nil)
			var got *StatusOptions
			err := execCmd(t, f, newStatusCmd(f, func(_ context.Context, o *StatusOptions) error { got = o; return nil }), nil,
				strings.Fields(tt.argv)...)
			wantError(t, err, tt.wantErr)
			if g := flagValues(got); tt.wantErr == "" && !reflect.DeepEqual(g, tt.want) {
				t.Errorf("options %+v, want %+v", g, tt.want)
			}
		})
	}
}

func TestRunStatus(t *testing.T) {
	body := func(bold, when, sources string) string {
		return bold + "\n" +
			"  database      HOME/memories_1.sqlite\n" +
			"  memory folder HOME/memories (0 B)\n" +
			"  threads       2 (enabled 2, disabled 0, polluted 0)\n" +
			"  raw memories  2 (0 in the last consolidation, 2 searchable)\n  project       project-0: 1 raw memory, 1 thread\n  project       project-1: 1 raw memory, 1 thread\n" +
			"  eligible      0 threads for the next extract (others: 2 already extracted)\n" +
			"  jobs          consolidation: 1 pending; extraction: 2 done\n" +
			"  consolidation due at the next run\n" +
			"  last extract   ok, " + when + " (v1 via heuristic: claimed 2, succeeded 2, no output 0, failed 0)\n" +
			"  last scan      ok, " + when + " (scanned 2, added 2, updated 0, unchanged 0, problems 0)\n" +
			"\n" + sources + "\n  jsonl       TRANSCRIPTS\n"
	}
	for _, tt := range []struct {
		name string
		tty  bool
		want string
	}{
		{name: "piped: RFC 3339 times", want: body("memory version v1", "2026-06-10T12:00:00Z", "transcript sources")},
		{name: "terminal: bold, relative times", tty: true, want: body("\x1b[1mmemory version\x1b[22m v1", "moments ago", "\x1b[1mtranscript sources\x1b[22m")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(tt.tty)
			f, transcripts := extractedFactory(t, ios)
			home, _ := f.Home()
			opts := &StatusOptions{IO: ios.IOStreams, Config: f.Config, Pipeline: f.Pipeline, Now: f.Now}
			if err := runStatus(context.Background(), opts); err != nil {
				t.Fatal(err)
			}
			got := strings.ReplaceAll(strings.ReplaceAll(ios.out.String(), transcripts, "TRANSCRIPTS"), home, "HOME")
			if got != tt.want {
				t.Errorf("stdout:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}

	t.Run("json: the typed document", func(t *testing.T) {
		ios := newTestIO(false)
		f, _ := extractedFactory(t, ios)
		opts := &StatusOptions{IO: ios.IOStreams, Config: f.Config, Pipeline: f.Pipeline, Now: f.Now, JSON: true}
		if err := runStatus(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
		var doc statusJSON
		dec := json.NewDecoder(ios.out)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&doc); err != nil {
			t.Fatal(err)
		}
		if doc.Version != memversion.V1 || doc.Threads != 2 || doc.RawMemories != 2 || doc.LastConsolidation == nil || len(doc.Versions) != 1 ||
			doc.Jobs["memory_stage1"]["done"] != 2 {
			t.Errorf("document %+v", doc)
		}
	})
}

// status did not say which sources are read, nor that one
// cannot be.
func TestRunStatusSources(t *testing.T) {
	for _, tty := range []bool{false, true} {
		t.Run(ttyName(tty), func(t *testing.T) {
			ios := newTestIO(tty)
			f := newTestFactory(t, ios.IOStreams, nil)
			home, _ := f.UserHome()
			writeFile(t, filepath.Join(home, ".codex", "sessions", "README"), "")
			writeFile(t, filepath.Join(home, "logs", "a.jsonl"), "")
			writeConfig(t, f, "[[sources]]\nkind = \"claude-code\"\npath = \"~/.claude/projectz\"\n[[sources]]\nkind = \"jsonl\"\npath = \"~/logs\"\n")
			opts := &StatusOptions{IO: ios.IOStreams, Config: f.Config, Pipeline: f.Pipeline, Now: f.Now}
			if err := runStatus(context.Background(), opts); err != nil {
				t.Fatal(err)
			}
			bold := "transcript sources"
			if tty {
				bold = "\x1b[1m" + bold + "\x1b[22m"
			}
			want := "\n" + bold + "\n" +
				"  claude-code HOME/.claude/projectz: cannot read: no such folder\n" +
				"  jsonl       HOME/logs\n" +
				"  codex       HOME/.codex/sessions: not read ([[sources]] in the config replaces the default folders)\n"
			if got := strings.ReplaceAll(ios.out.String(), home, "HOME"); !strings.HasSuffix(got, want) {
				t.Errorf("stdout:\n%s\nwant it to end with:\n%s", got, want)
			}

			ios.out.Reset()
			opts.JSON = true
			if err := runStatus(context.Background(), opts); err != nil {
				t.Fatal(err)
			}
			var doc statusJSON
			if err := json.Unmarshal(ios.out.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			wantJSON := []sourceStatus{
				{Kind: "claude-code", Path: filepath.Join(home, ".claude", "projectz"), Active: true, Error: "no such folder"},
				{Kind: "jsonl", Path: filepath.Join(home, "logs"), Active: true},
				{Kind: "codex", Path: filepath.Join(home, ".codex", "sessions"), Default: true},
			}
			if !reflect.DeepEqual(doc.Sources, wantJSON) {
				t.Errorf("sources %+v, want %+v", doc.Sources, wantJSON)
			}
		})
	}
}
