package program

import (
	"slices"
	"strings"
	"testing"
)

func TestErrorLine(t *testing.T) {
	tests := []struct{ out, want string }{
		{"--- FAIL: TestX (0.1s)\n    x_test.go:12: got 3, want 4\nFAIL\nFAIL\tpkg\t0.2s", "x_test.go:12: got 3, want 4"},
		{"Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\nValueError: bad input", "ValueError: bad input"},
		{"# pkg\n./main.go:7:2: undefined: Foo", "./main.go:7:2: undefined: Foo"},
		{"ls: cannot access 'x': No such file or directory", "ls: cannot access 'x': No such file or directory"},
		{"npm ERR! missing script: lint", "npm ERR! missing script: lint"},
		{"The following paths are ignored by one of your .gitignore files:\ndist\nhint: Use -f if you really want to add them.", "The following paths are ignored by one of your .gitignore files: dist"},
		{"plain\nlast words\n\n", "last words"},
		// a task runner's status lines name no cause; the linter's located line does
		{"[STARTED] markdownlint\n[FAILED] markdownlint [FAILED]\n\n✖ markdownlint:\ndocs/a.md:26 error MD040/fenced-code-language Fenced code blocks should have a language specified\nhook failed (code 1)",
			"docs/a.md:26 error MD040/fenced-code-language Fenced code blocks should have a language specified"},
		{"src/a.ts\n  3:7  error  'x' is assigned a value but never used  no-unused-vars\n\n✖ 1 problem", "3:7 error 'x' is assigned a value but never used no-unused-vars"},
		// an API's JSON error body reads as its message
		{`{"errors":[{"path":["query","a","b"],"extensions":{"code":"argumentNotAccepted"},"message":"Field 'b' doesn't accept argument 'c'"}]}`,
			"Field 'b' doesn't accept argument 'c'"},
		// a warning and the lines under it are never the error; a gutter
		// before the report's own line is no warning's
		{"warning: variable \"x\" is unused\n  \u2514\u2500 lib/a.ex:16: A.f/1\n** (CompileError) lib/b.ex:42: undefined function g/1", "** (CompileError) lib/b.ex:42: undefined function g/1"},
		{"Pre-commit validation failed:\n\u2503 [F] \u2192 Function is too complex (cyclomatic complexity is 13, max is 9).\n\u2503       lib/a.ex:144:7", "Pre-commit validation failed: \u2503 [F] \u2192 Function is too complex (cyclomatic complexity is 13, max is 9)."},
		// a line that only says the run failed, or restates its exit status, is no report
		{"--- FAIL: TestParse (0.00s)\nFAIL\nFAIL\tacme/parse\t0.01s", ""},
		{"Command failed with exit code 1", ""},
		{"make: *** [Makefile:12: build] Error 2", ""},
		{"error: Recipe `test` failed with exit code 101", ""},
		{"Error: Process completed with exit code 1.", ""},
		{"npm ERR! code ELIFECYCLE\nnpm ERR! errno 1", ""},
		{"go build ./cmd/api\nmake: *** [build] Error 1", ""},
		{"pkg/x.go:9:2: undefined: y\nexit status 1", "pkg/x.go:9:2: undefined: y"},
		{"run_test.go:22: exit code = 1, want 0\nFAIL", "run_test.go:22: exit code = 1, want 0"},
		// the failing test's own report, not what a passing test printed
		// before it on purpose, nor the runner's count line
		{"=== RUN   TestA\n    a_test.go:9: error: upstream down (injected)\n--- PASS: TestA (0s)\n=== RUN   TestB\n    b_test.go:4: n = 1, want 2\n--- FAIL: TestB (0s)\nFAIL", "b_test.go:4: n = 1, want 2"},
		{"  console.error\n    Error: offline (simulated)\n  \u2715 parses (2 ms)\n  \u25cf parses\n    expect(received).toBe(expected)\nTests:       1 failed, 3 passed, 4 total", "expect(received).toBe(expected)"},
		// a progress bar, a source line under a stack frame or after pytest's marker is no report; a long
		// output with no line that names a problem gives none
		{"Validating  45%|████▌     | 9/20 invalid=0\nupload failed after 3 tries", "upload failed after 3 tries"},
		{"Traceback (most recent call last):\n  File \"cfg.py\", line 3, in load\n" +
			"    raise KeyError(\"missing key: port\")\nKeyError: 'port'",
			"KeyError: 'port'"},
		{"    def test_sum():\n>       assert total(a) != total(b)\nE       assert 3 != 3", "E assert 3 != 3"},
		{"building\nlinking objects\nwriting bundle\ndone in 2.1s", ""},
		// colours are no part of the line
		{"\x1b[31mError: boom\x1b[39m", "Error: boom"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := ErrorLine("", tt.out); got != tt.want {
			t.Errorf("ErrorLine(%q) = %q, want %q", tt.out, got, tt.want)
		}
	}
}

// TestErrorLineOfTheCommand: what a line printed with its errors sent away is data; so is a read's or a search's
// output (matches, listings, a file's text) but for a lone line and the lines its programs sign.
func TestErrorLineOfTheCommand(t *testing.T) {
	matches := "src/net/client.go:41: // retry when the token is missing\nsrc/net/client.go:88: return errors.New(\"not found\")\n"
	tests := []struct{ cmd, out, want string }{
		{"grep -rn token src tests 2>/dev/null; ls config/extra 2>/dev/null", matches, ""},
		{"cd api && ./scripts/lint.sh >/dev/null 2>&1", "error: the run stopped", ""},
		{"rg -n token src docs", matches + "rg: docs: No such file or directory (os error 2)\n",
			"rg: docs: No such file or directory (os error 2)"},
		{"find . -name '*.go' | head -3; ls config/extra", matches + "ls: cannot access 'config/extra': No such file or directory\n",
			"ls: cannot access 'config/extra': No such file or directory"},
		{"grep -rn token src", matches, ""},
		{"grep -R token -n", "command timed out after 10000 milliseconds\n", "command timed out after 10000 milliseconds"},
		{"cat notes.md", "error: the cache is missing", "error: the cache is missing"},
		// PowerShell signs a cmdlet's error "Name : message", its detail lines under it
		{"Get-ChildItem -Force .specify/templates/commands", "Get-ChildItem : Cannot find path 'C:\\calc\\.specify\\templates\\commands' " +
			"because it does not exist.\nAt line:2 char:1\n+ Get-ChildItem -Force .specify/templates/commands\n" +
			"+ ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n    + CategoryInfo          : ObjectNotFound: (C:\\calc\\.s...mplates\\commands:String) " +
			"[Get-ChildItem], ItemNotFoundException\n",
			"Get-ChildItem : Cannot find path 'C:\\calc\\.specify\\templates\\commands' because it does not exist."},
		// the work's own output is its report, whatever the line pipes it through
		{"go test ./... 2>&1 | tail -20", "x_test.go:3: got 1, want 2\nFAIL\n", "x_test.go:3: got 1, want 2"},
	}
	for _, tt := range tests {
		if got := ErrorLine(tt.cmd, tt.out); got != tt.want {
			t.Errorf("ErrorLine(%q, %q) = %q, want %q", tt.cmd, tt.out, got, tt.want)
		}
	}
}

func TestErrorLineLeavesTheCutToTheCaller(t *testing.T) {
	long := "error: " + strings.Repeat("x", 300)
	if got := ErrorLine("", "noise\n"+long+"\n"); got != long {
		t.Errorf("ErrorLine cut a long line to %d bytes", len(got))
	}
}

func TestFailingTests(t *testing.T) {
	tests := []struct {
		out  string
		want []string
	}{
		{"--- FAIL: TestA (0.1s)\n    --- FAIL: TestA/sub (0s)\n--- FAIL: TestB (0s)\nFAIL", []string{"TestA", "TestB"}},
		{"FAILED tests/test_x.py::test_one - AssertionError\nFAILED tests/test_x.py::test_two", []string{"test_one", "test_two"}},
		{"  ✕ adds numbers (3 ms)\n  ✓ subtracts", []string{"adds numbers"}},
		{"not ok 2 - parses dates\nok 3 - prints", []string{"parses dates"}},
		{"--- FAIL: A\n--- FAIL: B\n--- FAIL: C\n--- FAIL: D", []string{"A", "B", "C"}},
		{"all good", nil},
	}
	for _, tt := range tests {
		if got := FailingTests(tt.out); !slices.Equal(got, tt.want) {
			t.Errorf("FailingTests(%q) = %q, want %q", tt.out, got, tt.want)
		}
	}
}

func TestPassTally(t *testing.T) {
	for out, want := range map[string]string{
		" Tests  \x1b[1m\x1b[32m23 passed\x1b[39m (23)": "23 passed (23)",
		"....\n2 passed in 0.81s":                       "2 passed in 0.81s",
		"> pkg@0.0.27 test":                             "",
	} {
		if got := PassTally(out); got != want {
			t.Errorf("PassTally(%q) = %q, want %q", out, got, want)
		}
	}
}

// TestGoesOnAfterFailure: a line whose exit status is its last command's only, unlike one "&&" or `set -e` stops.
func TestGoesOnAfterFailure(t *testing.T) {
	for cmd, want := range map[string]bool{
		"go generate ./...; git add gen":            true,
		"python3 seed.py\ntouch .seeded":            true,
		"make lint || true":                         true,
		"go test ./... | tee test.log":              true,
		"npm ci && npm run build":                   false,
		"set -e; make gen; make build":              false,
		"set -o pipefail && go test ./... | tee x":  false,
		"echo 'a; b' && grep -n 'x|y' f":            false,
		"find . -name '*.go' -exec gofmt -l {} \\;": false,
		"cat > a.sh <<'EOF'\necho a; echo b\nEOF":   false,
		"go build \\\n  ./cmd/app":                  false,
	} {
		if got := GoesOnAfterFailure(cmd); got != want {
			t.Errorf("GoesOnAfterFailure(%q) = %v, want %v", cmd, got, want)
		}
	}
}
