package cmd

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestNewDemoCmd(t *testing.T) {
	ios := newTestIO(false)
	f := newTestFactory(t, ios.IOStreams, nil)
	var got *DemoOptions
	err := execCmd(t, f, newDemoCmd(f, func(_ context.Context, o *DemoOptions) error { got = o; return nil }), nil, "--dir", "/tmp/try", "--full")
	if g := flagValues(got); err != nil || !reflect.DeepEqual(g, DemoOptions{Dir: "/tmp/try", Full: true}) {
		t.Errorf("options %+v, %v", g, err)
	}
}

func TestRunDemo(t *testing.T) {
	t.Run("piped", func(t *testing.T) {
		ios := newTestIO(false)
		f := newTestFactory(t, ios.IOStreams, nil)
		dir := filepath.Join(t.TempDir(), "try")
		if err := runDemo(context.Background(), &DemoOptions{IO: ios.IOStreams, Now: f.Now, Getenv: f.Getenv, UserHome: f.UserHome, Dir: dir}); err != nil {
			t.Fatal(err)
		}
		if out := ios.out.String(); !strings.HasPrefix(out, "v1\n\n## User Profile\n") || !strings.Contains(out, "uv run pytest") {
			t.Errorf("stdout is not the summary:\n%s", out)
		}
		want := "memctl demo: sessions in DIR/sessions, home in DIR/home\n" +
			"extracted 4 threads: 4 with a memory, 0 with nothing worth keeping, 0 failed; not claimed: 1 non-interactive (exec) session\n" +
			"v1: consolidation succeeded (4 raw memories); generation 1\n" +
			"\nThe memory folder is DIR/home/memories. Look around:\n" +
			"  memctl --home DIR/home threads list\n" +
			"  memctl --home DIR/home search go test\n" +
			"  memctl --home DIR/home summary\n"
		if got := strings.ReplaceAll(ios.errOut.String(), dir, "DIR"); got != want {
			t.Errorf("stderr:\n%s\nwant:\n%s", got, want)
		}
		userHome, _ := f.UserHome()
		if entries, _ := os.ReadDir(userHome); len(entries) != 0 {
			t.Errorf("the demo wrote into the user's home: %v", entries)
		}
	})

	// The demo's first line was a bare "v1"
	t.Run("terminal: the first line says what the text is", func(t *testing.T) {
		ios := newTestIO(true)
		f := newTestFactory(t, ios.IOStreams, nil)
		dir := filepath.Join(t.TempDir(), "try")
		if err := runDemo(context.Background(), &DemoOptions{IO: ios.IOStreams, Now: f.Now, Getenv: f.Getenv, UserHome: f.UserHome, Dir: dir}); err != nil {
			t.Fatal(err)
		}
		want := "\x1b[1mmemory_summary.md\x1b[22m (memory version v1): what an agent is given before its first turn\n\n## User Profile\n"
		if out := ios.out.String(); !strings.HasPrefix(out, want) {
			t.Errorf("stdout starts:\n%q\nwant:\n%q", out[:min(len(out), 200)], want)
		}
	})

	t.Run("json", func(t *testing.T) {
		ios := newTestIO(false)
		f := newTestFactory(t, ios.IOStreams, nil)
		dir := filepath.Join(t.TempDir(), "try")
		if err := runDemo(context.Background(), &DemoOptions{IO: ios.IOStreams, Now: f.Now, Getenv: f.Getenv, UserHome: f.UserHome, Dir: dir, JSON: true}); err != nil {
			t.Fatal(err)
		}
		var doc demoJSON
		if err := json.Unmarshal(ios.out.Bytes(), &doc); err != nil || doc.Home != filepath.Join(dir, "home") || !doc.Summary.Injected {
			t.Errorf("%+v %v", doc, err)
		}
	})

	t.Run("a folder that is not empty is refused", func(t *testing.T) {
		ios := newTestIO(false)
		f := newTestFactory(t, ios.IOStreams, nil)
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "mine.txt"), "x")
		err := runDemo(context.Background(), &DemoOptions{IO: ios.IOStreams, Now: f.Now, Getenv: f.Getenv, UserHome: f.UserHome, Dir: dir})
		wantError(t, err, "is not empty")
		if exitCode(err) != ExitUsage {
			t.Errorf("exit %d", exitCode(err))
		}
	})
}
