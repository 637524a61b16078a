package heuristic_test

import (
	"testing"

	"github.com/memctl/memctl/internal/sessions/scripted"
)

// TestRepeatedSentencesStand: a sentence the user ends two different messages with is a standing instruction
// even in no rule's words; a message sent again whole, and a nudge said twice, are not.
func TestRepeatedSentencesStand(t *testing.T) {
	const rule = "Keep the exported names of the lexer package as they are."
	checkPatterns(t, []patternCase{
		{
			name: "a sentence said in two different messages is kept once as a rule",
			turns: []scripted.Turn{
				{User: "Split the tokenizer into its own file. " + rule, Final: "The tokenizer is in tokens.go."},
				{User: "Give the scanner a line counter. " + rule, Final: "The scanner counts lines."},
				{User: "Report column numbers in the errors. " + rule, Final: "Errors carry a column."}},
			must:    []string{"Preference signals:\n- “Keep the exported names of the lexer package as they are\\.”"},
			mustNot: []string{`“Keep the exported names[^\n]*”\n- “Keep the exported names`},
		},
		{
			name: "a sentence said again in another task stands for the session, kept once",
			turns: []scripted.Turn{
				{User: "Split the tokenizer into its own file. " + rule, Final: "The tokenizer is in tokens.go."},
				{User: "Write a README section describing installation with Homebrew, the release tarball, checksum " +
					"verification, shell completions and man pages. " + rule, Final: "The README has an install section."},
				{User: "Draft release notes covering deprecations, migration hints, contributors, benchmark numbers " +
					"and security fixes. " + rule, Final: "The notes are drafted."}},
			must: []string{"## Task 2: Write a README section[^\n]*\n(.*\n){0,4}Preference signals:\n- “Keep the exported"},
			mustNot: []string{"## Task 3: Draft release notes[^\n]*\n(.*\n){0,4}Preference signals:\n- “Keep the exported",
				"## Task 1: Split the tokenizer[^\n]*\n(.*\n){0,4}Preference signals:\n- “Keep the exported"},
		},
		{
			guard: true, name: "a message sent again whole repeats no rule",
			turns: []scripted.Turn{
				{User: "Move the retry loop into the fetcher. Log each attempt with its delay.", Final: "Done."},
				{User: "Move the retry loop into the fetcher. Log each attempt with its delay.", Final: "Moved."}},
			mustNot: []string{`Preference signals:\n- “`},
		},
		{
			guard: true, name: "a nudge said twice is no rule",
			turns: []scripted.Turn{
				{User: "Convert the settings page to the new form layout.", Final: "Half of the fields are moved."},
				{User: "The labels look right. Ok, go on then.", Final: "The rest of the fields are moved."},
				{User: "Now the profile page. Ok, go on then.", Final: "The profile page uses it too."}},
			mustNot: []string{`Preference signals:\n- “`},
		},
	})
}
