package memmodel

import (
	"slices"
	"strings"

	"github.com/memctl/memctl/internal/lazyre"
	"github.com/memctl/memctl/internal/rawmemory"
)

// The folder's preferences are the user's standing rules. An extractor
// reads a preference from a sentence's words ("prefer", "instead of",
// "don't"), and a reply to the agent has them too: "I prefer option 2",
// "ok, use the second approach instead of the cache", "great, don't
// commit until the last step" choose among what the agent offered or steer
// the step at hand, and say nothing of how to work next time. Such a reply
// stays quoted with its task in MEMORY.md; it is no preference. A reply is
// told by how its message opens (a yes or no, an approval, a choice) or by
// naming an offered option; a sentence that says it stands ("always",
// "never", "from now on") is a rule whatever it answers.

var (
	// replyOpening opens a message that answers the agent: a yes or no,
	// an approval, a pick, in the languages users write in.
	replyOpening = lazyre.New(`(?i)^\W*((yes|yeah|yep|yup|ok|okay|sure|great|good|perfect|fine|agreed|exactly|lgtm|sounds good|looks good|` +
		`let'?s (go|do|use|try|pick)|go (with|for|ahead)|i('d| would) (prefer|rather|pick|choose|take|go with)|i('ll| will) (pick|choose|take|go with)|` +
		`the (first|second|third|last|other|former|latter)|oui|d'accord|sí|vale|claro|ja|genau|sim)\b|` +
		`(no|nope|non|nein|n[ãa]o|right)\s*([,.!;:\x{2014}\x{2013}-]|$)|(#?\d{1,2}|[a-d])([.):,]|$)|好的|可以|是的)`)
	// offeredOption names one of the options the agent offered.
	offeredOption = lazyre.New(`(?i)\b(option|choice|alternative|approach|variant|proposal)\s*(#?\d+|[a-d])\b|` +
		`\bthe (first|second|third|last|other|former|latter) (one|option|approach|choice|proposal)\b`)
	// statesItStands marks a rule that says it holds beyond the moment.
	statesItStands = lazyre.New(`(?i)\b(always|never|from now on|going forward|every time|each time|whenever|by default|in (the )?future|next time|at all times|` +
		`toujours|jamais|d[ée]sormais|siempre|nunca|a partir de ahora|immer|nie|niemals|ab jetzt|sempre|a partir de agora)\b|总是|始终|永远|以后|今后|从现在开始`)
)

// dropAnswerPrefs removes from every offline memory the preferences
// that are the user's reply to the agent rather than a standing rule: the
// message that holds one (found among the task's quoted messages, else
// the preference alone) opens as a reply and the preference is of its
// first sentences, or the preference names an offered option, and it
// does not say it stands. A memory the user wrote
// keeps every word.
func dropAnswerPrefs(mems []Memory) {
	for i := range mems {
		m := &mems[i]
		if m.Sel.UserAsserted {
			continue
		}
		for j := range m.Tasks {
			var asked []string
			if j < len(m.Asked) {
				asked = m.Asked[j]
			}
			t := &m.Tasks[j]
			t.Prefs = slices.DeleteFunc(slices.Clone(t.Prefs), func(p string) bool { return isAnswer(p, asked) })
		}
	}
}

// isAnswer reports a preference that replies to the agent; asked are its
// task's quoted messages. Of a message that opens as a reply, the
// preferences in its first sentences are the reply.
func isAnswer(pref string, asked []string) bool {
	p := strings.Trim(strings.TrimSpace(pref), "“”\"")
	if statesItStands().MatchString(p) {
		return false
	}
	if offeredOption().MatchString(p) {
		return true
	}
	for _, s := range asked {
		w := strings.Trim(strings.TrimPrefix(strings.TrimPrefix(s, rawmemory.StepAsked), rawmemory.StepFollowUp), "“” ")
		if at := strings.Index(NormKey(w), NormKey(p)); at >= 0 {
			return replyOpening().MatchString(w) && sentencesIn(NormKey(w)[:at]) < replySentences
		}
	}
	return replyOpening().MatchString(p)
}

// replySentences is how many sentences of a message that opens as a reply
// the reply takes: what follows is the user's next instruction, which may
// be a rule ("ok, go ahead. Never run the migrations by hand.").
const replySentences = 2

// sentencesIn counts the sentences a text ends.
func sentencesIn(s string) int {
	n := 0
	for _, end := range []string{". ", "? ", "! "} {
		n += strings.Count(s, end)
	}
	return n
}
