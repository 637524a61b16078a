package heuristic_test

import (
	"testing"

	"github.com/memctl/memctl/internal/sessions/scripted"
)

// TestRuleKeepsItsParagraph: a standing rule stated in a paragraph of several sentences is kept whole, verbatim,
// on one "Preference signals" line: a rule that opens its paragraph takes the one or two sentences after it that
// give its reason or narrow its scope (they speak of the user or to the agent, or open "Only …"), though they carry
// no rule word. What ends it: a blank line, a question, another rule, a sentence that turns to the work at hand
// ("Now …"), a list item, and a length bound; a rule said after a request in its paragraph is an aside to the
// request and is kept alone, as is a rule in a list.
func TestRuleKeepsItsParagraph(t *testing.T) {
	read := run("cat parser/parse.go", "package parser\n\nfunc Parse(s string) []string { return nil }", 0)
	checkPatterns(t, []patternCase{
		{
			pattern: 5, name: "a rule's reason and scope after it, with no rule word, are kept with it",
			turns: []scripted.Turn{{User: "I don't want you to write any code for me. I am trying to learn here! " +
				"Review what I write and point me in the right direction.",
				Steps: []scripted.Step{read}, Final: "Parse returns nil for every input; start with the loop over the runes."}},
			must: []string{"Preference signals:\n- “I don't want you to write any code for me\\. I am trying to learn here! " +
				"Review what I write and point me in the right direction\\.”\n"},
		},
		{
			pattern: 5, name: "a rule narrowed by one-off words keeps them; the question after a blank line is no part of it",
			turns: []scripted.Turn{{User: "I don't want you to make any changes. Only answer questions for this session." +
				"\n\nWhy does Parse drop the last token?",
				Steps: []scripted.Step{read}, Final: "Parse stops one rune early, so the last token is never flushed."}},
			must: []string{"Preference signals:\n- “I don't want you to make any changes\\. " +
				"Only answer questions for this session\\.”\n"},
			mustNot: []string{`Preference signals:\n- [^\n]*drop the last token`},
		},
		{
			pattern: 5, guard: true, name: "a request for now after a rule is not carried with it",
			turns: []scripted.Turn{{User: "Always run the linter before you commit. Now fix the login bug in auth.go.",
				Steps: []scripted.Step{edit("auth.go", "if ok {", "if !ok {")}, Final: "The login check was inverted."}},
			must: []string{"Preference signals:\n- “Always run the linter before you commit\\.”\n"},
		},
		{
			pattern: 5, guard: true, name: "a rule after a request in its paragraph stands alone",
			turns: []scripted.Turn{{User: "Add a settings page for the theme. I don't want a dark mode toggle on it. " +
				"Put it under the account menu.",
				Steps: []scripted.Step{edit("web/settings.tsx", "", "export function Settings() { return null }\n")},
				Final: "The settings page is under the account menu."}},
			must: []string{"Preference signals:\n- “I don't want a dark mode toggle on it\\.”\n"},
		},
		{
			pattern: 5, name: "a long paragraph after a rule is cut by whole sentences, two at most",
			turns: []scripted.Turn{{User: "Never commit to the main branch. We deploy it on every push. " +
				"I review everything on a branch. You can open as many branches as you like.",
				Steps: []scripted.Step{run("git status", "On branch main", 0)}, Final: "You are on main with no changes."}},
			must: []string{"Preference signals:\n- “Never commit to the main branch\\. We deploy it on every push\\. " +
				"I review everything on a branch\\.”\n"},
		},
		{
			pattern: 5, guard: true, name: "the items of a list are each their own",
			turns: []scripted.Turn{{User: "- never edit the generated files\n- regenerate them with make gen\n- keep the diff small",
				Steps: []scripted.Step{run("make gen", "ok", 0)}, Final: "Regenerated."}},
			must: []string{"Preference signals:\n- “never edit the generated files”\n"},
		},
	})
}
