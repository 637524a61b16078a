package memmodel

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

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
// told by how its message opens (a yes, an approval, a choice) or by
// naming an offered option; a sentence that says it stands ("always",
// "never", "from now on") is a rule whatever it answers.

var (
	// replyOpening opens a message that answers the agent: a yes, an
	// approval, a pick, in the languages users write in. A "no" opens a
	// correction as often, and a correction ("no, use pnpm: this repo is
	// a pnpm workspace") is a rule more often than not: it stays.
	replyOpening = lazyre.New(`(?i)^\W*((yes|yeah|yep|yup|ok|okay|sure|great|good|perfect|fine|agreed|exactly|lgtm|sounds good|looks good|` +
		`let'?s (go|do|use|try|pick)|go (with|for|ahead)|i('d| would) (prefer|rather|pick|choose|take|go with)|i('ll| will) (pick|choose|take|go with)|` +
		`the (first|second|third|last|other|former|latter)|oui|d'accord|sí|vale|claro|ja|genau|sim)\b|` +
		`(#?\d{1,2}|[a-d])([.):,]|$)|好的|可以|是的)`)
	// offeredOption names one of the options the agent offered.
	offeredOption = lazyre.New(`(?i)\b(option|choice|alternative|approach|variant|proposal)\s*(#?\d+|[a-d])\b|` +
		`\bthe (first|second|third|last|other|former|latter) (one|option|approach|choice|proposal)\b`)
	// statesItStands marks a rule that says it holds beyond the moment.
	statesItStands = lazyre.New(`(?i)\b(always|never|from now on|going forward|every time|each time|whenever|by default|in (the )?future|next time|at all times|` +
		`toujours|jamais|d[ée]sormais|siempre|nunca|a partir de ahora|immer|nie|niemals|ab jetzt|sempre|a partir de agora)\b|总是|始终|永远|以后|今后|从现在开始`)
)

// dropAnswerPrefs removes from every memory the preferences that are the
// user's reply to the agent rather than a standing rule: the message that
// holds one (found among the task's quoted messages, else the preference
// alone) opens as a reply and the preference is of its first sentences,
// or the preference names an offered option, and it does not say it
// stands. A memory the user wrote keeps every word.
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

// An answer of the agent quoted with the user's reply tells the next agent
// what stood. Three things in it tell nothing: a reply of one short word
// ("yes", "p", "proceed"), which says nothing without the question it
// answered, unless it picks an option the answer names ("A" after "Option
// A — …"); an image's stand-in, "[image omitted]", in place of the user's
// words; and an answer that only lays out options with no reply that
// chose among them.

const (
	// repliedLabel joins an answer and the user's reply in an offline
	// memory's item.
	repliedLabel = "; the user replied: “"
	// ImageOmitted is what the session readers put where the user sent an
	// image.
	ImageOmitted = "[image omitted]"
	// maxAssentRunes bounds a reply of one word that says nothing alone.
	maxAssentRunes = 8
)

// optionLabel opens a part of an answer that lays out one option.
var optionLabel = lazyre.New(`(?i)^\W*((option|choice|approach|alternative|variant)\s*(#?\d|[a-d])\b|(\d|[a-d])[.)]\s)`)

// tidyAnswers rewrites the quoted answers of every offline memory
// (tidyAnswer) and drops those that only offer options.
func tidyAnswers(mems []Memory) {
	for i := range mems {
		if !mems[i].Offline || mems[i].Sel.UserAsserted {
			continue
		}
		for j := range mems[i].Tasks {
			t := &mems[i].Tasks[j]
			var out []string
			for _, k := range t.Knowledge {
				if k, keep := tidyAnswer(k); keep {
					out = append(out, k)
				}
			}
			t.Knowledge = out
		}
	}
}

// tidyAnswer is an item without a reply that tells nothing, and whether
// it stays: an answer that only offers options, with no reply, goes.
func tidyAnswer(item string) (string, bool) {
	if !strings.HasPrefix(item, earlierAnswer) && !strings.HasPrefix(item, finalAnswer) {
		return item, true
	}
	answer, reply, replied := strings.Cut(item, repliedLabel)
	if replied {
		r := strings.TrimSpace(strings.ReplaceAll(strings.TrimSuffix(reply, "”"), ImageOmitted, ""))
		switch {
		case r == "" || Assent(r) && !names(answer, r):
			item, replied = answer, false
		default:
			item = answer + repliedLabel + r + "”"
		}
	}
	return item, replied || !offersOnly(answer)
}

// Assent reports a reply of one short word ("yes", "ok", "p", "proceed"),
// which says nothing without the question it answered.
func Assent(r string) bool {
	return !strings.ContainsAny(r, " /.`") && len([]rune(r)) <= maxAssentRunes
}

// names reports an answer that names the option a reply picks ("A",
// "2"): "Option A" anywhere, or a part that opens "A)" or "2.".
func names(answer, pick string) bool {
	if len([]rune(pick)) > 2 {
		return false
	}
	l, pick := strings.ToLower(answer), strings.ToLower(pick)
	for _, w := range []string{"option", "choice", "approach", "alternative", "variant"} {
		for _, sep := range []string{" ", " #"} {
			if i := strings.Index(l, w+sep+pick); i >= 0 && !wordGoesOn(l[i+len(w+sep+pick):]) {
				return true
			}
		}
	}
	for _, part := range answerParts(l) {
		if m := optionLabel().FindStringSubmatch(part); m != nil && m[4] == pick {
			return true
		}
	}
	return false
}

// wordGoesOn reports a text that opens with a letter or digit: the word
// before it is not over.
func wordGoesOn(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// offersOnly reports an answer that lays out two options or more and
// says little else: half of its parts at least open on an option.
func offersOnly(answer string) bool {
	parts := answerParts(answer)
	n := 0
	for _, p := range parts {
		if optionLabel().MatchString(p) {
			n++
		}
	}
	return n >= 2 && 2*n >= len(parts)
}

// answerParts splits a quoted answer into the sentences and list items
// the extractor joined.
func answerParts(answer string) []string {
	_, q, _ := strings.Cut(answer, "“")
	return strings.FieldsFunc(strings.TrimSuffix(q, "”"), func(r rune) bool { return r == ';' })
}
