package consolidate

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/memdir"
)

// TestCommandTemplateQuotedByItsInput: a session whose user ran a custom
// command three times (the transcript holds its template, expanded, each
// time with other input), then asked two questions in their own words.
// MEMORY.md heads each task by what the user gave the command, quotes the
// template once and each message by its own part; the two questions,
// which open alike but share no template, are quoted as they stand.
func TestCommandTemplateQuotedByItsInput(t *testing.T) {
	const body = " ``` Read the arguments first, then follow every step of the release checklist below in order."
	release := func(input string) string { return "## Arguments ```text " + input + body }
	const fixLogin, fixLint = "can you please fix the failing login test in auth_test.go", "can you please fix the lint warnings in the session store too"
	task := func(n, title, outcome, knowledge string) string {
		return "### Task " + n + ": " + title + "\ntask: " + title + "\ntask_outcome: " + outcome + "\n\nReusable knowledge:\n- " + knowledge + "\n\n"
	}
	raw := "---\ndescription: release\ntask_outcome: uncertain\ncwd: /home/dev/src/shop\nkeywords: release\nwritten_by: memctl heuristic\n---\n\n" +
		task("1", release("v1.2.0")[:100]+"…", "uncertain", "Final answer: “Tagged v1.2.0.”") +
		task("2", release("")[:100]+"…", "uncertain", "Final answer: “Nothing to release.”") +
		task("3", fixLogin, "uncertain", "Final answer: “The test expected the old cookie name.”")
	steps := func(n, title string, msgs ...string) string {
		return "## Task " + n + ": " + title + "\n\nOutcome: uncertain (the assistant answered but nothing confirms the result)\n\nKey steps:\n- " + strings.Join(msgs, "\n- ") + "\n\n"
	}
	summary := "# release in shop\n\n" +
		steps("1", "release", "The user asked: “"+release("v1.2.0")+"”") +
		steps("2", "release", "The user asked: “"+release("")+" ## Steps 1.”", "Follow-up from the user: “"+release("v1.2.1 hotfix")+" ## Steps 1.”") +
		steps("3", fixLogin, "The user asked: “"+fixLogin+"”", "Follow-up from the user: “"+fixLint+"”")
	root := runHeuristic(t, "v1", []Selected{{ThreadID: "rel", SourceUpdatedAt: 1785840059, Cwd: "/home/dev/src/shop", RolloutSlug: "rel",
		RawMemory: raw, RolloutSummary: summary}})
	handbook := readFile(t, filepath.Join(root, memdir.MemoryFile))
	for what, n := range map[string]int{
		"## Task 1: v1.2.0 (through a command template), uncertain\n":                         1,
		"## Task 2: a command template with no input of its own, uncertain\n":                 1,
		"- The user asked through the command template":                                       0, // nor this: the heading gives it
		"- Follow-up from the user through the command template: “v1.2.1 hotfix”\n":           1,
		"- The command template the messages below fill in: “## Arguments ```text … ``` Read": 1,
		"## Task 3: " + fixLogin + ", uncertain\n":                                            1,
		"- Follow-up from the user: “" + fixLint + "”\n":                                      1,
		"```text v1.2": 0,
	} {
		if got := strings.Count(handbook, what); got != n {
			t.Errorf("MEMORY.md says %q %d times, want %d:\n%s", what, got, n, handbook)
		}
	}
}

// TestFindTemplates: which of a session's messages fill in one template.
func TestFindTemplates(t *testing.T) {
	const tail = " then follow every step of the checklist below in order and report each result"
	for _, c := range []struct {
		name string
		msgs []string
		want map[string]string // message → its own part
	}{
		{"instances", []string{"## Input ```text Phase 1 ```" + tail, "## Input ```text ```" + tail},
			map[string]string{"## Input ```text Phase 1 ```" + tail: "Phase 1", "## Input ```text ```" + tail: ""}},
		{"messages that only open alike", []string{
			"can you please fix the failing login test in auth_test.go and tell me why it broke after the merge",
			"can you please fix the lint warnings in the session store and then run the whole suite once more"}, nil},
		{"one message said twice", []string{"## Input ```text ```" + tail, "## Input ```text ```" + tail}, nil},
		{"a long message of its own in a template is no template", []string{
			"## Input ```text " + strings.Repeat("a different request of many words ", 6) + "```" + tail, "## Input ```text ```" + tail},
			map[string]string{"## Input ```text ```" + tail: ""}},
	} {
		got := findTemplates(c.msgs)
		if len(got) != len(c.want) {
			t.Errorf("%s: %d templated, want %d: %+v", c.name, len(got), len(c.want), got)
		}
		for m, input := range c.want {
			if use, ok := got.of(m); !ok || use.input != input {
				t.Errorf("%s: %q → %+v, %v; want own part %q", c.name, m, use, ok, input)
			}
		}
	}
}

// TestTemplateSentOnceQuotedByItsOpening: a session opened by an agent
// persona's activation prompt (a list of steps in markup, no "You are"),
// sent once, then a request of the user's own. MEMORY.md names the
// template once by its opening instead of quoting it whole as the user's
// words, and quotes the user's request as it stands.
func TestTemplateSentOnceQuotedByItsOpening(t *testing.T) {
	const persona = "Take on the persona set out below and follow its start-up steps exactly as written. <persona-start> " +
		"1. Read the settings file the team keeps for this persona first. 2. Greet the user by the name found there. " +
		"3. Show the numbered menu and WAIT for a choice. </persona-start> NEVER leave the persona until the exit command."
	const request = "review the retry loop in fetch/retry.go"
	raw := "---\ndescription: persona\ntask_outcome: uncertain\ncwd: /home/dev/src/app\nkeywords: persona\nwritten_by: memctl heuristic\n---\n\n" +
		"### Task 1: Take on the persona set out below\ntask: Take on the persona set out below\ntask_outcome: uncertain\n\nReusable knowledge:\n- Final answer: “Hello.”\n\n"
	summary := "# persona in app\n\n## Task 1: persona\n\nOutcome: uncertain (the assistant answered)\n\nKey steps:\n- The user asked: “" + persona +
		"”\n- Follow-up from the user: “" + request + "”\n\n"
	root := runHeuristic(t, "v1", []Selected{{ThreadID: "p", SourceUpdatedAt: 1785840059, Cwd: "/home/dev/src/app", RolloutSlug: "p",
		RawMemory: raw, RolloutSummary: summary}})
	handbook := readFile(t, filepath.Join(root, memdir.MemoryFile))
	for what, n := range map[string]int{
		"- A template or document the user sent, its opening: “Take on the persona set out below": 1,
		"WAIT for a choice": 0,
		"- Follow-up from the user: “" + request + "”": 1,
	} {
		if got := strings.Count(handbook, what); got != n {
			t.Errorf("MEMORY.md says %q %d times, want %d:\n%s", what, got, n, handbook)
		}
	}
}

// TestUserMessagesLeaveOutImageStandIns: the stand-in a reader puts where
// the user sent an image says nothing; the words sent with it stay.
func TestUserMessagesLeaveOutImageStandIns(t *testing.T) {
	got := userMessages([]string{
		"The user asked: “fix the footer”",
		"Follow-up from the user: “[image omitted]”",
		"Follow-up from the user: “[image omitted] it still overlaps on mobile”",
		"Follow-up from the user: “[image omitted] [image omitted]”",
	}, "")
	want := []string{"The user asked: “fix the footer”", "Follow-up from the user: “it still overlaps on mobile”"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("user_messages\n%q\nwant\n%q", got, want)
	}
}

// TestAlikeTasksHeadedOnce: three tasks in a row ran one command template
// with no input of their own and have nothing else to show; MEMORY.md
// heads them once, with a count, and lists each one's answer under that
// task, while the next task, which gave the template an input, keeps a
// heading and number of its own.
func TestAlikeTasksHeadedOnce(t *testing.T) {
	tmpl := func(input string) string {
		return "## Input ```text " + input + " ``` then follow every step of the checklist below in order and report each result"
	}
	task := func(n, title, answer string) string {
		return "### Task " + n + ": " + title + "\ntask: " + title + "\ntask_outcome: uncertain\n\nReusable knowledge:\n- Final answer: “" + answer + "”\n\n"
	}
	raw := "---\ndescription: steps\ntask_outcome: uncertain\ncwd: /home/dev/src/app\nkeywords: steps\nwritten_by: memctl heuristic\n---\n\n" +
		task("1", "plan", "Wrote the plan.") + task("2", "plan", "Wrote the tasks.") + task("3", "plan", "Wrote the checklist.") + task("4", "Phase 2", "Built phase 2.")
	steps := func(n, msg string) string {
		return "## Task " + n + ": x\n\nOutcome: uncertain (the assistant answered)\n\nKey steps:\n- The user asked: “" + msg + "”\n\n"
	}
	summary := "# steps in app\n\n" + steps("1", tmpl("")) + steps("2", tmpl("")) + steps("3", tmpl("")) + steps("4", tmpl("Phase 2"))
	root := runHeuristic(t, "v1", []Selected{{ThreadID: "s", SourceUpdatedAt: 1785840059, Cwd: "/home/dev/src/app", RolloutSlug: "s",
		RawMemory: raw, RolloutSummary: summary}})
	handbook := readFile(t, filepath.Join(root, memdir.MemoryFile))
	for what, n := range map[string]int{
		"## Task 1: a command template with no input of its own, uncertain (3 tasks alike)\n": 1,
		"## Task 2: Phase 2 (through a command template), uncertain\n":                        1,
		"## Task 3": 0,
		"- Final answer: “Wrote the checklist.” [Task 1]\n": 1,
		"- Final answer: “Built phase 2.” [Task 2]\n":       1,
	} {
		if got := strings.Count(handbook, what); got != n {
			t.Errorf("MEMORY.md says %q %d times, want %d:\n%s", what, got, n, handbook)
		}
	}
}
