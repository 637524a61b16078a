package cmd

// Helpers for the per-command tests (cmd/<x>_test.go): each has a
// TestNewXCmd table (argv → the options runF receives, and flag errors)
// and a TestRunX table (options → exact stdout and stderr, with the
// streams on a terminal and piped).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/store"
	"github.com/spf13/cobra"
)

// testNow is the clock of the command tests.
var testNow = time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)

// testStreams are IOStreams over buffers.
type testStreams struct {
	*IOStreams
	in, out, errOut *bytes.Buffer
}

// newTestIO returns streams over buffers. With tty, stdin, stdout and
// stderr are terminals 120 columns wide and colour is on for both output
// streams, as decideColor decides on a terminal without NO_COLOR.
func newTestIO(tty bool) *testStreams {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	ios := &IOStreams{In: in, Out: out, ErrOut: errOut,
		StdinTTY: tty, StdoutTTY: tty, StderrTTY: tty, colorOut: tty, colorErr: tty,
		width: func() int { return 120 }}
	return &testStreams{IOStreams: ios, in: in, out: out, errOut: errOut}
}

// wantOutput checks what a command printed: stdout (compacted first when
// it is a --json document) and stderr, each whole.
func (s *testStreams) wantOutput(t *testing.T, json bool, wantOut, wantErrOut string) {
	t.Helper()
	out := s.out.String()
	if json {
		out = compactJSON(t, out)
	}
	if out != wantOut {
		t.Errorf("stdout:\n%q\nwant:\n%q", out, wantOut)
	}
	if got := s.errOut.String(); got != wantErrOut {
		t.Errorf("stderr:\n%q\nwant:\n%q", got, wantErrOut)
	}
}

// newTestFactory is a Factory over a temporary home, a fixed clock and
// an environment of env only (no HOME, no keys, no MEMCTL_* of the
// machine running the tests).
func newTestFactory(t *testing.T, ios *IOStreams, env map[string]string) *Factory {
	t.Helper()
	// A temporary folder whose path has the same length in every test:
	// paths reach the model input, and token counts must not depend on
	// the test's name.
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("memctl-test-%08x", rand.Uint32()))
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	userHome := filepath.Join(dir, "userhome")
	if err := os.MkdirAll(userHome, 0o700); err != nil {
		t.Fatal(err)
	}
	// The home is both --home and $MEMCTL_HOME: a root command built in a
	// test binds --home back to "" and the variable still finds it.
	home := filepath.Join(dir, "home")
	madeHome(t, home)
	vars := map[string]string{"MEMCTL_HOME": home}
	for k, v := range env {
		vars[k] = v
	}
	return &Factory{
		IO:       ios,
		Now:      func() time.Time { return testNow },
		Getenv:   func(k string) string { return vars[k] },
		UserHome: func() (string, error) { return userHome, nil },
		HomeFlag: home,
	}
}

// madeHome makes a named home, as a user's exists: a missing one is
// refused (homecheck.go).
func madeHome(t *testing.T, home string) {
	t.Helper()
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
}

// writeConfig writes the config file the factory reads.
func writeConfig(t *testing.T, f *Factory, text string) {
	t.Helper()
	path, _, err := f.ConfigPath()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// execCmd runs argv through a root that has the global flags and, under
// the parents named, the command under test, as `memctl <parents> <c> argv`.
func execCmd(t *testing.T, f *Factory, c *cobra.Command, parents []string, argv ...string) error {
	t.Helper()
	root := newBareRoot(f)
	at := root
	for _, p := range parents {
		g := &cobra.Command{Use: p}
		at.AddCommand(g)
		at = g
	}
	at.AddCommand(c)
	wrapArgErrors(root)
	root.SetArgs(append(append(append([]string{}, parents...), c.Name()), argv...))
	root.SetIn(f.IO.In)
	root.SetOut(io.Discard)
	root.SetErr(io.Discard)
	return root.ExecuteContext(context.Background())
}

// flagValues is a copy of an options struct with the injected loaders
// and streams zeroed, so tests compare the flag values alone.
func flagValues[T any](o *T) T {
	if o == nil {
		var zero T
		return zero
	}
	v := reflect.ValueOf(o).Elem()
	out := reflect.New(v.Type()).Elem()
	out.Set(v)
	for i := 0; i < out.NumField(); i++ {
		fl := out.Field(i)
		if !fl.CanSet() {
			continue
		}
		switch {
		case fl.Kind() == reflect.Func, fl.Type() == reflect.TypeOf((*IOStreams)(nil)):
			fl.Set(reflect.Zero(fl.Type()))
		}
	}
	return out.Interface().(T)
}

// wantError checks err against a wanted message fragment ("" = no error).
func wantError(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Fatalf("unexpected error: %v", err)
	case want != "" && err == nil:
		t.Fatalf("no error, want %q", want)
	case want != "" && !strings.Contains(err.Error(), want):
		t.Fatalf("error %q, want it to contain %q", err, want)
	}
}

// wantParsed checks what a command made of its flags and arguments: the
// usage error (exit 2) containing wantErr, or, when wantErr is "", the
// options want (flag values only).
func wantParsed[T any](t *testing.T, err error, wantErr string, got *T, want T) {
	t.Helper()
	wantError(t, err, wantErr)
	if wantErr != "" {
		if code := exitCode(err); code != ExitUsage {
			t.Errorf("exit code %d, want %d", code, ExitUsage)
		}
		return
	}
	if g := flagValues(got); !reflect.DeepEqual(g, want) {
		t.Errorf("options %+v, want %+v", g, want)
	}
}

// seedMemory stores a thread with a raw memory, generated at `at`, in the
// store of a version.
func seedMemory(t *testing.T, f *Factory, version memversion.Version, id string, at time.Time) {
	t.Helper()
	ctx := context.Background()
	home, err := f.Home()
	if err != nil {
		t.Fatal(err)
	}
	if err := ensureHome(home); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, filepath.Join(home, store.FileName(version)), store.WithClock(func() time.Time { return at }))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, err = st.UpsertThread(ctx, store.Thread{ID: id, SourceKind: "codex", Path: "/sessions/" + id + ".jsonl", Source: "cli",
		Interactive: true, Cwd: "/src/" + id, Preview: "fix the flaky test in " + id, CreatedAt: at, UpdatedAt: at},
		store.UpsertPolicy{GenerateMemories: true})
	if err != nil {
		t.Fatal(err)
	}
	_, tok, err := st.TryClaimStage1(ctx, id, "test", at.Unix(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := st.MarkStage1Succeeded(ctx, id, tok, at.Unix(), "raw memory of "+id, "summary of "+id, nil); err != nil || !ok {
		t.Fatalf("seed %s: %v %v", id, ok, err)
	}
}

// jsonlFactory is a test factory whose config reads n small JSONL
// transcripts, idle for a day, with the offline heuristic provider.
func jsonlFactory(t *testing.T, ios *IOStreams, n int) *Factory {
	t.Helper()
	f := newTestFactory(t, ios, nil)
	src := filepath.Join(filepath.Dir(f.HomeFlag), "transcripts")
	writeJSONLThreads(t, src, n, testNow.Add(-24*time.Hour))
	writeConfig(t, f, "[memories]\nmax_unused_days = 365\n[provider]\nkind = \"heuristic\"\n[[sources]]\nkind = \"jsonl\"\npath = \""+src+"\"\n")
	return f
}

// ttyName names a subtest by its terminal mode.
func ttyName(tty bool) string {
	if tty {
		return "tty"
	}
	return "notty"
}

// compactJSON removes the indentation of a JSON document.
func compactJSON(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	return b.String()
}

// jsonString is s as a JSON string literal.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// writeFile writes a file, creating its folder.
func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
