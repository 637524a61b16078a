package cmd

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestNewEvalCmd(t *testing.T) {
	for _, tt := range []struct {
		name    string
		argv    []string
		want    EvalOptions
		wantErr string
	}{
		{name: "defaults", argv: nil, want: EvalOptions{Examples: 3}},
		{name: "sources, budget, dir, examples", argv: []string{"--source", "codex=/x/sessions", "--source", "claude-code=/y", "--max-tokens", "4000", "--dir", "/tmp/keep", "--examples", "0", "--json"},
			want: EvalOptions{JSON: true, Source: []string{"codex=/x/sessions", "claude-code=/y"}, MaxTokens: 4000, Dir: "/tmp/keep"}},
		{name: "a source without a kind", argv: []string{"--source", "/x"}, wantErr: `--source "/x": want KIND=DIR`},
		{name: "an unknown kind", argv: []string{"--source", "cursor=/x"}, wantErr: `--source "cursor=/x": want KIND=DIR with KIND one of codex, claude-code, jsonl`},
		{name: "a negative budget", argv: []string{"--max-tokens", "-1"}, wantErr: "--max-tokens must be at least 0"},
		{name: "negative examples", argv: []string{"--examples", "-2"}, wantErr: "--examples must be at least 0"},
		{name: "arguments", argv: []string{"extra"}, wantErr: "memctl eval takes no arguments"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(false)
			f := newTestFactory(t, ios.IOStreams, nil)
			var got *EvalOptions
			err := execCmd(t, f, newEvalCmd(f, func(_ context.Context, o *EvalOptions) error { got = o; return nil }), nil, tt.argv...)
			wantParsed(t, err, tt.wantErr, got, tt.want)
		})
	}
}

// evalSessions writes two JSONL sessions of one project: a correction in
// the first, the same mistake corrected again in the second.
func evalSessions(t *testing.T) string {
	t.Helper()
	return writeEvalSessions(t, filepath.Join(t.TempDir(), "sessions"))
}

// writeEvalSessions writes the sessions of evalSessions into dir.
func writeEvalSessions(t *testing.T, dir string) string {
	t.Helper()
	session := func(id, day, first, bad, again, good string) string {
		at := func(s string) string { return `"timestamp":"2026-01-` + day + `T09:00:0` + s + `Z"` }
		return strings.Join([]string{
			`{"type":"session","id":"` + id + `","cwd":"/src/shop","source":"cli",` + at("0") + `}`,
			`{"type":"message","role":"user","text":"` + first + `",` + at("1") + `}`,
			`{"type":"tool_call","id":"c1","name":"shell","command":"` + bad + `",` + at("2") + `}`,
			`{"type":"tool_result","id":"c1","output":"added 1 package","exit_code":0,` + at("3") + `}`,
			`{"type":"message","role":"assistant","text":"Done.","final":true,` + at("4") + `}`,
			`{"type":"message","role":"user","text":"` + again + `",` + at("5") + `}`,
			`{"type":"tool_call","id":"c2","name":"shell","command":"` + good + `",` + at("6") + `}`,
			`{"type":"tool_result","id":"c2","output":"+ 1 package","exit_code":0,` + at("7") + `}`,
			`{"type":"message","role":"assistant","text":"Done with pnpm.","final":true,` + at("8") + `}`,
		}, "\n") + "\n"
	}
	writeFile(t, filepath.Join(dir, "shop-1.jsonl"), session("shop-1", "05", "Add zod.", "npm install zod", "no, use pnpm, not npm: this repo is a pnpm workspace.", "pnpm add zod"))
	writeFile(t, filepath.Join(dir, "shop-2.jsonl"), session("shop-2", "07", "Add lodash-es.", "npm install lodash-es", "I told you last time: pnpm, never npm.", "pnpm add lodash-es"))
	return dir
}

func TestRunEval(t *testing.T) {
	dir := evalSessions(t)
	run := func(t *testing.T, tty, jsonOut bool) *testStreams {
		ios := newTestIO(tty)
		f := newTestFactory(t, ios.IOStreams, nil)
		opts := &EvalOptions{IO: ios.IOStreams, Config: f.Config, Pipeline: f.Pipeline, Getenv: f.Getenv, JSON: jsonOut, Source: []string{"jsonl=" + dir}, Examples: 3}
		if err := runEval(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
		return ios
	}
	t.Run("piped: a row per project, one for all, one per return", func(t *testing.T) {
		ios := run(t, false, false)
		lines := strings.Split(strings.TrimSuffix(ios.out.String(), "\n"), "\n")
		if len(lines) != 3 {
			t.Fatalf("stdout:\n%s", ios.out)
		}
		for i, want := range []string{
			"project\tshop\t2\t1\t1\t1\t1.000\t0\t0\t0\t1\t0\t",
			"all\tall\t2\t1\t1\t1\t1.000\t0\t0\t0\t1\t0\t",
			"return\t2026-01-07T09:00:00Z\tcompliance_miss\tshop\tshop-2\tshop-1\tno, use pnpm, not npm: this repo is a pnpm workspace.\tI told you last time: pnpm, never npm.",
		} {
			if !strings.HasPrefix(lines[i], want) {
				t.Errorf("line %d:\n%q\nwant it to start with\n%q", i+1, lines[i], want)
			}
		}
		if ios.errOut.Len() != 0 {
			t.Errorf("stderr: %s", ios.errOut)
		}
	})
	t.Run("terminal: the table, the sparkline, the dominant miss and examples", func(t *testing.T) {
		out := run(t, true, false).out.String()
		for _, want := range []string{
			"Replayed 2 sessions in 1 project (",
			"1 lesson, 1 return, 1 repeat.",
			// 120 columns: the junk and token columns give way first.
			"\x1b[1mPROJECT  SESSIONS  LESSONS  RETURNS  REPEATS  RATE  PREVENTED  EXTRACTION  RANKING  COMPLIANCE  UNAIDED  PRECISION\x1b[22m",
			"\nshop     2         1        1        1        100%  0          0           0        1           0        -",
			"Injected memory: precision n/a (no agent cited a memory",
			"Repeats per day, 2026-01-05 to 2026-01-07: ▁▁█\n",
			"Dominant miss: compliance miss (1 of 1 repeats)\n",
			"\x1b[1mcompliance miss\x1b[22m (1)\n  2026-01-07  shop  session shop-2\n    lesson (2026-01-05, shop-1): no, use pnpm, not npm: this repo is a pnpm workspace.\n    again: I told you last time: pnpm, never npm.\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("stdout lacks %q:\n%s", want, out)
			}
		}
	})
	t.Run("json", func(t *testing.T) {
		var doc struct {
			Overall struct {
				Sessions   int      `json:"sessions"`
				Repeats    int      `json:"repeats"`
				RepeatRate *float64 `json:"repeated_correction_rate"`
				Classes    map[string]int
			} `json:"overall"`
			Returns []struct {
				Class    string `json:"class"`
				Injected bool   `json:"injected"`
				Repeat   *struct {
					Kind  string `json:"kind"`
					Quote string `json:"quote"`
				} `json:"repeat"`
			} `json:"returns"`
			DominantMiss string `json:"dominant_miss"`
		}
		if err := json.Unmarshal(run(t, false, true).out.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Overall.Sessions != 2 || doc.Overall.Repeats != 1 || doc.Overall.RepeatRate == nil || *doc.Overall.RepeatRate != 1 ||
			doc.Overall.Classes["compliance_miss"] != 1 || doc.DominantMiss != "compliance_miss" || len(doc.Returns) != 1 ||
			!doc.Returns[0].Injected || doc.Returns[0].Repeat == nil || doc.Returns[0].Repeat.Kind != "correction" {
			t.Errorf("document: %+v", doc)
		}
	})
}

// --dir keeps the replayed home, and refuses a folder in use.
func TestEvalDir(t *testing.T) {
	dir := evalSessions(t)
	keep := filepath.Join(t.TempDir(), "replay")
	ios, code := runMemctl(t, false, nil, "eval", "--source", "jsonl="+dir, "--dir", keep)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, ios.errOut)
	}
	if !strings.Contains(ios.errOut.String(), "the replayed home is in "+keep) {
		t.Errorf("stderr: %s", ios.errOut)
	}
	ios, code = runMemctl(t, false, nil, "eval", "--source", "jsonl="+dir, "--dir", keep)
	if code != ExitUsage || !strings.Contains(ios.errOut.String(), "is not empty") {
		t.Errorf("a second run into the same --dir: exit %d, %s", code, ios.errOut)
	}
}
