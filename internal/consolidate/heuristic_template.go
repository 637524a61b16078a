package consolidate

import (
	"slices"
	"strings"

	"github.com/memctl/memctl/internal/prompttemplate"
	"github.com/memctl/memctl/internal/rawmemory"
	"github.com/memctl/memctl/internal/textcut"
)

// A custom prompt or a slash command reaches a transcript expanded: the
// user typed "/implement Phase 2" and the session records the command's
// whole template with "Phase 2" somewhere in it. Quoted as it stands, each
// such message reads as the same long template, in a task's heading and
// in its user_messages, and what the user asked for is lost in it. The
// offline consolidator asks prompttemplate.Is of each message, telling it
// when another message of the session fills in the same template (the
// same opening words, then after a part of its own the same run of words
// again), and quotes each such message by its own part and the template
// once. A template sent once (a persona's activation prompt) has no part
// that can be told for its own: it is quoted once, by its opening.

const (
	templateOpening = 3  // words the instances of a template open with alike, at least
	templateRun     = 6  // words that must agree again after a message's own part
	templateShared  = 12 // words of template, opening and run, at least
)

// templated is what a session's messages that fill in a template say:
// by message, its own part ("" when it has none) and the template, with
// that part left out.
type templated map[string]templateUse

// once: the template was sent once, input is unknown and template is its
// opening.
type templateUse struct {
	input, template string
	once            bool
}

// templateQuoted is how many words of a template sent once are quoted.
const templateQuoted = 24

// findTemplates compares a session's user messages two by two, only those
// that open with the same words, then takes the other templates as sent
// once.
func findTemplates(msgs []string) templated {
	out := templated{}
	groups := map[string][]message{}
	for _, m := range msgs {
		if w := strings.Fields(m); len(w) >= templateShared {
			key := strings.Join(w[:templateOpening], " ")
			groups[key] = append(groups[key], newMessage(w))
		}
	}
	for _, g := range groups {
		for i, a := range g {
			for j, b := range g {
				if i == j || slices.Equal(a.words, b.words) {
					continue
				}
				if use, ok := fillsIn(a, b); ok && prompttemplate.Is(prompttemplate.Message{Text: strings.Join(a.words, " "), Repeats: 1}) {
					out[strings.Join(a.words, " ")] = use
					break
				}
			}
		}
	}
	for _, m := range msgs {
		w := strings.Fields(m)
		if k := strings.Join(w, " "); out[k].template == "" && prompttemplate.Is(prompttemplate.Message{Text: m}) {
			out[k] = templateUse{template: strings.Join(w[:min(len(w), templateQuoted)], " ") + " …", once: true}
		}
	}
	return out
}

// message is a user message's words and where each run of templateRun
// of them first starts.
type message struct {
	words []string
	runs  map[string]int
}

func newMessage(words []string) message {
	m := message{words: words, runs: map[string]int{}}
	for j := len(words) - templateRun; j >= 0; j-- {
		m.runs[strings.Join(words[j:j+templateRun], "\x00")] = j
	}
	return m
}

// fillsIn reports whether a and b fill in one template, and if so a's own
// part and the template as a states it: after the words they open with,
// the first run of templateRun words of a that b has too, after the
// opening, ends a's own part.
func fillsIn(a, b message) (templateUse, bool) {
	p := 0
	for p < len(a.words) && p < len(b.words) && a.words[p] == b.words[p] {
		p++
	}
	if p < templateOpening {
		return templateUse{}, false
	}
	for i := p; i+templateRun <= len(a.words); i++ {
		j, ok := b.runs[strings.Join(a.words[i:i+templateRun], "\x00")]
		if !ok || j < p {
			continue
		}
		n := templateRun
		for i+n < len(a.words) && j+n < len(b.words) && a.words[i+n] == b.words[j+n] {
			n++
		}
		if p+n < templateShared || i-p > (p+n)/2 {
			return templateUse{}, false // mostly its own words: no template
		}
		tmpl := strings.Join(a.words[:p], " ") + " … " + strings.Join(a.words[i:], " ")
		return templateUse{input: strings.Join(a.words[p:i], " "), template: tmpl}, true
	}
	return templateUse{}, false
}

// of is what a message fills in, if it fills in a template.
func (tm templated) of(msg string) (templateUse, bool) {
	use, ok := tm[strings.Join(strings.Fields(msg), " ")]
	return use, ok
}

// userWords splits a quoted message step into its label and the words.
func userWords(step string) (label, words string, ok bool) {
	for _, l := range []string{rawmemory.StepAsked, rawmemory.StepFollowUp} {
		if rest, found := strings.CutPrefix(step, l); found && strings.HasPrefix(rest, "“") && strings.HasSuffix(rest, "”") {
			return l, strings.TrimSuffix(strings.TrimPrefix(rest, "“"), "”"), true
		}
	}
	return "", "", false
}

// sessionTemplates finds the templates among all the user messages of a
// memory's tasks.
func sessionTemplates(asked [][]string) templated {
	var msgs []string
	for _, steps := range asked {
		for _, s := range steps {
			if _, w, ok := userWords(s); ok {
				msgs = append(msgs, w)
			}
		}
	}
	return findTemplates(msgs)
}

// byOwnPart rewrites a task's quoted follow-ups that fill in a template to
// their own part, leaves out its request that does (the heading gives its
// own part), and names each template once per session (said keeps the
// ones already named).
func (tm templated) byOwnPart(steps []string, said map[string]bool) []string {
	var out []string
	for _, s := range steps {
		label, w, ok := userWords(s)
		use, isTemplate := tm.of(w)
		if !ok || !isTemplate {
			out = append(out, s)
			continue
		}
		// One template quoted to different lengths is named once.
		f := strings.Fields(use.template)
		if key := strings.Join(f[:min(len(f), templateShared)], " "); !said[key] {
			said[key] = true
			named := "The command template the messages below fill in: “"
			if use.once {
				named = "A template or document the user sent, its opening: “"
			}
			out = append(out, named+use.template+"”")
		}
		switch {
		case use.once: // its words are the template's; named above
		case label == rawmemory.StepAsked: // the task's heading gives its own part (title)
		case use.input == "":
			out = append(out, strings.TrimSuffix(label, ": ")+" through the command template, with no input of its own")
		default:
			out = append(out, strings.TrimSuffix(label, ": ")+" through the command template: “"+use.input+"”")
		}
	}
	return out
}

// title is the heading a task whose request fills in a template gets: its
// own part, else "" (the heading stays).
func (tm templated) title(steps []string) string {
	for _, s := range steps {
		if label, w, ok := userWords(s); ok && label == rawmemory.StepAsked {
			use, isTemplate := tm.of(w)
			switch {
			case !isTemplate || use.once:
				return ""
			case use.input == "":
				return "a command template with no input of its own"
			default:
				return textcut.Words(use.input, maxItemBytes) + " (through a command template)"
			}
		}
	}
	return ""
}
