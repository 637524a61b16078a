package cmd

import (
	"context"
	"errors"
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
		{name: "argument", argv: "~/.codex", wantErr: `memctl scan takes no arguments, got "~/.codex"`},
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
			"scanned 3 transcripts: 3 added, 0 updated, 0 unchanged, 1 problem\n"},
		{name: "terminal: the same", tty: true, wantErrOut: "memctl: warning: SRC/broken.jsonl:2: malformed JSON line skipped: unexpected end of JSON input\n" +
			"scanned 3 transcripts: 3 added, 0 updated, 0 unchanged, 1 problem\n"},
		{name: "json", json: true,
			wantOut: `{"scanned":3,"added":3,"updated":0,"unchanged":0,"errors":[{"path":"SRC/broken.jsonl","line":2,"error":"malformed JSON line skipped: unexpected end of JSON input"}],` +
				`"sources":[{"kind":"jsonl","path":"SRC","default":false,"transcripts":3}]}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(tt.tty)
			f := jsonlFactory(t, ios.IOStreams, 2)
			src := filepath.Join(filepath.Dir(f.HomeFlag), "transcripts")
			writeFile(t, filepath.Join(src, "broken.jsonl"),
				`{"type":"session","id":"broken-1","cwd":"/src/b","source":"cli","timestamp":"2026-06-09T12:00:00Z"}`+"\n{\"type\":\"mess\n")
			opts := &ScanOptions{IO: ios.IOStreams, Config: f.Config, Pipeline: f.Pipeline, JSON: tt.json}
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

// A [[sources]] path with a typo, or a default folder that
// cannot be read, gave "scanned 0 transcripts … 0 problems", exit 0; and
// one [[sources]] block silently stopped the default folders being read.
func TestRunScanSources(t *testing.T) {
	const transcript = `{"type":"session","id":"t-1","cwd":"/src/t","source":"cli","timestamp":"2026-06-09T12:00:00Z"}` + "\n"
	for _, tt := range []struct {
		name string
		// setup writes the user's folders under home and returns the config.
		setup      func(t *testing.T, home string) string
		json       bool
		wantErr    string // "" = exit 0
		wantHint   string
		wantErrOut string // with HOME for the user's home and CFG for the config file
		wantOut    string
	}{
		{name: "typo in a source: exit 1, the other source is read",
			setup: func(t *testing.T, home string) string {
				writeFile(t, filepath.Join(home, "logs", "a.jsonl"), transcript)
				return "[[sources]]\nkind = \"claude-code\"\npath = \"~/.claude/projectz\"\n[[sources]]\nkind = \"jsonl\"\npath = \"~/logs\"\n"
			},
			wantErr:    "cannot read the claude-code source HOME/.claude/projectz: no such folder",
			wantHint:   "fix the path of that [[sources]] entry in CFG, or remove the entry",
			wantErrOut: "scanned 1 transcript: 1 added, 0 updated, 0 unchanged, 1 problem\n"},
		{name: "no config, the default folder is a file",
			setup: func(t *testing.T, home string) string {
				writeFile(t, filepath.Join(home, ".claude", "projects"), "not a folder")
				return ""
			},
			wantErr: "cannot read the claude-code source HOME/.claude/projects: not a folder",
			wantHint: "memctl reads the agents' default folders when they exist; fix the folder, or list the sources to read in [[sources]] of " +
				"a config file (`memctl config init` writes one; see docs/config.md)",
			wantErrOut: "scanned 0 transcripts: 0 added, 0 updated, 0 unchanged, 1 problem\n"},
		{name: "json: the source in errors and sources",
			setup: func(t *testing.T, home string) string {
				return "[[sources]]\nkind = \"jsonl\"\npath = \"~/nope\"\n"
			},
			json:    true,
			wantErr: "cannot read the jsonl source HOME/nope: no such folder",
			wantOut: `{"scanned":0,"added":0,"updated":0,"unchanged":0,"errors":[{"path":"HOME/nope","error":"cannot read this jsonl source: no such folder"}],` +
				`"sources":[{"kind":"jsonl","path":"HOME/nope","default":false,"transcripts":0,"error":"no such folder"}]}`},
		{name: "[[sources]] replaces a default folder that exists: said, exit 0",
			setup: func(t *testing.T, home string) string {
				writeFile(t, filepath.Join(home, ".codex", "sessions", "2026", "06", "09", "x.txt"), "")
				writeFile(t, filepath.Join(home, "logs", "a.jsonl"), transcript)
				return "[[sources]]\nkind = \"jsonl\"\npath = \"~/logs\"\n"
			},
			wantErrOut: "scanned 1 transcript: 1 added, 0 updated, 0 unchanged, 0 problems\n" +
				"memctl: hint: HOME/.codex/sessions is not read: [[sources]] in CFG replaces the default folders " +
				"(an entry with kind = \"codex\" and no path reads it too)\n"},
		{name: "a kind without a path reads the default folder",
			setup: func(t *testing.T, home string) string {
				writeFile(t, filepath.Join(home, ".claude", "projects", "-src-t", "t-2.jsonl"), "")
				writeFile(t, filepath.Join(home, "logs", "a.jsonl"), transcript)
				return "[[sources]]\nkind = \"claude-code\"\n[[sources]]\nkind = \"jsonl\"\npath = \"~/logs\"\n"
			},
			json: true,
			wantOut: `{"scanned":2,"added":2,"updated":0,"unchanged":0,"errors":[{"path":"HOME/.claude/projects/-src-t/t-2.jsonl","error":"no Claude Code conversation lines"}],` +
				`"sources":[{"kind":"claude-code","path":"HOME/.claude/projects","default":true,"transcripts":1},{"kind":"jsonl","path":"HOME/logs","default":false,"transcripts":1}]}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(false)
			f := newTestFactory(t, ios.IOStreams, nil)
			home, _ := f.UserHome()
			cfgPath, _, _ := f.ConfigPath()
			if text := tt.setup(t, home); text != "" {
				writeConfig(t, f, text)
			}
			opts := &ScanOptions{IO: ios.IOStreams, Config: f.Config, Pipeline: f.Pipeline, JSON: tt.json}
			err := runScan(context.Background(), opts)
			clean := func(s string) string {
				return strings.ReplaceAll(strings.ReplaceAll(s, cfgPath, "CFG"), home, "HOME")
			}
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("error %v, want none", err)
				}
			} else {
				if err == nil || clean(err.Error()) != tt.wantErr || exitCode(err) != ExitError {
					t.Fatalf("error %v (exit %d), want %q, exit %d", err, exitCode(err), tt.wantErr, ExitError)
				}
				var h *hintError
				if tt.wantHint != "" && (!errors.As(err, &h) || clean(h.hint) != tt.wantHint) {
					t.Errorf("hint %q, want %q", clean(h.hint), tt.wantHint)
				}
			}
			out := ios.out.String()
			if tt.json {
				out = compactJSON(t, out)
			}
			if got := clean(out); got != tt.wantOut {
				t.Errorf("stdout:\n%s\nwant:\n%s", got, tt.wantOut)
			}
			if got := clean(ios.errOut.String()); got != tt.wantErrOut {
				t.Errorf("stderr:\n%s\nwant:\n%s", got, tt.wantErrOut)
			}
		})
	}
}
