package prompttemplate_test

import (
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/extract/heuristic"
	"github.com/memctl/memctl/internal/sessions"
)

// TestExtractorTakesNoTemplateForTheUsersWords: the offline extractor
// asks the shared predicate, so a persona's activation prompt that does
// not open "You are …" and a slash command's expanded body give no
// preference, no correction and no "user's next message", while the
// user's own rule beside them stays. Synthetic sessions.
func TestExtractorTakesNoTemplateForTheUsersWords(t *testing.T) {
	persona := "Take on the persona set out below and follow its start-up steps exactly as written.\n<persona-start>\n" +
		"1. Always read the settings file the team keeps for this persona first.\n2. Greet the user by the name found there.\n" +
		"3. Show the numbered menu and WAIT for a choice.\n</persona-start>\nNEVER leave the persona until the exit command. Never write files without asking."
	command := "# /tidy — Purpose: clean the module\nNever edit generated files. Run the formatter, then the linter, and fix what they report in the files the user names."
	for _, c := range []struct {
		name  string
		turns [][2]string // the user's message, the agent's final answer
		must  []string
		not   []string
	}{
		{"a persona's activation opening the session", [][2]string{
			{persona, "Hello, I am Ada. 1. Plan 2. Review."},
			{"Review the retry loop in fetch/retry.go and never use sleep in tests.", "The retry loop backs off exponentially."}},
			[]string{"- “Review the retry loop in fetch/retry.go and never use sleep in tests.”"},
			[]string{"- “Always read the settings", "- “NEVER leave", "- “Never write files"}},
		{"a slash command's body after an answer", [][2]string{
			{"Add a changelog entry for the export flag.", "CHANGELOG.md lists the export flag."},
			{command, "The module is formatted and lint-clean."}},
			nil,
			[]string{"- “Never edit generated files", "the user's next message: “# /tidy", "pushed back", "corrected the agent"}},
	} {
		x := heuristic.New(heuristic.V1, sessions.Meta{Kind: sessions.KindCodex, ID: "t-" + c.name, Interactive: true, Cwd: "/home/dev/src/app"})
		at := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
		for i, turn := range c.turns {
			x.Add(sessions.Event{Kind: sessions.EventHuman, Text: turn[0], Time: at.Add(time.Duration(2*i) * time.Minute)})
			x.Add(sessions.Event{Kind: sessions.EventAssistant, Text: turn[1], Final: true, Time: at.Add(time.Duration(2*i+1) * time.Minute)})
		}
		res := x.Result()
		text := res.RawMemory + "\n" + res.RolloutSummary
		for _, s := range c.must {
			if !strings.Contains(text, s) {
				t.Errorf("%s: the memory lacks %q:\n%s", c.name, s, text)
			}
		}
		for _, s := range c.not {
			if strings.Contains(text, s) {
				t.Errorf("%s: the memory says %q:\n%s", c.name, s, text)
			}
		}
	}
}
