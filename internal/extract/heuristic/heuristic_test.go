package heuristic

import (
	"fmt"
	"github.com/memctl/memctl/internal/program"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/rawmemory"
	"github.com/memctl/memctl/internal/sessions"
)

// Hand-made event sequences, in the normalised form the session readers
// produce. Tool names are plain ones: which agent wrote a transcript is
// the readers' business, and their own tests cover it.

var t0 = time.Date(2026, 1, 16, 10, 0, 0, 0, time.UTC)

type seq struct {
	events []sessions.Event
	n      int
}

func (s *seq) add(e sessions.Event) *seq {
	s.n++
	e.Line = s.n
	e.Time = t0.Add(time.Duration(s.n) * 10 * time.Second)
	s.events = append(s.events, e)
	return s
}

func (s *seq) human(text string) *seq {
	return s.add(sessions.Event{Kind: sessions.EventHuman, Text: text})
}

func (s *seq) final(text string) *seq {
	return s.add(sessions.Event{Kind: sessions.EventAssistant, Text: text, Final: true})
}

// run is a shell command with its exit status.
func (s *seq) run(id, command, output string, exit int) *seq {
	s.add(sessions.Event{Kind: sessions.EventToolCall, CallID: id, Tool: "shell", Action: sessions.ActionShell, Command: command})
	code := exit
	outcome := sessions.OutcomeOK
	if exit != 0 {
		outcome = sessions.OutcomeFailed
	}
	return s.add(sessions.Event{Kind: sessions.EventToolResult, CallID: id, Output: output, ExitCode: &code, IsError: exit != 0, Outcome: outcome})
}

// edit is a successful edit of one file.
func (s *seq) edit(id, path string) *seq {
	s.add(sessions.Event{Kind: sessions.EventToolCall, CallID: id, Tool: "edit", Action: sessions.ActionEdit, FilePath: path})
	s.add(sessions.Event{Kind: sessions.EventToolResult, CallID: id, Outcome: sessions.OutcomeOK})
	return s.add(sessions.Event{Kind: sessions.EventFileChange, CallID: id, FilePath: path, FileOp: "update"})
}

func meta(cwd string) sessions.Meta {
	return sessions.Meta{ID: "t-1", Kind: sessions.KindJSONL, Cwd: cwd, Source: "cli", CreatedAt: t0, UpdatedAt: t0.Add(time.Hour)}
}

func text(r Result) string { return r.RawMemory + "\n" + r.RolloutSummary }

func TestTaskSplit(t *testing.T) {
	tests := []struct {
		name  string
		build func(*seq)
		tasks int
	}{
		{"unrelated request after an answer", func(s *seq) {
			s.human("show tools").final("shell, edit").human("bump the docker base image and rebuild").final("done")
		}, 2},
		{"related follow-up shares a file word", func(s *seq) {
			s.human("create hello.py").edit("a", "/x/hello.py").final("done").human("update py with a comment").final("done")
		}, 1},
		{"related forms of a word", func(s *seq) {
			s.human("add conversation tracking").final("done").human("show the tracked conversations json").final("here")
		}, 1},
		{"message before any answer", func(s *seq) {
			s.human("fix the parser").human("deploy the website").final("done")
		}, 1},
		{"correction never opens a task", func(s *seq) {
			s.human("fix the parser").final("done").human("that's not what i asked, the lexer is broken").final("ok")
		}, 1},
		{"continuation phrase", func(s *seq) {
			s.human("fix the parser").final("done").human("also deploy the website").final("ok")
		}, 1},
		{"the answer to an interruption", func(s *seq) {
			s.human("fix the parser").final("done").add(sessions.Event{Kind: sessions.EventInterrupt}).
				human("deploy the website instead").final("ok")
		}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &seq{}
			tt.build(s)
			out := Extract(V1, meta("/x"), s.events)
			if got := strings.Count(out.RolloutSummary, "\n## Task "); got != tt.tasks {
				t.Errorf("%d tasks, want %d:\n%s", got, tt.tasks, out.RolloutSummary)
			}
		})
	}
}

func TestOutcome(t *testing.T) {
	tests := []struct {
		name  string
		build func(*seq)
		want  string
	}{
		{"completion claim", func(s *seq) { s.human("write docs").final("Done! I've written the docs.") }, "success"},
		{"answer without claim", func(s *seq) { s.human("what is this repo").final("It is a CLI.") }, "uncertain"},
		{"user says it does not work", func(s *seq) {
			s.human("fix login").final("Fixed.").human("it still doesn't work")
		}, "fail"},
		{"complaint answered without a check", func(s *seq) {
			s.human("fix login").final("Fixed.").human("it still doesn't work").final("Adjusted the cookie path.")
		}, "uncertain"},
		{"complaint then passing check", func(s *seq) {
			s.human("fix login").final("Fixed.").human("it still doesn't work").run("a", "npm test", "ok", 0).final("Tests pass now.")
		}, "success"},
		{"last command failed, not a check", func(s *seq) {
			s.human("deploy it").run("a", "kubectl apply -f k8s/", "error: forbidden", 1).final("Deployed.")
		}, "partial"},
		{"final answer admits failure", func(s *seq) {
			s.human("upgrade node").final("I could not upgrade node because nvm is missing.")
		}, "partial"},
		{"ended mid-work", func(s *seq) { s.human("refactor the store").edit("a", "/x/store.go") }, "partial"},
		{"last check failed", func(s *seq) {
			s.human("fix the build").run("a", "go build ./...", "main.go:3:1: syntax error near x", 1).final("Done.")
		}, "fail"},
		{"tests pass, lint of another purpose still failing", func(s *seq) {
			s.human("fix the parser").edit("e", "/x/parse.go").run("a", "golangci-lint run", "parse.go:9:2: ineffectual assignment to n (ineffassign)", 1).
				run("b", "go test ./...", "ok  x 0.1s", 0).final("Done, tests pass.")
		}, "partial"},
		{"lint failure replaced by a passing lint of the same purpose", func(s *seq) {
			s.human("fix the parser").edit("e", "/x/parse.go").run("a", "golangci-lint run", "golangci-lint: command not found", 127).
				run("b", "go vet ./...", "", 0).run("c", "go test ./...", "ok  x 0.1s", 0).final("Done, tests pass.")
		}, "success"},
		{"commit after the passing check", func(s *seq) {
			s.human("fix the parser").edit("e", "/x/parse.go").run("a", "go test ./...", "ok  x 0.1s", 0).
				run("b", "git commit -am fix", "[main 1a2b3c4] fix", 0).final("Done.")
		}, "success"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &seq{}
			tt.build(s)
			out := Extract(V1, meta("/x"), s.events)
			if !strings.Contains(out.RawMemory, "task_outcome: "+tt.want+"\n") {
				t.Errorf("want outcome %s:\n%s", tt.want, out.RawMemory)
			}
		})
	}
}

func TestStanding(t *testing.T) {
	tests := []struct {
		sentence string
		want     bool
	}{
		{"use pnpm, never npm", true},
		{"Use pnpm, not npm.", true},
		{"important not to commit changes until final step", true},
		{"TODO is not acceptable, implementation must be full", true},
		{"X must not be agent specific", true},
		{"From now on always run `go test -race` for this repo", true},
		{"please don't create separate documents", true},
		{"no, don't use print in hello.py", true},
		{"prefer table-driven tests over many small ones", true},
		{"stop adding comments to every line", true},
		{"performance is crucial", true},
		{"old clients won't be broken", true},
		{"for now, skip the slow integration tests", false},
		{"don't push yet", false},
		{"don't forget to update the changelog", false},
		{"delete js", false},
		{"add a test for the empty case", false},
		{"should we always use tabs here?", false},
		{"I never said that", false},
		{"it's bad idea, since entire conversation will be processed every time", false},
		{"stop the old container", false},
		{"for this run use export STRIPE_API_KEY=x", false},
	}
	for _, tt := range tests {
		if got := standing(normQuotes(tt.sentence)); got != tt.want {
			t.Errorf("standing(%q) = %v, want %v", tt.sentence, got, tt.want)
		}
	}
}

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
		if got := errorLine(tt.out); got != tt.want {
			t.Errorf("errorLine(%q) = %q, want %q", tt.out, got, tt.want)
		}
	}
}

func TestCommandClassification(t *testing.T) {
	tests := []struct {
		cmd            string
		family         string
		explore, check bool
	}{
		{"go test ./internal/x -run Foo", "go test", false, true},
		{"cd /w && GOFLAGS=-mod=mod go test ./...", "go test", false, true},
		{"npm run build", "npm run build", false, true},
		{"python -m pytest -q", "python -m pytest", false, true},
		{"rg -n test src", "rg", true, false},
		{"sed -i 's/a/b/' main.go", "sed", false, false},
		{"git status --short", "git status", true, false},
		{"git -C repo push", "git push", false, false},
		{"git commit -m 'fix tests'", "git commit", false, false},
		{"ps aux | grep node", "ps", true, false},
		{"sudo logrotate -d /etc/logrotate.d/nginx", "logrotate", false, true},
		{"nginx -t", "nginx", false, true},
		{"make", "make", false, true},
		// A runner target or package script is a check when its name
		// says it verifies; cleaning, deploying or rewriting files is not.
		// git branch, config and remote look around only in their
		// listing and reading forms.
		{"git branch -a", "git branch", true, false},
		{"git branch --show-current", "git branch", true, false},
		{"git branch -D stale", "git branch", false, false},
		{"git branch feature-x", "git branch", false, false},
		{"git config --get user.email", "git config", true, false},
		{"git config user.name", "git config", true, false},
		{"git config user.name Dev", "git config", false, false},
		{"git remote -v", "git remote", true, false},
		{"git remote add upstream git@example.com:a/b.git", "git remote", false, false},
		{"make check", "make check", false, true},
		{"make -j4 test-unit", "make", false, true},
		{"make clean", "make clean", false, false},
		{"make deploy ENV=staging", "make deploy", false, false},
		{"npm run check", "npm run check", false, true},
		{"npm run ci", "npm run ci", false, true},
		{"npm ci", "npm ci", false, false},
		{"pnpm run lint", "pnpm run lint", false, true},
		{"yarn typecheck", "yarn typecheck", false, true},
		{"just test", "just test", false, true},
		{"just qa", "just qa", false, true},
		{"just deploy", "just deploy", false, false},
		{"npm run precommit", "npm run precommit", false, true},
		{"pre-commit run --all-files", "pre-commit", false, true},
		{"prettier --write src", "prettier", false, false},
		{"prettier --check src", "prettier", false, true},
		{"gofmt -w main.go", "gofmt", false, false},
		{"ruff format .", "ruff", false, false},
		{"ruff format --check .", "ruff", false, true},
		// Output sent to a file is a change, not a look around.
		{"cat > /tmp/t.js << 'EOF'\nconsole.log(a => a > 1)\nEOF\nnode /tmp/t.js", "cat", false, false},
		{"echo done >> notes.txt", "echo", false, false},
		{"ls src | tee listing.txt", "ls", false, false},
		{"grep -rn foo src 2>/dev/null", "grep", true, false},
		{"ps aux 2>&1 | grep node", "ps", true, false},
		{"grep -n 'a > b' main.go", "grep", true, false},
	}
	for _, tt := range tests {
		if got := program.Family(tt.cmd); got != tt.family {
			t.Errorf("program.Family(%q) = %q, want %q", tt.cmd, got, tt.family)
		}
		explore := isExploration(tt.cmd)
		if explore != tt.explore {
			t.Errorf("isExploration(%q) = %v", tt.cmd, explore)
		}
		if got := !explore && program.IsCheck(tt.cmd); got != tt.check {
			t.Errorf("program.IsCheck(%q) = %v", tt.cmd, got)
		}
	}
	for cmd, want := range map[string]string{
		"git checkout -- a.go b.go": "files=[a.go b.go]", "git restore a.go": "files=[a.go]", "git stash": "all",
		"git reset --hard HEAD": "all", "git checkout .": "all", "git restore --staged a.go": "none", "git stash pop": "unstash",
	} {
		r := revertsFiles(cmd)
		got := "none"
		switch {
		case r.all:
			got = "all"
		case r.unstash:
			got = "unstash"
		case len(r.files) > 0:
			got = fmt.Sprintf("files=%v", r.files)
		}
		if got != want {
			t.Errorf("revertsFiles(%q) = %s, want %s", cmd, got, want)
		}
	}
}

// An edit that puts the replaced text back cancels the earlier one.
func TestInverseEditUndoes(t *testing.T) {
	s := &seq{}
	s.human("try a shorter timeout in config.go")
	s.add(sessions.Event{Kind: sessions.EventFileChange, CallID: "a", FilePath: "/x/config.go", FileOp: "update", Old: "30 * time.Second", New: "5 * time.Second"})
	s.run("t1", "go test ./...", "--- FAIL: TestSlow\n    slow_test.go:9: deadline exceeded", 1)
	s.add(sessions.Event{Kind: sessions.EventFileChange, CallID: "b", FilePath: "/x/config.go", FileOp: "update", Old: "5 * time.Second", New: "30 * time.Second"})
	s.final("The shorter timeout breaks TestSlow, so I put it back.")
	got := text(Extract(V1, meta("/x"), s.events))
	for _, want := range []string{"changed no file (1 more changed and then undone)", "The changes to config.go were undone (edited back to its original text)"} {
		if !strings.Contains(got, want) {
			t.Errorf("memory lacks %q:\n%s", want, got)
		}
	}
}

func TestDeterministicAndBounded(t *testing.T) {
	s := &seq{}
	topics := []string{"parser", "network", "storage", "renderer", "scheduler", "auth", "billing", "search"}
	for i := range 4000 {
		if i%200 == 0 {
			s.human(fmt.Sprintf("implement the %s%d module with %s", topics[(i/200)%len(topics)], i, strings.Repeat("long detail ", 80)))
		}
		if i%50 == 7 {
			s.human("don't use global state, always inject the clock")
		}
		id := fmt.Sprintf("c%d", i)
		switch i % 4 {
		case 0:
			s.run(id, fmt.Sprintf("go test ./internal/p%d/...", i%300), strings.Repeat("noise line\n", 50)+"p_test.go:3: boom "+strings.Repeat("x", 500), i%8)
		case 1:
			s.edit(id, fmt.Sprintf("/w/proj/internal/f%d.go", i%700))
		case 2:
			s.run(id, "rg -n foo pkg", "", 1)
		case 3:
			s.final(strings.Repeat("Done with step because the cache lives in internal/cache. ", 20))
		}
	}
	for _, v := range []string{V1, V2} {
		a := Extract(v, meta("/w/proj"), s.events)
		if b := Extract(v, meta("/w/proj"), s.events); a != b {
			t.Fatalf("%s: output changes between runs", v)
		}
		if len(a.RawMemory) > rawMemoryBudget+500 || len(a.RolloutSummary) > summaryBudget+500 {
			t.Errorf("%s: raw memory %d bytes, summary %d bytes", v, len(a.RawMemory), len(a.RolloutSummary))
		}
		if n := strings.Count(a.RolloutSummary, "\n## Task "); n > maxTasks {
			t.Errorf("%s: %d tasks", v, n)
		}
		if v == V2 && a.RawMemory != "" {
			t.Error("v2 has no raw memory")
		}
	}
	if r := Extract("v9", meta("/x"), s.events); !r.Empty() {
		t.Error("an unknown version gives the empty result")
	}
	if r := Extract(V1, meta("/x"), []sessions.Event{{Kind: sessions.EventAssistant, Text: "hi", Final: true}}); !r.Empty() {
		t.Error("a thread without a human message gives the empty result")
	}
}

func TestSlug(t *testing.T) {
	s := &seq{}
	s.human("create hello.py, md and js").final("Done.")
	if got := Extract(V1, meta("/x"), s.events).Slug; got != "create-hello-py-md-js" {
		t.Errorf("slug %q", got)
	}
	s = &seq{}
	s.human(strings.Repeat("Überlange Anfrage mit Sonderzeichen ", 20)).final("ok")
	if got := Extract(V1, meta("/x"), s.events).Slug; len(got) > maxSlugBytes || strings.ContainsAny(got, "Ü ") {
		t.Errorf("slug %q", got)
	}
}

func TestFilesFromShellQuotes(t *testing.T) {
	for cmd, want := range map[string]string{
		`sed -i 's/expr \$1 - \$2/expr \$1 + \$2/' 'calc.sh'`: "[{calc.sh update}]",
		`rm 'my notes.txt'`:      "[{my notes.txt delete}]",
		`sed -i "s/a/$B/" f.txt`: "[]", // a double-quoted $ may expand to anything
		`rm "$F"`:                "[]",
		`rm *.tmp`:               "[]",
		"cat > types/todo.ts << 'EOF'\nexport type A = 1 > 0\nEOF": "[{types/todo.ts write}]",
		"cat >> notes.md <<EOF\nmore\nEOF":                         "[{notes.md update}]",
		"sed -i 's/a/b/' x.go\nrm y.go":                            "[]",
	} {
		if got := fmt.Sprint(filesFromShell(cmd)); got != want {
			t.Errorf("filesFromShell(%q) = %s, want %s", cmd, got, want)
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
		if got := spawnFailedRE().MatchString(tt.errLine); got != tt.want {
			t.Errorf("spawnFailedRE(%q) = %v, want %v", tt.errLine, got, tt.want)
		}
	}
}

func TestRepeatedFailureKeepsEachErrorLine(t *testing.T) {
	task := newTask("make the checks pass")
	run := func(st status, errLine string) {
		trackFamily(task, &call{command: "mix test", family: "mix test", status: st, errLine: errLine, task: task})
	}
	run(stFailed, "** (RuntimeError) no :secret_key_base configuration found")
	run(stFailed, "Assertion with =~ failed")
	run(stFailed, "Assertion with =~ failed")
	run(stOK, "")
	if len(task.recoveries) != 1 {
		t.Fatalf("recoveries = %d, want 1", len(task.recoveries))
	}
	line := task.recoveries[0].failureLine()
	for _, want := range []string{"failed 3 times (`Assertion with =~ failed`)", "earlier failures printed `** (RuntimeError) no :secret_key_base configuration found`"} {
		if !strings.Contains(line, want) {
			t.Errorf("failure line %q does not say %q", line, want)
		}
	}
}

// A session of many requests that overshoots the raw memory's budget at
// one item a list loses its command references, last task first, before
// the hard cap cuts the middle out of it (issue 25: the middle cut took a
// task's preference and outcome with it). Final answers and preferences
// stay.
func TestOverBudgetDropsCommandRefsFirst(t *testing.T) {
	var doc rawmemory.Doc
	for i := range 10 {
		doc.Tasks = append(doc.Tasks, rawmemory.Task{
			Title: fmt.Sprintf("request %d", i), Outcome: "success",
			Prefs: []string{fmt.Sprintf("“Please dont touch the server by hand (%d).”", i)},
			Refs: []string{"`" + strings.Repeat("x", 600) + "` (ran 1×)",
				finalAnswerRef + fmt.Sprintf("“Request %d is done.”", i)},
		})
	}
	const budget = 4000
	if len(rawmemory.Render(doc)) <= budget {
		t.Fatal("the test memory fits already")
	}
	got := rawmemory.Render(withoutRefs(doc, budget))
	if len(got) > budget {
		t.Errorf("still %d bytes, budget %d", len(got), budget)
	}
	for i := range 10 {
		for _, want := range []string{fmt.Sprintf("touch the server by hand (%d)", i), fmt.Sprintf("Request %d is done.", i)} {
			if !strings.Contains(got, want) {
				t.Errorf("lost %q", want)
			}
		}
	}
	if !strings.Contains(got, strings.Repeat("x", 600)) {
		t.Error("dropped every command reference; the first tasks' fit within the budget")
	}
}
