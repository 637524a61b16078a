package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/consolidate"
	"github.com/memctl/memctl/internal/golden"
)

func TestNewConsolidateCmd(t *testing.T) {
	tests := []struct {
		name    string
		argv    string
		want    ConsolidateOptions
		wantErr string
	}{
		{name: "defaults", want: ConsolidateOptions{}},
		{name: "every flag", argv: "--mode heuristic --force --dry-run --json",
			want: ConsolidateOptions{JSON: true, ConsolidateFlags: ConsolidateFlags{Mode: "heuristic", Force: true, DryRun: true}}},
		{name: "unknown mode", argv: "--mode magic", wantErr: `--mode: invalid value "magic": want one of: auto, model, agent, heuristic`},
		{name: "argument", argv: "now", wantErr: `memctl consolidate takes no arguments, got "now"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(false)
			f := newTestFactory(t, ios.IOStreams, nil)
			var got *ConsolidateOptions
			err := execCmd(t, f, newConsolidateCmd(f, func(_ context.Context, o *ConsolidateOptions) error { got = o; return nil }), nil,
				strings.Fields(tt.argv)...)
			wantParsed(t, err, tt.wantErr, got, tt.want)
		})
	}
}

func TestRunConsolidate(t *testing.T) {
	var home string // the last newOpts's
	newOpts := func(t *testing.T, tty bool, cfg string) (*testStreams, *ConsolidateOptions) {
		ios := newTestIO(tty)
		f := newTestFactory(t, ios.IOStreams, nil)
		writeConfig(t, f, "[memories]\nmax_unused_days = 365\n[consolidation]\nmode = \"heuristic\"\n"+cfg)
		seedMemory(t, f, "v1", "thread-a", testNow.Add(-48*time.Hour))
		seedMemory(t, f, "v1", "thread-b", testNow.Add(-24*time.Hour))
		home, _ = f.Home()
		return ios, &ConsolidateOptions{IO: ios.IOStreams, Config: f.Config, Pipeline: f.Pipeline}
	}
	// Each step runs on the state the previous steps left.
	steps := []struct {
		name    string
		flags   ConsolidateFlags
		json    bool
		wantOut string
		// wantOutGolden names a file under testdata/ that holds stdout.
		wantOutGolden string
		wantErrOut    string
	}{
		// The dry run shows the workspace changes, then the
		// planned diff of every artifact.
		{name: "dry run first: the changes and the planned artifacts on stdout", flags: ConsolidateFlags{DryRun: true},
			wantOutGolden: "consolidate_dry_run.golden",
			wantErrOut:    "v1: would consolidate 2 raw memories and change MEMORY.md, memory_summary.md\n"},
		{name: "run", wantErrOut: "v1: consolidation succeeded (2 raw memories); generation 1\n"},
		{name: "dry run with nothing to do", flags: ConsolidateFlags{DryRun: true},
			wantErrOut: "v1: would consolidate 2 raw memories; nothing changed, the memory files stay as they are\n"},
		// A skip said "(0 raw memories)" with memories present
		// and did not say how to override it.
		{name: "cooldown", wantErrOut: "v1: consolidation skipped cooldown: the last run succeeded at 2026-06-10T12:00:00Z " +
			"and the next is due at 2026-06-10T18:00:00Z; 2 raw memories stored, 2 of them in the last consolidation; " +
			"`memctl consolidate --force` runs it now\n"},
		{name: "forced, nothing changed", flags: ConsolidateFlags{Force: true},
			wantErrOut: "v1: consolidation succeeded, nothing changed in the memory folder (2 raw memories)\n"},
		{name: "json", flags: ConsolidateFlags{Force: true}, json: true,
			wantOut: `{"status":"succeeded_no_workspace_changes","selected":2,"usage":{"input_tokens":0,"cached_input_tokens":0,"output_tokens":0,"reasoning_output_tokens":0,"total_tokens":0},"consolidator":"heuristic","storage_bytes":4747,"watermark":1781006400}`},
	}
	for _, tty := range []bool{false, true} {
		t.Run(ttyName(tty), func(t *testing.T) {
			ios, opts := newOpts(t, tty, "")
			for _, st := range steps {
				ios.out.Reset()
				ios.errOut.Reset()
				opts.ConsolidateFlags, opts.JSON = st.flags, st.json
				if err := runConsolidate(context.Background(), opts); err != nil {
					t.Fatalf("%s: %v", st.name, err)
				}
				gotOut := ios.out.String()
				if st.json {
					gotOut = compactJSON(t, gotOut)
				}
				if st.wantOutGolden != "" {
					golden.File(t, filepath.Join("testdata", st.wantOutGolden), gotOut)
				} else if gotOut != st.wantOut {
					t.Errorf("%s: stdout:\n%q\nwant:\n%q", st.name, gotOut, st.wantOut)
				}
				if got := ios.errOut.String(); got != st.wantErrOut {
					t.Errorf("%s: stderr:\n%q\nwant:\n%q", st.name, got, st.wantErrOut)
				}
			}
		})
	}

	t.Run("a failed consolidator: typed error, exit 1, the failed status in --json", func(t *testing.T) {
		ios, opts := newOpts(t, false, "agent_command = [\"/bin/sh\", \"-c\", \"echo gave up >&2; exit 4\"]\n")
		opts.Mode, opts.JSON = "agent", true
		err := runConsolidate(context.Background(), opts)
		var failed *consolidate.FailedError
		if !errors.As(err, &failed) || failed.Status != consolidate.StatusFailedAgent || exitCode(err) != ExitError {
			t.Fatalf("err %v (exit %d), want a *consolidate.FailedError failed_agent (exit 1)", err, exitCode(err))
		}
		if got := compactJSON(t, ios.out.String()); !strings.HasPrefix(got, `{"status":"failed_agent","selected":2,`) {
			t.Errorf("stdout %s", got)
		}

		// The retry skip names the failure, when the retry is
		// due, the real counts and the command that overrides it.
		for _, tty := range []bool{false, true} {
			ios.out.Reset()
			ios.errOut.Reset()
			ios.StdinTTY, ios.StdoutTTY, ios.StderrTTY, ios.colorOut, ios.colorErr = tty, tty, tty, tty, tty
			opts.JSON = false
			if err := runConsolidate(context.Background(), opts); err != nil {
				t.Fatalf("%s: the skip is not an error: %v", ttyName(tty), err)
			}
			want := "v1: consolidation skipped retry unavailable: the last run failed at 2026-06-10T12:00:00Z (failed_agent: agent /bin/sh: exit status 4) " +
				"and is retried after 2026-06-10T13:00:00Z; 2 raw memories stored, 0 of them in the last consolidation; " +
				"`memctl consolidate --force` runs it now\n"
			if got := ios.errOut.String(); got != want || ios.out.Len() != 0 {
				t.Errorf("%s: stdout %q, stderr:\n%q\nwant:\n%q", ttyName(tty), ios.out, got, want)
			}
		}
	})

	t.Run("dual_write: one document with every version", func(t *testing.T) {
		ios, opts := newOpts(t, false, "")
		// The v2 store gets its own memories; the config now writes both.
		f := &Factory{IO: ios.IOStreams, Now: func() time.Time { return testNow }, Getenv: func(string) string { return "" }}
		f.HomeFlag = home
		writeConfig(t, f, "[memories]\nmax_unused_days = 365\ndual_write = true\n[consolidation]\nmode = \"heuristic\"\n")
		seedMemory(t, f, "v2", "thread-c", testNow.Add(-24*time.Hour))
		opts.JSON = true
		if err := runConsolidate(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Status   string `json:"status"`
			Selected int    `json:"selected"`
			Versions []struct {
				Status   string `json:"status"`
				Selected int    `json:"selected"`
			} `json:"versions"`
		}
		if err := json.Unmarshal(ios.out.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Status != "succeeded" || doc.Selected != 2 || len(doc.Versions) != 2 || doc.Versions[1].Selected != 1 {
			t.Errorf("document %+v", doc)
		}
	})
}
