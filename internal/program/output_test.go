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
		{"", ""},
	}
	for _, tt := range tests {
		if got := ErrorLine(tt.out); got != tt.want {
			t.Errorf("ErrorLine(%q) = %q, want %q", tt.out, got, tt.want)
		}
	}
}

func TestSpawnFailed(t *testing.T) {
	tests := []struct {
		errLine string
		want    bool
	}{
		{"ENOENT: no such file or directory, posix_spawn '/opt/tool/bin/rg'", true},
		{"Error: spawn rg ENOENT", true},
		{"ENOENT: no such file or directory, open 'src/missing.ts'", false}, // a lookup that found nothing
	}
	for _, tt := range tests {
		if got := SpawnFailed(tt.errLine); got != tt.want {
			t.Errorf("SpawnFailed(%q) = %v, want %v", tt.errLine, got, tt.want)
		}
	}
}

// A long statement keeps its length: the caller cuts it to its budget.
func TestErrorLineLeavesTheCutToTheCaller(t *testing.T) {
	long := "error: " + strings.Repeat("x", 300)
	if got := ErrorLine("noise\n" + long + "\n"); got != long {
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

// The output's own words, read where no exit status tells.
func TestOutputSays(t *testing.T) {
	tests := []struct {
		out          string
		failed, okay bool
	}{
		{"--- FAIL: TestX (0.1s)\nFAIL", true, false},
		{"make: *** [Makefile:3: test] Error 1", true, false},
		{"bash: foo: command not found", true, false},
		{"ok  \tpkg\t0.2s", false, true},
		{"12 passed in 0.81s", false, true},
		{"[main 1a2b3c4] fix the parser", false, true},
		{"nothing to report", false, false},
	}
	for _, tt := range tests {
		if got := OutputSaysFailed(tt.out); got != tt.failed {
			t.Errorf("OutputSaysFailed(%q) = %v", tt.out, got)
		}
		if got := OutputSaysOK(tt.out); got != tt.okay {
			t.Errorf("OutputSaysOK(%q) = %v", tt.out, got)
		}
	}
}

func TestNotInstalled(t *testing.T) {
	exit := func(n int) *int { return &n }
	tests := []struct {
		cmd     string
		exit    *int
		errLine string
		want    bool
	}{
		{"golangci-lint run", exit(127), "", true},
		{"golangci-lint run", exit(1), "bash: golangci-lint: command not found", true},
		{"golangci-lint run", nil, "'golangci-lint' is not recognized as an internal or external command", true},
		{"cat x.txt", exit(1), "cat: x.txt: No such file or directory", false},
		{"npm run lint", exit(1), "sh: eslint: command not found", false}, // another program is missing
		{"", exit(127), "", false},
	}
	for _, tt := range tests {
		if got := NotInstalled(tt.cmd, tt.exit, tt.errLine); got != tt.want {
			t.Errorf("NotInstalled(%q, %q) = %v", tt.cmd, tt.errLine, got)
		}
	}
}

func TestNotPermitted(t *testing.T) {
	for line, want := range map[string]bool{
		"rm: cannot remove 'x': Operation not permitted": true,
		"EACCES: permission denied, open '/etc/hosts'":   true,
		"mkdir: /usr/lib/x: Read-only file system":       true,
		"rg: src/missing: No such file or directory":     false,
	} {
		if got := NotPermitted(line); got != want {
			t.Errorf("NotPermitted(%q) = %v", line, got)
		}
	}
}

func TestErrorCodes(t *testing.T) {
	got := ErrorCodes("TypeError: x is undefined (TS2345, ENOENT, E0432, SIGSEGV)", 3)
	if want := []string{"TypeError", "TS2345", "ENOENT"}; !slices.Equal(got, want) {
		t.Errorf("ErrorCodes = %q, want %q", got, want)
	}
}

// A package script's header says what it runs; another script's header,
// or none, says nothing about this one.
func TestScriptRan(t *testing.T) {
	header := "\n> app@1.0.0 ci\n> npm run lint && npm run build \n\nlint ok"
	tests := []struct {
		cmd, out, want string
		ok             bool
	}{
		{"npm run ci", header, "npm run lint && npm run build", true},
		{"pnpm run ci 2>&1 | tail -30", header, "npm run lint && npm run build", true},
		{"npm run qa", header, "", false},
		{"npm run ci", "ok  \tpkg\t0.2s", "", false},
		{"make ci", header, "", false},
	}
	for _, tt := range tests {
		if runs, ok := ScriptRan(tt.cmd, tt.out); runs != tt.want || ok != tt.ok {
			t.Errorf("ScriptRan(%q) = %q, %v; want %q, %v", tt.cmd, runs, ok, tt.want, tt.ok)
		}
	}
}
