package heuristic

import (
	"fmt"
	"slices"
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
// the hard cap cuts the middle out of it (the middle cut took a
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

// A preference is the user's standing rule, not the request itself: a
// conditional spec of the program is none unless it says it stands, and
// a ban of a word or two is none unless it names a program.
func TestPreferencesOfOneMessage(t *testing.T) {
	tests := []struct {
		message string
		want    []string
	}{
		{"if error is type of cli.SilentError, do not print anything.", nil},
		{"When committing, always use conventional commits.", []string{"When committing, always use conventional commits."}},
		{"When a test fails, never skip it.", []string{"When a test fails, never skip it."}},
		{"If you touch the schema, run the migrations first because staging breaks otherwise.",
			nil}, // no rule word: a request, however it is phrased
		{"dont run", nil},
		{"Don't use yarn.", []string{"Don't use yarn."}},
		{"don't use pytest here, use the tox envs", []string{"don't use pytest here, use the tox envs"}},
	}
	for _, tt := range tests {
		var got []string
		for _, p := range preferences(normQuotes(tt.message), false) {
			got = append(got, p.text)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("preferences(%q) = %q, want %q", tt.message, got, tt.want)
		}
	}
}

// What a finding is: a sentence that states something, not the frame of
// a plan, a caption, an estimate or a claim still to verify.
func TestFindingOrNot(t *testing.T) {
	tests := []struct {
		sentence string
		finding  bool
	}{
		// the frame of a plan
		{"Phase 2: Claude Implementation (7 steps)", false},
		{"Next steps: proceed to `/speckit.plan` using the delivered spec as the baseline.", false},
		{"Estimated effort: 3-4 hours (1 field + processor update + tests)", false},
		{"Total Effort: 15-23 developer days", false},
		{"Token location: `event_msg` with `type: \"token_count\"` (needs verification)", false},
		{"Next.js 14 with TypeScript, Tailwind CSS, and ESLint", false},
		{"Should the close step also lock the month？", false},
		// a label over a clause, a duration with no estimate: findings
		{"Conclusion: the race comes from t.Parallel in `settle_test.go` sharing one DB.", true},
		{"Step 3 broke: the seed script inserts users before orgs in `seed.sql`.", true},
		{"Redis keys in `cache.go` expire after 12-24 hours, so stale sessions linger.", true},
		{"Runtime: Node.js ≥24.0.0, TypeScript 5.3+ (ES2024)", true},
		{"Vite hot reload broke after the upgrade to 5.2 in `vite.config.ts`.", true},
		{"The handler isn't retried because `retry.go` only wraps GET requests.", true},
	}
	for _, tt := range tests {
		if got := findingScore(normQuotes(tt.sentence)) > 0; got != tt.finding {
			t.Errorf("findingScore(%q) > 0 = %v, want %v", tt.sentence, got, tt.finding)
		}
	}
}
