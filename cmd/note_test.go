package cmd

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestNewNoteAddCmd(t *testing.T) {
	for _, tt := range []struct {
		name    string
		argv    []string
		want    NoteAddOptions
		wantErr string
	}{
		{name: "text", argv: []string{"--slug", "prefer-pnpm", "Use pnpm."}, want: NoteAddOptions{Slug: "prefer-pnpm", Text: "Use pnpm."}},
		{name: "stdin when absent", argv: []string{"--slug", "x"}, want: NoteAddOptions{Slug: "x", Text: "-"}},
		{name: "stdin with -", argv: []string{"--slug", "x", "-", "--json"}, want: NoteAddOptions{JSON: true, Slug: "x", Text: "-"}},
		{name: "no slug: made from the text", argv: []string{"text"}, want: NoteAddOptions{Text: "text"}},
		{name: "two texts", argv: []string{"--slug", "x", "a", "b"}, wantErr: `memctl note add takes at most one argument ([TEXT|-]), got 2: "a" "b"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(false)
			f := newTestFactory(t, ios.IOStreams, nil)
			var got *NoteAddOptions
			err := execCmd(t, f, newNoteAddCmd(f, func(_ context.Context, o *NoteAddOptions) error { got = o; return nil }), []string{"note"}, tt.argv...)
			wantParsed(t, err, tt.wantErr, got, tt.want)
		})
	}
}

func TestRunNoteAdd(t *testing.T) {
	const rel = "extensions/ad_hoc/notes/2026-06-10T12-00-00-prefer-pnpm.md"
	for _, tt := range []struct {
		name, text, stdin string
		json, tty         bool
		inRepo, personal  bool
		project           string
		wantOut, wantErr  string
		wantNote          string
	}{
		{name: "text", text: "Use pnpm.", wantOut: rel + "\n", wantNote: "Use pnpm."},
		{name: "terminal: the same", text: "Use pnpm.", tty: true, wantOut: rel + "\n", wantNote: "Use pnpm."},
		{name: "stdin", text: "-", stdin: "Use pnpm,\nnot npm.\n", wantOut: rel + "\n", wantNote: "Use pnpm,\nnot npm.\n"},
		{name: "json", text: "Use pnpm.", json: true, wantOut: `{"path":"` + rel + `","project":""}`, wantNote: "Use pnpm."},
		{name: "from inside a repository: for its project", text: "Use pnpm.", inRepo: true,
			wantOut: rel + "\n", wantNote: "project: git:github.com/acme/web\nUse pnpm."},
		{name: "from inside a repository, --personal", text: "Use pnpm.", inRepo: true, personal: true, json: true,
			wantOut: `{"path":"` + rel + `","project":""}`, wantNote: "Use pnpm."},
		{name: "--project by key", text: "Use pnpm.", project: "git:github.com/acme/other", json: true,
			wantOut: `{"path":"` + rel + `","project":"git:github.com/acme/other"}`, wantNote: "project: git:github.com/acme/other\nUse pnpm."},
		{name: "--project with an unknown name", text: "Use pnpm.", project: "nothing-like-it", wantErr: `--project: no project "nothing-like-it"`},
		{name: "empty", text: "-", stdin: " \n", wantErr: "the note is empty"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(tt.tty)
			ios.in.WriteString(tt.stdin)
			f := newTestFactory(t, ios.IOStreams, nil)
			// The working directory is a plain folder, or a repository of
			// acme/web: never the folder the tests run in.
			wd := t.TempDir()
			if tt.inRepo {
				makeRepo(t, wd, "git@github.com:acme/web.git")
			}
			opts := &NoteAddOptions{IO: ios.IOStreams, Config: f.Config, MemoryRoot: f.MemoryRoot, Now: f.Now, JSON: tt.json, Slug: "prefer-pnpm", Text: tt.text,
				Getwd: func() (string, error) { return wd, nil }, Personal: tt.personal, Project: tt.project}
			err := runNoteAdd(context.Background(), opts)
			wantError(t, err, tt.wantErr)
			if err != nil {
				return
			}
			out := ios.out.String()
			if tt.json {
				out = compactJSON(t, out)
			}
			if out != tt.wantOut {
				t.Errorf("stdout %q, want %q", out, tt.wantOut)
			}
			root, _ := f.MemoryRoot("v1")
			b, err := os.ReadFile(filepath.Join(root, rel))
			if err != nil || string(b) != tt.wantNote {
				t.Errorf("note %q (%v), want %q", b, err, tt.wantNote)
			}
		})
	}

	t.Run("a bad slug names the flag", func(t *testing.T) {
		ios := newTestIO(false)
		f := newTestFactory(t, ios.IOStreams, nil)
		opts := &NoteAddOptions{IO: ios.IOStreams, Config: f.Config, MemoryRoot: f.MemoryRoot, Now: f.Now, Slug: "../etc", Text: "x"}
		err := runNoteAdd(context.Background(), opts)
		wantError(t, err, "--slug")
		if exitCode(err) != ExitUsage {
			t.Errorf("exit %d", exitCode(err))
		}
	})
}
