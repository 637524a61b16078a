package memmodel

import (
	"slices"

	"github.com/memctl/memctl/internal/prompttemplate"
)

// A prompt template is not a preference. A slash command's or a custom
// prompt's body, or an agent persona's activation prompt, reaches a
// transcript as the user's message, and an extractor that reads the
// user's standing rules from their messages can hand one in as a
// preference: every session that ran the command then "prefers" the same
// long text. The folder keeps the user's rules, so a preference that is a
// template's text (prompttemplate.Is) is dropped, whatever the extractor
// handed in. A preference is one sentence seen apart from its message:
// that several sessions state it word for word is no sign of a template,
// for a rule the user restates in every session is still a rule.

// dropTemplatePrefs removes from every memory the preferences that are a
// prompt template's text. A memory the user wrote keeps every word.
func dropTemplatePrefs(mems []Memory) {
	for i := range mems {
		if mems[i].Sel.UserAsserted {
			continue
		}
		for j := range mems[i].Tasks {
			t := &mems[i].Tasks[j]
			t.Prefs = slices.DeleteFunc(slices.Clone(t.Prefs), func(p string) bool {
				return prompttemplate.Is(prompttemplate.Message{Text: p})
			})
		}
	}
}
