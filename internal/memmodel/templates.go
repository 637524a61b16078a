package memmodel

import (
	"slices"
	"strings"

	"github.com/memctl/memctl/internal/lazyre"
)

// A prompt template is not a preference. A slash command's or a custom
// prompt's body, or an agent persona's activation prompt, reaches a
// transcript as the user's message, and an extractor that reads the
// user's standing rules from their messages can hand one in as a
// preference: every session that ran the command then "prefers" the same
// long text. The folder keeps the user's rules, so the consolidator drops
// a preference that is a template's text, by what a template has and a
// rule typed by hand does not: a placeholder left to fill, a Markdown
// heading, a persona's opening ("You are a …", an activation notice) in a
// long text or one that several sessions repeat word for word, or a
// numbered slot ($1) in a long text. A rule the user restates word for
// word in every session is still a rule.

const (
	// templateWords is the length from which a preference that opens as
	// a persona or has a numbered slot is taken for a template: a rule is
	// a sentence or two.
	templateWords = 30
	// templateSessions is how many sessions repeating a persona's opening
	// word for word make it a template's, however short.
	templateSessions = 3
)

var (
	// templatePlaceholder is a slot a template leaves to fill: $ARGUMENTS
	// of Claude Code's commands and Codex's prompts, {{name}}.
	templatePlaceholder = lazyre.New(`\$ARGUMENTS\b|\{\{\s*[\w.-]+\s*\}\}`)
	// templatePositional is a numbered slot ($1…$9), which a short rule
	// may read as a price: it counts in a long text only.
	templatePositional = lazyre.New(`\$[1-9]\b`)
	// templateHeading is a Markdown heading, at the start of the item (or
	// of its quote) or inside it where the template's lines were joined.
	templateHeading = lazyre.New(`(^|[\s"“'])#{1,6} [A-Za-z*]`)
	// templatePersona opens an agent persona's activation prompt: "You
	// are a …", "You are <Name>, …", "Act as …", an activation notice.
	templatePersona = lazyre.New(`^\W*(?:(?i:you are (?:a|an|the)|act as|your role is|activate|activation)\b|You are [A-Z]\w*[,.])`)
)

// isTemplatePref reports whether a preference is a prompt template's
// text; sessions is how many sessions' preferences state it word for word.
func isTemplatePref(pref string, sessions int) bool {
	if templatePlaceholder().MatchString(pref) || templateHeading().MatchString(pref) {
		return true
	}
	long := len(strings.Fields(pref)) >= templateWords
	if templatePersona().MatchString(pref) {
		return long || sessions >= templateSessions
	}
	return long && templatePositional().MatchString(pref)
}

// dropTemplatePrefs removes from every memory the preferences that are a
// prompt template's text (isTemplatePref). A memory the user wrote keeps
// every word.
func dropTemplatePrefs(mems []Memory) {
	sessions := map[string]map[string]bool{}
	for _, m := range mems {
		for _, t := range m.Tasks {
			for _, p := range t.Prefs {
				k := NormKey(p)
				if sessions[k] == nil {
					sessions[k] = map[string]bool{}
				}
				sessions[k][m.Sel.ThreadID] = true
			}
		}
	}
	for i := range mems {
		if mems[i].Sel.UserAsserted {
			continue
		}
		for j := range mems[i].Tasks {
			t := &mems[i].Tasks[j]
			t.Prefs = slices.DeleteFunc(slices.Clone(t.Prefs), func(p string) bool {
				return isTemplatePref(p, len(sessions[NormKey(p)]))
			})
		}
	}
}
