package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/consolidate"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/model"
	"github.com/memctl/memctl/internal/store"
)

func TestNewRunCmd(t *testing.T) {
	tests := []struct {
		name    string
		argv    string
		want    RunOptions
		wantErr string
	}{
		{name: "defaults", want: RunOptions{}},
		{name: "extract and consolidate flags", argv: "--provider heuristic --all --max 3 --mode heuristic --force --dry-run --json",
			want: RunOptions{JSON: true, Extract: ExtractFlags{ProviderKind: "heuristic", All: true, Max: ptrTo(3), DryRun: true},
				Consolidate: ConsolidateFlags{Mode: "heuristic", Force: true}}},
		{name: "unknown mode", argv: "--mode magic", wantErr: `--mode: invalid value "magic"`},
		{name: "max zero", argv: "--max 0", wantErr: "--max must be at least 1"},
		{name: "no calls in flight", argv: "--concurrency 0", wantErr: "--concurrency: invalid value 0: want 1 to 64"},
		{name: "argument", argv: "all", wantErr: `memctl run takes no arguments, got "all"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(false)
			f := newTestFactory(t, ios.IOStreams, nil)
			var got *RunOptions
			err := execCmd(t, f, newRunCmd(f, func(_ context.Context, o *RunOptions) error { got = o; return nil }), nil,
				strings.Fields(tt.argv)...)
			wantParsed(t, err, tt.wantErr, got, tt.want)
		})
	}
}

func TestRunRun(t *testing.T) {
	const extracted = "extracted 2 threads: 2 with a memory, 0 with nothing worth keeping, 0 failed\n"
	const consolidated = "v1: consolidation succeeded (2 raw memories); generation 1\n"
	tests := []struct {
		name       string
		tty        bool
		flags      ExtractFlags
		wantOut    string
		wantErrOut string
	}{
		{name: "piped", flags: ExtractFlags{All: true}, wantErrOut: extracted + consolidated},
		{name: "terminal: quick stages show no progress", tty: true, flags: ExtractFlags{All: true}, wantErrOut: extracted + consolidated},
		{name: "dry run: extract lists, nothing consolidates", flags: ExtractFlags{All: true, DryRun: true},
			wantOut: "00000000-0000-4000-8000-000000000001\t1795\tfix the flaky test number 1 in the parser\n" +
				"00000000-0000-4000-8000-000000000000\t1795\tfix the flaky test number 0 in the parser\n",
			wantErrOut: "would claim 2 threads, about 3590 input tokens in total\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(tt.tty)
			f := jsonlFactory(t, ios.IOStreams, 2)
			opts := &RunOptions{IO: ios.IOStreams, Config: f.Config, Pipeline: f.Pipeline,
				Extract: tt.flags}
			if err := runRun(context.Background(), opts); err != nil {
				t.Fatal(err)
			}
			if got := ios.out.String(); got != tt.wantOut {
				t.Errorf("stdout:\n%q\nwant:\n%q", got, tt.wantOut)
			}
			if got := ios.errOut.String(); got != tt.wantErrOut {
				t.Errorf("stderr:\n%q\nwant:\n%q", got, tt.wantErrOut)
			}
		})
	}

	t.Run("json: one typed document, nothing on stderr", func(t *testing.T) {
		ios := newTestIO(false)
		f := jsonlFactory(t, ios.IOStreams, 2)
		opts := &RunOptions{IO: ios.IOStreams, Config: f.Config, Pipeline: f.Pipeline,
			JSON: true, Extract: ExtractFlags{All: true}}
		if err := runRun(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
		if ios.errOut.Len() != 0 {
			t.Errorf("stderr %q", ios.errOut)
		}
		var doc runJSON
		dec := json.NewDecoder(ios.out)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&doc); err != nil {
			t.Fatal(err)
		}
		if doc.Version != memversion.V1 || doc.Prepare.Status != "ok" || !doc.Guard.Allowed || doc.Extract == nil || doc.Extract.Succeeded != 2 ||
			doc.Consolidate == nil || doc.Consolidate.Status != consolidate.StatusSucceeded || len(doc.Versions) != 1 {
			t.Errorf("document %+v", doc)
		}
	})

	t.Run("failed extraction calls: exit 3, the consolidation still runs", func(t *testing.T) {
		ios := newTestIO(false)
		f := jsonlFactory(t, ios.IOStreams, 2)
		fail := &fakeProvider{call: func(context.Context, model.Request) (model.Response, error) {
			return model.Response{}, errors.New("HTTP 500 from the stand-in")
		}}
		writeConfig(t, f, "[consolidation]\nmode = \"heuristic\"\n[provider]\nkind = \"heuristic\"\n[[sources]]\nkind = \"jsonl\"\npath = \""+
			filepath.Join(filepath.Dir(f.HomeFlag), "transcripts")+"\"\n")
		opts := &RunOptions{IO: ios.IOStreams, Config: f.Config, Pipeline: withProvider(f, fail),
			Extract: ExtractFlags{All: true, Concurrency: ptrTo(1)}}
		err := runRun(context.Background(), opts)
		var partial *PartialError
		if !errors.As(err, &partial) || exitCode(err) != ExitPartial || partial.Failed != 2 {
			t.Fatalf("err %v (exit %d), want 2 failed jobs, exit 3", err, exitCode(err))
		}
		want := "memctl: warning: 00000000-0000-4000-8000-000000000000 failed: HTTP 500 from the stand-in\n" +
			"memctl: warning: 00000000-0000-4000-8000-000000000001 failed: HTTP 500 from the stand-in\n" +
			"extracted 2 threads: 0 with a memory, 0 with nothing worth keeping, 2 failed\n" +
			"v1: the memory is empty: no raw memory or note to consolidate yet, so summary prints nothing\n"
		if got := ios.errOut.String(); got != want {
			t.Errorf("stderr:\n%s\nwant:\n%s", got, want)
		}
	})
}

// `run --dry-run` printed "pruned 1 raw memories" for a memory
// it kept; a dry run says what it would do ("would prune 1 raw memory")
// and changes nothing.
func TestRunDryRunSaysWouldPrune(t *testing.T) {
	ios := newTestIO(false)
	f := jsonlFactory(t, ios.IOStreams, 1)
	seedMemory(t, f, "v1", "stale", testNow.AddDate(-2, 0, 0))
	opts := &RunOptions{IO: ios.IOStreams, Config: f.Config, Pipeline: f.Pipeline,
		Extract: ExtractFlags{All: true, DryRun: true}}
	if err := runRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	got := ios.errOut.String()
	if !strings.HasPrefix(got, "v1: would prune 1 raw memory\n") || strings.Contains(got, "pruned") {
		t.Errorf("stderr:\n%s\nwant it to start with the prune it would do", got)
	}
	st, err := f.OpenStore(context.Background(), "v1")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if s, _ := st.Status(context.Background()); s.RawMemories != 1 || len(s.StageRuns) != 1 || s.StageRuns[0].Stage != "scan" {
		t.Errorf("after a dry run: %d raw memories, stage runs %+v; want the memory kept and only the scan recorded", s.RawMemories, s.StageRuns)
	}
}

// With a config no stage can work with, run pruned and printed
// before failing with exit 2; now it refuses before any stage runs.
func TestRunRefusesBadConfigBeforeAnyStage(t *testing.T) {
	for _, tt := range []struct{ name, config, want string }{
		{"bad redaction pattern", "[redaction]\nextra_patterns = [\"(\"]\n", `key "redaction.extra_patterns"`},
		{"command provider without a command", "[provider]\nkind = \"command\"\n", "provider kind command needs provider.command"},
		{"openai without a key", "[provider]\nkind = \"openai\"\n", "OPENAI_API_KEY is not set"},
		{"agent mode without a command", "[provider]\nkind = \"heuristic\"\n[consolidation]\nmode = \"agent\"\n", "needs agent_command"},
		// A program that cannot start failed every thread in turn (each
		// spending a retry and backing off for an hour), then the
		// consolidation: it is a config error, found before any stage.
		{"provider command not in PATH", "[provider]\nkind = \"command\"\ncommand = [\"memctl-no-such-llm\", \"-m\", \"x\"]\n",
			`config: key "provider.command": program "memctl-no-such-llm" is not in PATH`},
		{"provider command missing", "[provider]\nkind = \"command\"\ncommand = [\"/nonexistent/prov\"]\n",
			`config: key "provider.command": program /nonexistent/prov does not exist`},
		{"agent command not executable", "[provider]\nkind = \"heuristic\"\n[consolidation]\nmode = \"agent\"\nagent_command = [\"/dev/null\"]\n",
			`config: key "consolidation.agent_command": program /dev/null is not executable`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(false)
			f := newTestFactory(t, ios.IOStreams, nil)
			seedMemory(t, f, "v1", "stale", testNow.AddDate(-2, 0, 0))
			writeConfig(t, f, tt.config)
			opts := &RunOptions{IO: ios.IOStreams, Config: f.Config, Pipeline: f.Pipeline}
			err := runRun(context.Background(), opts)
			wantError(t, err, tt.want)
			if code := exitCode(err); code != ExitUsage {
				t.Errorf("exit %d, want %d", code, ExitUsage)
			}
			if got := ios.errOut.String(); strings.Contains(got, "prune") || strings.Contains(got, "extract") {
				t.Errorf("a stage reported before the refusal:\n%s", got)
			}
			st, err := f.OpenStore(context.Background(), "v1")
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if s, _ := st.Status(context.Background()); s.RawMemories != 1 || len(s.StageRuns) != 0 {
				t.Errorf("%d raw memories, stage runs %+v: a stage ran", s.RawMemories, s.StageRuns)
			}
		})
	}
}

// run did not show the problems scan shows, and a [[sources]]
// path with a typo went unnoticed (exit 0). Now run warns about broken
// transcripts, still runs the pipeline on the readable sources, and exits
// 1 naming the source it could not read.
func TestRunReportsScanProblems(t *testing.T) {
	ios := newTestIO(false)
	f := jsonlFactory(t, ios.IOStreams, 2)
	src := filepath.Join(filepath.Dir(f.HomeFlag), "transcripts")
	writeFile(t, filepath.Join(src, "broken.jsonl"),
		`{"type":"session","id":"broken-1","cwd":"/src/b","source":"exec","timestamp":"2026-06-09T12:00:00Z"}`+"\n{\"type\":\"mess\n")
	typo := filepath.Join(filepath.Dir(f.HomeFlag), "projectz")
	writeConfig(t, f, "[memories]\nmax_unused_days = 365\n[provider]\nkind = \"heuristic\"\n[[sources]]\nkind = \"jsonl\"\npath = \""+src+
		"\"\n[[sources]]\nkind = \"claude-code\"\npath = \""+typo+"\"\n")
	opts := &RunOptions{IO: ios.IOStreams, Config: f.Config, Pipeline: f.Pipeline,
		Extract: ExtractFlags{All: true}}
	err := runRun(context.Background(), opts)
	if code := exitCode(err); code != ExitError || !strings.Contains(fmt.Sprint(err), "cannot read the claude-code source "+typo+": no such folder") {
		t.Fatalf("err %v (exit %d), want the typo'd source named, exit 1", err, code)
	}
	want := "memctl: warning: " + src + "/broken.jsonl:2: malformed JSON line skipped: unexpected end of JSON input\n" +
		"extracted 2 threads: 2 with a memory, 0 with nothing worth keeping, 0 failed; not claimed: 1 non-interactive (exec) session\n" +
		"v1: consolidation succeeded (2 raw memories); generation 1\n"
	if got := ios.errOut.String(); got != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", got, want)
	}
}

// A run the rate-limit guard stops says why, with the figures
// and the key that sets the floor, and runs no stage after the prune.
func TestRunRateLimitGuardSaysWhy(t *testing.T) {
	ios := newTestIO(false)
	f := newTestFactory(t, ios.IOStreams, map[string]string{"OPENAI_API_KEY": "k"})
	writeConfig(t, f, "[provider]\nkind = \"openai\"\n[memories]\nmin_rate_limit_remaining_percent = 25\n")
	st, err := f.OpenStore(context.Background(), "v1")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SaveRateLimit(context.Background(), store.RateLimitState{Provider: "openai", RemainingPercent: 10, ObservedAt: testNow}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	opts := &RunOptions{IO: ios.IOStreams, Config: f.Config, Pipeline: f.Pipeline}
	if err := runRun(context.Background(), opts); err != nil {
		t.Fatalf("a guarded run is not an error: %v", err)
	}
	want := "memctl: warning: v1: rate-limit guard: openai rate limit has 10.0% left, below the 25% minimum " +
		"(memories.min_rate_limit_remaining_percent); skipping extraction and consolidation\n"
	if got := ios.errOut.String(); got != want {
		t.Errorf("stderr:\n%q\nwant:\n%q", got, want)
	}
}
