package cmd

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/doctor"
	"github.com/memctl/memctl/internal/store"
)

func TestNewDoctorCmd(t *testing.T) {
	for _, tt := range []struct {
		name, argv string
		want       DoctorOptions
		wantErr    string
	}{
		{name: "defaults"},
		{name: "json", argv: "--json", want: DoctorOptions{JSON: true}},
		{name: "argument", argv: "now", wantErr: `memctl doctor takes no arguments, got "now"`},
		{name: "unknown flag", argv: "--fix", wantErr: "unknown flag: --fix"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(false)
			f := newTestFactory(t, ios.IOStreams, nil)
			var got *DoctorOptions
			err := execCmd(t, f, newDoctorCmd(f, func(_ context.Context, o *DoctorOptions) error { got = o; return nil }), nil,
				strings.Fields(tt.argv)...)
			wantParsed(t, err, tt.wantErr, got, tt.want)
		})
	}
}

// seedCopies stores two raw memories with the same text.
func seedCopies(t *testing.T, f *Factory) {
	t.Helper()
	ctx := context.Background()
	home, _ := f.Home()
	ensureHome(home)
	st, err := store.Open(ctx, filepath.Join(home, store.FileName("v1")), store.WithClock(f.Now))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for i, id := range []string{"dup-a", "dup-b"} {
		at := testNow.Add(time.Duration(i-48) * time.Hour)
		if _, err := st.UpsertThread(ctx, store.Thread{ID: id, SourceKind: "jsonl", Path: "/t/" + id, Source: "cli", Interactive: true,
			Cwd: "/src/" + id, CreatedAt: at, UpdatedAt: at}, store.UpsertPolicy{GenerateMemories: true}); err != nil {
			t.Fatal(err)
		}
		_, tok, _ := st.TryClaimStage1(ctx, id, "t", at.Unix(), 10)
		if ok, err := st.MarkStage1Succeeded(ctx, id, tok, at.Unix(), "- the flaky test needs the cache warmed first\n", "# "+id, nil); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
}

func TestRunDoctor(t *testing.T) {
	const cfg = "[provider]\nkind = \"heuristic\"\n"
	for _, tt := range []struct {
		name       string
		tty        bool
		seed       bool
		wantOut    string
		wantErrOut string
		wantCode   int
	}{
		{name: "healthy", wantErrOut: "healthy: 15 checks, 0 raw memories\n", wantCode: ExitOK},
		{name: "healthy on a terminal", tty: true, wantErrOut: "healthy: 15 checks, 0 raw memories\n", wantCode: ExitOK},
		{name: "copies", seed: true, wantCode: ExitUnhealthy,
			wantOut: "warning\tduplicates\tdup-b\n  2 raw memories say exactly the same thing; the newest, dup-b, is kept\n  fix: memctl memories forget dup-a\n"},
		{name: "copies on a terminal", tty: true, seed: true, wantCode: ExitUnhealthy,
			wantOut: "\x1b[1mwarning\x1b[22m duplicates: dup-b\n  2 raw memories say exactly the same thing; the newest, dup-b, is kept\n  fix: memctl memories forget dup-a\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(tt.tty)
			f := newTestFactory(t, ios.IOStreams, nil)
			writeConfig(t, f, cfg)
			if tt.seed {
				seedCopies(t, f)
			}
			opts := newDoctorCmdOptions(f)
			err := runDoctor(context.Background(), opts)
			if code := exitCode(err); code != tt.wantCode {
				t.Fatalf("exit code %d (%v), want %d", code, err, tt.wantCode)
			}
			if got := ios.out.String(); got != tt.wantOut {
				t.Errorf("stdout:\n%q\nwant:\n%q", got, tt.wantOut)
			}
			if got := ios.errOut.String(); got != tt.wantErrOut {
				t.Errorf("stderr:\n%q\nwant:\n%q", got, tt.wantErrOut)
			}
		})
	}

	t.Run("json: the typed document, and exit 5", func(t *testing.T) {
		ios := newTestIO(false)
		f := newTestFactory(t, ios.IOStreams, nil)
		writeConfig(t, f, cfg)
		seedCopies(t, f)
		opts := newDoctorCmdOptions(f)
		opts.JSON = true
		err := runDoctor(context.Background(), opts)
		if exitCode(err) != ExitUnhealthy {
			t.Fatalf("exit code %d: %v", exitCode(err), err)
		}
		var rep doctor.Report
		dec := json.NewDecoder(ios.out)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rep); err != nil {
			t.Fatal(err)
		}
		if rep.Healthy || rep.RawMemories != 2 || len(rep.Findings) != 1 || rep.Findings[0].Check != doctor.CheckDuplicates {
			t.Fatalf("report %+v", rep)
		}
	})

	t.Run("no database: nothing is created", func(t *testing.T) {
		ios := newTestIO(false)
		f := newTestFactory(t, ios.IOStreams, nil)
		writeConfig(t, f, cfg)
		if err := runDoctor(context.Background(), newDoctorCmdOptions(f)); err != nil {
			t.Fatal(err)
		}
		home, _ := f.Home()
		if _, err := os.Stat(filepath.Join(home, store.FileName("v1"))); err == nil {
			t.Fatal("doctor created a database")
		}
	})
}

// newDoctorCmdOptions are the options newDoctorCmd builds from f.
func newDoctorCmdOptions(f *Factory) *DoctorOptions {
	var got *DoctorOptions
	c := newDoctorCmd(f, func(_ context.Context, o *DoctorOptions) error { got = o; return nil })
	c.SetArgs(nil)
	_ = c.Execute()
	return got
}
