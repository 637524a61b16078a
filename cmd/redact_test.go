package cmd

import (
	"context"
	"path/filepath"
	"testing"
)

func TestNewRedactCmd(t *testing.T) {
	for _, tt := range []struct {
		name    string
		argv    []string
		want    string
		wantErr string
	}{
		{name: "stdin", want: "-"},
		{name: "file", argv: []string{"session.jsonl"}, want: "session.jsonl"},
		{name: "two files", argv: []string{"a", "b"}, wantErr: `memctl redact takes at most one argument ([FILE]), got 2: "a" "b"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(false)
			f := newTestFactory(t, ios.IOStreams, nil)
			var got *RedactOptions
			err := execCmd(t, f, newRedactCmd(f, func(_ context.Context, o *RedactOptions) error { got = o; return nil }), nil, tt.argv...)
			wantError(t, err, tt.wantErr)
			if tt.wantErr == "" && got.File != tt.want {
				t.Errorf("file %q, want %q", got.File, tt.want)
			}
		})
	}
}

func TestRunRedact(t *testing.T) {
	const secret = "token=ghp_abcdefghijklmnopqrstuvwxyz0123456789 and the rest\n"
	const want = "token=[REDACTED_SECRET] and the rest\n"
	for _, tt := range []struct {
		name   string
		file   bool
		tty    bool
		config string
		input  string
		want   string
	}{
		{name: "stdin", input: secret, want: want},
		{name: "terminal: the same", tty: true, input: secret, want: want},
		{name: "file", file: true, input: secret, want: want},
		{name: "extra pattern from the config", config: "[redaction]\nextra_patterns = [\"codename-[a-z]+\"]\n",
			input: "ship codename-falcon today\n", want: "ship [REDACTED_SECRET] today\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(tt.tty)
			f := newTestFactory(t, ios.IOStreams, nil)
			writeConfig(t, f, tt.config)
			opts := &RedactOptions{IO: ios.IOStreams, Config: f.Config, File: "-"}
			if tt.file {
				opts.File = filepath.Join(t.TempDir(), "in.txt")
				writeFile(t, opts.File, tt.input)
			} else {
				ios.in.WriteString(tt.input)
			}
			if err := runRedact(context.Background(), opts); err != nil {
				t.Fatal(err)
			}
			if got := ios.out.String(); got != tt.want {
				t.Errorf("stdout %q, want %q", got, tt.want)
			}
		})
	}

	t.Run("a bad pattern names the key", func(t *testing.T) {
		ios := newTestIO(false)
		f := newTestFactory(t, ios.IOStreams, nil)
		writeConfig(t, f, "[redaction]\nextra_patterns = [\"(\"]\n")
		err := runRedact(context.Background(), &RedactOptions{IO: ios.IOStreams, Config: f.Config, File: "-"})
		wantError(t, err, `key "redaction.extra_patterns"`)
		if exitCode(err) != ExitUsage {
			t.Errorf("exit %d", exitCode(err))
		}
	})
}
