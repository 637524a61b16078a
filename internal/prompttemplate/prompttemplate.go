// Package prompttemplate tells a prompt template from the user's own
// words. A slash command's or custom prompt's body, or an agent persona's
// activation prompt, reaches a transcript as a message of the user; it is
// no request, rule, correction or reply of theirs, and a memory that
// quotes it as one tells the next agent the user "prefers" a tool's text.
//
// A template is told by its form, never by one template's wording: a
// slash command's heading ("# /name"), a placeholder left to fill, a
// document under headings, a text repeated word for word across messages,
// or a long text laid out as instructions (a heading, a numbered or
// bulleted list, markup tags, emphasis) or opening in a role. A long text
// the user wrote in the first person is theirs unless a placeholder,
// headings or repetition say otherwise. The offline extractor, the memory
// model and the offline consolidator all ask [Is], each with what it
// knows of the message.
package prompttemplate

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/memctl/memctl/internal/lazyre"
)

// Message is a user message as a caller has it.
type Message struct {
	// Text is the message, its line breaks kept where the caller has
	// them (a raw memory's item has them folded into spaces).
	Text string
	// Repeats is how many other messages state the same text, or fill in
	// the same one, word for word. A caller that sees one sentence at a
	// time leaves it 0: a rule the user restates is still theirs.
	Repeats int
}

const (
	// longWords is the length from which a text laid out as instructions
	// or opening in a role is a template: a rule or a request typed by
	// hand is a sentence or a few.
	longWords = 30
	// repeatWords is the length from which a text stated again word for
	// word is a template's: the shared part of one filled in twice.
	repeatWords = 12
	// personalWords is how many first-person words ("I", "my", "me", 我)
	// make a long text the user's own.
	personalWords = 3
	// listItems is how many numbered or bulleted items make an
	// instruction list.
	listItems = 3
)

var (
	// placeholder is a slot a template leaves to fill: $ARGUMENTS of
	// Claude Code's commands and Codex's prompts, {{name}}.
	placeholder = lazyre.New(`\$ARGUMENTS\b|\{\{\s*[\w.-]+\s*\}\}`)
	// heading is a Markdown heading at a line's start, or inside a text
	// whose lines were folded into one.
	heading = lazyre.New(`(?m)(^|[\s"“'])#{1,6} [\pL*/]`)
	// item is a numbered or bulleted list item at a line's start, or a
	// numbered one inside folded text.
	item = lazyre.New(`(?m)^\s*(\d{1,2}[.)]|[-*•]) \S|[ \t](\d{1,2})[.)] [\pL*]`)
	// tag is markup that wraps a part of the text: <name …> or </name>.
	tag = lazyre.New(`</?[a-z][\w-]*(\s[^<>]*)?>`)
	// role opens a text that casts the agent in a role: "You are a …",
	// "You are <Name>, …", "Act as …", "Your role is …".
	role = lazyre.New(`^\W*(?:(?i:you are (?:a|an|the)|act as|your role is)\b|You are [A-Z]\w*[,.])`)
	// command opens the expansion of a slash command: a heading that
	// names it ("# /deploy — …").
	command = lazyre.New(`^\s*#{1,6} /[\w:-]+`)
	// positional is a numbered slot ($1…$9), which a short text may read
	// as a price: it counts in a long text only.
	positional = lazyre.New(`\$[1-9]\b`)
)

// Is reports whether a message is a prompt template's text rather than
// words the user typed.
func Is(m Message) bool {
	t := m.Text
	if placeholder().MatchString(t) || command().MatchString(t) {
		return true
	}
	f := form(t)
	switch {
	case f.headings >= 2 || f.headings == 1 && f.items >= 2: // a document, or a heading over steps
		return true
	case m.Repeats > 0 && f.words >= repeatWords:
		return true
	case f.words < longWords:
		return false
	case f.personal >= personalWords:
		return false
	case f.role || positional().MatchString(t):
		return true
	}
	marks := 0
	for _, b := range []bool{f.headings > 0, f.items >= listItems, f.tags > 0, f.emphasis >= 2} {
		if b {
			marks++
		}
	}
	return marks >= 2
}

// shape is what Is measures of a text.
type shape struct {
	words, headings, items, tags, emphasis, personal int
	role                                             bool
}

func form(t string) shape {
	s := shape{headings: len(heading().FindAllStringIndex(t, -1)), tags: len(tag().FindAllStringIndex(t, -1)), role: role().MatchString(t)}
	s.items = listLength(t)
	s.emphasis = strings.Count(t, "**") / 2
	for _, r := range t {
		if r >= 0x2E80 && unicode.IsLetter(r) { // Chinese or Japanese: a character is a word
			s.words++
		}
		if r == '我' { // "I" and, with 的, "my"
			s.personal++
		}
	}
	for _, w := range strings.Fields(t) {
		s.words++
		w = strings.Trim(w, ".,;:!?()\"'“”*")
		switch {
		case w == "I" || strings.HasPrefix(w, "I'") || strings.HasPrefix(w, "I’"):
			s.personal++
		case strings.EqualFold(w, "my") || strings.EqualFold(w, "me") || strings.EqualFold(w, "mine"):
			s.personal++
		case shouted(w):
			s.emphasis++
		}
	}
	return s
}

// listLength counts a text's list items: every bulleted or numbered item
// at a line's start, and the numbered items inside folded text that count
// up from 1 ("1. … 2. … 3. …"), which a version number does not.
func listLength(t string) int {
	n, next := 0, 1
	for _, m := range item().FindAllStringSubmatch(t, -1) {
		switch {
		case m[1] != "": // at a line's start
			n++
		case m[2] == strconv.Itoa(next):
			n, next = n+1, next+1
		}
	}
	return n
}

// shouted reports a word in capitals for emphasis ("NEVER", "EXACTLY"):
// five letters or more, so that most acronyms (API, JSON, HTTP) are not.
func shouted(w string) bool {
	if len(w) < 5 {
		return false
	}
	for _, r := range w {
		if !unicode.IsUpper(r) {
			return false
		}
	}
	return true
}
