package program

import (
	"fmt"
	"slices"
	"testing"
)

// A failure and the later pass of the same work are paired by what ran
// between them: every command that is not a read and every file edited,
// listed; "flaky" only when nothing ran.
func TestPairer(t *testing.T) {
	run := func(cmd string, o Outcome) step { return step{cmd: cmd, outcome: o} }
	tests := []struct {
		name          string
		steps         []step
		pairs         int
		flaky         bool
		edited, ran   []string
		open, openRan string
	}{
		{name: "a service started between is what ran, not flakiness",
			steps: []step{run("go test ./...", Failed), run("docker compose up -d", Passed), run("go test ./...", Passed)},
			pairs: 1, ran: []string{"docker compose up -d"}},
		{name: "a variable set, an install, a build: each is listed",
			steps: []step{run("npm test", Failed), run("export CI=1", Passed), run("npm install", Passed), run("npm run build", Passed), run("npm test", Passed)},
			pairs: 1, ran: []string{"export CI=1", "npm install", "npm run build"}},
		{name: "edits are listed, reads are not",
			steps: []step{run("go test ./...", Failed), run("rg -n Foo src", Passed), {edit: "a.go"}, run("cat a.go", Passed), run("go test ./...", Passed)},
			pairs: 1, edited: []string{"a.go"}},
		{name: "the same command with nothing between is possibly flaky",
			steps: []step{run("npm run e2e", Failed), run("npm run e2e 2>&1 | tail -5", Unknown), run("npm run e2e", Passed)},
			pairs: 1, flaky: true},
		{name: "no exit status is no failure",
			steps: []step{run("go test ./...", Unknown), run("go test ./...", Passed)}},
		{name: "what ran counts from the latest failure; every error line is kept",
			steps: []step{{cmd: "mix test", outcome: Failed}, run("mix deps.get", Passed),
				{cmd: "mix test", outcome: Failed}, {edit: "mix.exs"}, run("mix test", Passed)},
			pairs: 1, edited: []string{"mix.exs"}},
		{name: "a check of other tests by name is other work: its pass ends only its own failure",
			steps: []step{run("cargo test parser", Failed), run("cargo test lexer", Failed),
				run("cargo test parser", Passed)},
			pairs: 1, ran: []string{"cargo test lexer"}, open: "cargo test lexer", openRan: "cargo test parser"},
		{name: "a test file's pass does not end another file's failure; the whole suite's does",
			steps: []step{run("mix test test/a_test.exs", Failed), run("mix test test/b_test.exs", Passed), run("mix test", Passed)},
			pairs: 1, ran: []string{"mix test test/b_test.exs"}},
		{name: "another path searched is other work",
			steps: []step{run("rg x vendor/a", Failed), run("rg x vendor/b", Passed)}, open: "rg x vendor/a"},
		{name: "another script run by the same program is other work",
			steps: []step{run("python3 scripts/a.py", Failed), run("python3 scripts/b.py", Passed)}, open: "python3 scripts/a.py", openRan: "python3 scripts/b.py"},
		{name: "another inline program is other work",
			steps: []step{run(`node -e "require('./a')"`, Failed), run(`node -e "require('./b')"`, Passed)}, open: `node -e "require('./a')"`, openRan: `node -e "require('./b')"`},
		{name: "another heredoc script is other work",
			steps: []step{run("python3 - <<'EOF'\nimport a\nEOF", Failed), run("python3 - <<'EOF'\nimport b\nEOF", Passed)}, open: "python3 - <<'EOF'\nimport a\nEOF", openRan: "python3 - <<'EOF'\nimport b\nEOF"},
		{name: "an inline probe rewritten keeps the failed one's words: its pass ends the failure, the install between",
			steps: []step{run(`python -c 'import xgboost; print(xgboost.__version__)'`, Failed), run("brew install libomp", Passed),
				run(`uv run python -c 'import xgboost as xgb; print(xgb.__version__)'`, Passed)},
			pairs: 1, ran: []string{"brew install libomp"}},
		{name: "a heredoc probe rewritten with the same words is the same work",
			steps: []step{run("python3 - <<'EOF'\nimport a\nprint(a.f(1))\nEOF", Failed), run("pip install a", Passed),
				run("python3 - <<'EOF'\nimport a\nx = a.f(1)\nprint(x)\nEOF", Passed)},
			pairs: 1, ran: []string{"pip install a"}},
		{name: "a probe that drops words of the failed one is other work",
			steps: []step{run(`node -e "require('sharp').resize(1)"`, Failed), run(`node -e "require('sharp')"`, Passed)},
			open:  `node -e "require('sharp').resize(1)"`, openRan: `node -e "require('sharp')"`},
		{name: "an install of other packages is other work",
			steps: []step{run("pip install alpha", Failed), run("pip install beta", Passed)}, open: "pip install alpha", openRan: "pip install beta"},
		{name: "a commit with another message and an option added is the same work",
			steps: []step{run(`git commit -m "add the parser"`, Failed), {edit: "parser.go"}, run(`git commit --no-verify -m "add the parser, lint later"`, Passed)},
			pairs: 1, edited: []string{"parser.go"}},
		{name: "an option and its value added is the same work",
			steps: []step{run("psql -h db -c 'select 1'", Failed), run("psql -h db -p 5433 -c 'select 1'", Passed)}, pairs: 1},
		{name: "a check of the same purpose from other work is what ran since, not an answer",
			steps: []step{{cmd: "golangci-lint run", outcome: Failed}, {cmd: "make lint", outcome: Passed}},
			open:  "golangci-lint run", openRan: "make lint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, pairs := replay(tt.steps)
			if len(pairs) != tt.pairs {
				t.Fatalf("%d pairs, want %d: %+v", len(pairs), tt.pairs, pairs)
			}
			if tt.pairs > 0 {
				pr := pairs[0]
				if pr.Flaky() != tt.flaky || !slices.Equal(pr.Edited, tt.edited) || !slices.Equal(pr.Ran, tt.ran) {
					t.Errorf("pair: flaky %v, edited %q, ran %q; want %v, %q, %q", pr.Flaky(), pr.Edited, pr.Ran, tt.flaky, tt.edited, tt.ran)
				}
			}
			open := p.Open()
			ranSince := slices.DeleteFunc([]string{tt.openRan}, func(s string) bool { return s == "" })
			if tt.open == "" && len(open) > 0 || tt.open != "" && (len(open) != 1 || open[0].Last.Command != tt.open ||
				!slices.Equal(open[0].Ran, ranSince)) {
				t.Errorf("open: %+v, want %q with %q run since", open, tt.open, tt.openRan)
			}
		})
	}
}

// A failing run of the same work with another error line ends the open failure (its error went away after what
// ran between) and opens its own; the same error again, numbers aside, or an error line not known, renews it.
func TestPairerErrorLines(t *testing.T) {
	const pytest = "pytest tests/test_api.py"
	fail := func(err string) step { return step{cmd: pytest, err: err, outcome: Failed} }
	tests := []struct {
		name  string
		steps []step
		want  []string // each pair: its failure's error line and times, what was edited and ran between, its end
	}{
		{name: "another error is another failure: the install ended the first, the edit the second",
			steps: []step{fail("ModuleNotFoundError: No module named 'httpx'"), {cmd: "pip install httpx", outcome: Passed},
				fail("AssertionError: assert 422 == 200"), {edit: "app/main.py"}, {cmd: pytest, outcome: Passed}},
			want: []string{"ModuleNotFoundError: No module named 'httpx' 1 [] [pip install httpx] failed",
				"AssertionError: assert 422 == 200 1 [app/main.py] [] passed"}},
		{name: "the same error again renews the failure, a duration aside",
			steps: []step{fail("FAILED test_api.py::test_get (0.31s)"), {cmd: "pip install -e .", outcome: Passed},
				fail("FAILED test_api.py::test_get (0.29s)"), {edit: "app/main.py"}, {cmd: pytest, outcome: Passed}},
			want: []string{"FAILED test_api.py::test_get (0.29s) 2 [app/main.py] [] passed"}},
		{name: "an error line not known is no other error",
			steps: []step{fail("ModuleNotFoundError: No module named 'httpx'"), {cmd: "pip install httpx", outcome: Passed},
				fail(""), {edit: "app/main.py"}, {cmd: pytest, outcome: Passed}},
			want: []string{" 2 [app/main.py] [] passed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, pairs := replay(tt.steps)
			var got []string
			for _, pr := range pairs {
				got = append(got, fmt.Sprint(pr.Last.Error, " ", pr.Times, " ", pr.Edited, " ", pr.Ran, " ",
					map[Outcome]string{Passed: "passed", Failed: "failed"}[pr.Pass.Outcome]))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("pairs\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// step is one event of a pairing test: a command run with its outcome and error line, or a file edited.
type step struct {
	cmd, err, edit string
	outcome        Outcome
}

// replay feeds the steps to a new Pairer and returns it with every pair its runs completed.
func replay(steps []step) (*Pairer, []Pair) {
	var p Pairer
	var pairs []Pair
	for _, s := range steps {
		if s.edit != "" {
			p.Edited(s.edit)
			continue
		}
		pairs = append(pairs, p.Ran(Run{Command: s.cmd, Outcome: s.outcome, Error: s.err})...)
	}
	return &p, pairs
}
