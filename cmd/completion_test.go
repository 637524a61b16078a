package cmd

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"testing"
)

func TestNewCompletionCmd(t *testing.T) {
	ios := newTestIO(false)
	f := newTestFactory(t, ios.IOStreams, nil)
	var got *CompletionOptions
	if err := execCmd(t, f, newCompletionCmd(f, func(_ context.Context, o *CompletionOptions) error { got = o; return nil }), nil, "zsh"); err != nil || got.Shell != "zsh" {
		t.Errorf("options %+v, %v", got, err)
	}
	err := execCmd(t, f, newCompletionCmd(f, nil), nil, "tcsh")
	wantError(t, err, `memctl completion: invalid argument "tcsh": want one of: bash, zsh, fish, powershell`)
	if exitCode(err) != ExitUsage {
		t.Errorf("exit %d", exitCode(err))
	}
}

func TestRunCompletion(t *testing.T) {
	for shell, head := range map[string]string{
		"bash": "# bash completion V2 for memctl", "zsh": "#compdef memctl", "fish": "# fish completion for memctl",
		"powershell": "# powershell completion for memctl",
	} {
		t.Run(shell, func(t *testing.T) {
			ios := newTestIO(false)
			root := newRootCmd(newTestFactory(t, ios.IOStreams, nil))
			if err := runCompletion(context.Background(), &CompletionOptions{IO: ios.IOStreams, Shell: shell, root: root}); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(ios.out.String(), head) {
				t.Errorf("script starts %q, want %q", ios.out.String()[:min(60, ios.out.Len())], head)
			}
		})
	}
}

// TestFlagCompletions: enum flags complete their values, never files.
func TestFlagCompletions(t *testing.T) {
	for _, tt := range []struct {
		argv []string
		want string
	}{
		{[]string{"extract", "--provider", ""}, "auto\nopenai\nopenai-compatible\nanthropic\ncommand\nclaude-code\ncodex\nheuristic\n:4\n"},
		{[]string{"run", "--mode", ""}, "auto\nmodel\nagent\nheuristic\n:4\n"},
		{[]string{"summary", "--agent", ""}, "claude-code\ncodex\n:4\n"},
		{[]string{"cite", "--hook", ""}, "claude\ncodex\n:4\n"},
		{[]string{"--memory-version", ""}, "v1\nv2\n:4\n"},
		{[]string{"setup", ""}, "claude-code\ncodex\n:4\n"},
	} {
		t.Run(strings.Join(tt.argv, " "), func(t *testing.T) {
			ios := newTestIO(false)
			f := newTestFactory(t, ios.IOStreams, nil)
			root := newRootCmd(f)
			root.SetArgs(append([]string{"__complete"}, tt.argv...))
			root.SetOut(ios.out)
			root.SetErr(ios.errOut)
			if err := root.Execute(); err != nil {
				t.Fatal(err)
			}
			if got := ios.out.String(); got != tt.want {
				t.Errorf("completions:\n%q\nwant:\n%q", got, tt.want)
			}
		})
	}
}

// TestThreadIDCompletions: `__complete threads show ""`
// offered files; it offers the indexed thread ids with their previews.
func TestThreadIDCompletions(t *testing.T) {
	ios := newTestIO(false)
	f, _ := extractedFactory(t, ios)
	want := thread1 + "\tfix the flaky test number 1 in the parser\n" + thread0 + "\tfix the flaky test number 0 in the parser\n:4\n"
	for _, argv := range [][]string{
		{"threads", "show", ""}, {"threads", "input", "0000"}, {"threads", "enable", ""}, {"threads", "disable", ""}, {"threads", "forget", ""},
		{"extract", "--thread", ""}, {"run", "--current-thread", "00"},
	} {
		t.Run(strings.Join(argv, " "), func(t *testing.T) {
			out := completeWith(t, f, argv...)
			if out != want {
				t.Errorf("completions:\n%q\nwant:\n%q", out, want)
			}
		})
	}
	if out := completeWith(t, f, "threads", "show", thread0, ""); out != ":4\n" {
		t.Errorf("a second id was offered: %q", out)
	}
	fresh := newTestFactory(t, ios.IOStreams, nil)
	if home, _ := fresh.Home(); os.Remove(home) != nil {
		t.Fatal("the fresh home is not an empty folder")
	}
	if out := completeWith(t, fresh, "threads", "show", ""); out != ":4\n" {
		t.Errorf("no database: %q", out)
	}
	if home, _ := fresh.Home(); dirExists(home) {
		t.Error("completing created the home")
	}
}

// completeWith runs cobra's hidden __complete command.
func completeWith(t *testing.T, f *Factory, argv ...string) string {
	t.Helper()
	var out bytes.Buffer
	root := newRootCmd(f)
	root.SetArgs(append([]string{"__complete"}, argv...))
	root.SetOut(&out)
	root.SetErr(io.Discard)
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
