package heuristic

import (
	"slices"
	"strings"
	"unicode"

	"github.com/memctl/memctl/internal/program"
	"github.com/memctl/memctl/internal/textcut"
)

// Preference rule. A preference is a standing instruction in the human's
// own words: a sentence, anywhere in any of their messages, that states a
// rule for how to work rather than what to do now. It counts when it
// carries one of these markers:
//
//   - a rule: "always", "from now on", "going forward", "every time",
//     "whenever", "by default";
//   - a ban: "never …", or "don't …", "do not …", "avoid …", "stop …ing",
//     "no need to …" opening a clause ("no, don't …", "please don't …");
//   - a requirement: "must", "must not", "… is not acceptable", "is
//     required", "important (not) to", "not until", "only after";
//   - a choice between alternatives: "prefer …", "use X, not Y", "use X,
//     never Y", "instead of", "rather than".
//
// Questions never count, and neither does a sentence that limits itself
// to the moment ("for now", "this time", "yet", "don't forget to …"): a
// one-off request is never promoted. Each preference is kept verbatim and
// printed as nothing but the quote: the words are the evidence, and an
// implication the extractor made up could be wrong.

type pref struct {
	text string
}

var (
	prefRuleRE = lazyRE(`(?i)\b(always|from now on|going forward|from here on|in (the )?future|by default|as a rule|at all times)\b`)
	// prefEveryRE are rule words that also describe what happens ("the
	// whole file is read every time"): they count only in a sentence that
	// describes nothing.
	prefEveryRE    = lazyRE(`(?i)\b(every time|each time|whenever)\b`)
	describesRE    = lazyRE(`(?i)\b(since|because|will be|would be|happens|happened|was|were|is being|gets)\b`)
	prefPriorityRE = lazyRE(`(?i)\b(is|are) (crucial|critical|essential|paramount|a must|mandatory|non-negotiable|key|a priority|the priority)\b|\b(won'?t|will not|must not|mustn'?t|shouldn'?t|should not|not) (be )?(break|broken)\b|\bbackwards?[- ]compatib`)
	// reasonRE marks a sentence that gives the reason for the one before.
	reasonRE    = lazyRE(`(?i)\b(because|since|so that|so the|otherwise|which is why|the reason)\b|, so\b`)
	prefBanRE   = lazyRE(`(?i)(^|[,;:(\x{2014}\x{2013}-]\s*|\b(please|and|but|so|just|also|then|no|ok|okay|and please|but please)\s+)(don'?t|do not|dont|avoid|stop \w+ing|no need to)\b`)
	prefNeverRE = lazyRE(`(?i)\bnever\b`)
	// notRuleNeverRE: "I never said …", "you never ran …" report, and "the
	// hook never fires", "is never dispatched" describe (the verb after
	// never is in the third person or a participle, a rule's is bare).
	notRuleNeverRE = lazyRE(`(?i)\b(i|you|it|that|this|he|she|they)('ve|'d|'ll)? never\b|\bnever\s+(is|was|has|had|been|gets|got|[a-z]*ed|[a-z]*[^s\W]s)\b`)
	prefMustRE     = lazyRE(`(?i)\b(must|mustn'?t|shall not|is not acceptable|are not acceptable|not acceptable|unacceptable|is not allowed|are not allowed|not permitted|is required|are required|is mandatory|are mandatory|is forbidden|are forbidden|(important|essential|crucial|critical|vital) (not )?to|not until|only after|only once)\b`)
	prefUntilRE    = lazyRE(`(?i)\b(not|don'?t|never|no)\b.*\buntil\b|\buntil\b.*\b(final|last|end|done|finished|approved|asked|told)\b`)
	prefAltRE      = lazyRE(`(?i)\bprefer(s|red|ably)?\b|\binstead of\b|\brather than\b|\buse\b[^.;!?]{1,80}?(,|;|\x{2014}|\x{2013}| -)?\s+(not|never)\b`)
	oneOffRE       = lazyRE(`(?i)\b(this time|for now|right now|for the moment|at the moment|just this once|just once|for this (one|run|task|change|pr|commit|file|session|case|test|example|step|branch)|yet|today|tonight|temporarily)\b|\b(don'?t|do not) (forget|worry|bother|mind)\b|\bno worries\b`)
)

// preferences returns the standing instructions of one human message. A
// rule keeps the sentence after it when that one gives its reason ("The
// venv isn't activated, so …"): the words stay the user's own.
//
// A reply to the agent's question answers that question: a sentence that
// points at one of its options ("option 1 is not acceptable") or says too
// little to stand on its own ("don't overcomplicate") is that answer, not
// a rule, unless it says it stands ("always", "from now on", "never").
func preferences(text string, reply bool) []pref {
	if document(text) {
		return nil
	}
	var out []pref
	ss := sentences(text, 40)
	for i := 0; i < len(ss) && len(out) < 4; i++ {
		s := ss[i]
		if !standing(s) || reply && answersChoice(s) || tooShort(s) {
			continue
		}
		if i+1 < len(ss) && !standing(ss[i+1]) && reasonRE().MatchString(ss[i+1]) && !strings.HasSuffix(ss[i+1], "?") &&
			!oneOffRE().MatchString(ss[i+1]) && len(s)+len(ss[i+1]) < 300 {
			s += " " + ss[i+1]
			i++
		}
		out = append(out, pref{text: textcut.Line(s, 300)})
	}
	return out
}

var optionRefRE = lazyRE(`(?i)\b(option|choice|alternative|approach|variant)\s*(#?\d+|[a-d]\b|one|two|three)|\bthe (first|second|third|last|other) (one|option|approach)\b`)

// answersChoice reports a sentence of a reply that only answers the
// question asked (see preferences).
func answersChoice(s string) bool { return !marksStanding(s) && optionRefRE().MatchString(s) }

// tooShort reports a ban of a word or two ("dont run", "don't"): it
// stops what the agent is about to do, and names nothing a rule could
// stand on. One that names a program ("Don't use yarn.") does.
func tooShort(s string) bool {
	if marksStanding(s) || len(topicWords(meaningfulWords(s))) >= 2 {
		return false
	}
	return !slices.ContainsFunc(strings.FieldsFunc(s, notWordRune), program.IsProgram)
}

func notWordRune(r rune) bool {
	return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_'
}

// marksStanding reports a sentence that says it stands ("always", "from
// now on", "never").
func marksStanding(s string) bool { return prefRuleRE().MatchString(s) || prefNeverRE().MatchString(s) }

// standing reports a sentence that states a rule (see the rule above).
func standing(s string) bool {
	if strings.HasSuffix(s, "?") || len(s) > 400 || len(s) < 8 || !prose(s) {
		return false
	}
	if aboutTheUserRE().MatchString(s) || mappingRE().MatchString(s) || specifies(s) {
		return false
	}
	marked := prefRuleRE().MatchString(s) || prefBanRE().MatchString(s) || prefMustRE().MatchString(s) ||
		prefAltRE().MatchString(s) || prefUntilRE().MatchString(s) || prefPriorityRE().MatchString(s) ||
		(prefNeverRE().MatchString(s) && !notRuleNeverRE().MatchString(s)) ||
		(prefEveryRE().MatchString(s) && !describesRE().MatchString(s))
	return marked && !oneOffRE().MatchString(s)
}

// headingRE is a markdown heading line.
var headingRE = lazyRE(`(?m)^#{1,6} \S`)

// document reports a message laid out under two or more headings: a
// prompt template a slash command expanded ("## User Input … ## Outline")
// or a pasted document, whose "must" and "always" are its own rules for
// the work it describes, not the user's standing instructions.
func document(text string) bool { return len(headingRE().FindAllStringIndex(text, 3)) >= 2 }

// aboutTheUserRE is a sentence that speaks of the user in the third
// person ("Do not ask the user to repeat it"): a prompt template or a
// skill addressing the agent, never the user's own rule.
var aboutTheUserRE = lazyRE(`(?i)\bthe user('s)?\b`)

// mappingRE is a sentence that maps one thing to another ("unknown
// command → call showSuggestion()"): a specification of what to build,
// not a way of working.
var mappingRE = lazyRE(`\s(→|->|=>)\s`)

// specifies reports a sentence that opens on a condition ("if the error
// is a SilentError, do not print anything"): unless it addresses the
// agent or says it stands ("When committing, always use conventional
// commits"), it specifies what the program must do, which is the request
// itself, not a way of working.
func specifies(s string) bool {
	return specifiesRE().MatchString(s) && !addressesRE().MatchString(s) && !marksStanding(s)
}

var (
	specifiesRE = lazyRE(`(?i)^(if|when|unless|in case)\b`)
	addressesRE = lazyRE(`(?i)\b(you|your|we|us|our|me|my|i)\b`)
)

// prose reports text that reads as words rather than pasted code or logs:
// mostly letters and spaces.
func prose(s string) bool {
	letters, other := 0, 0
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || r == ' ' || r == '\'' || r == ',' || r == '.':
			letters++
		default:
			other++
		}
	}
	return letters >= 3*other
}

func (t *task) addPref(p pref) {
	for _, q := range t.prefs {
		if q.text == p.text {
			return
		}
	}
	if len(t.prefs) < maxPrefs {
		t.prefs = append(t.prefs, p)
	}
}

// render prints the user's words and nothing else, so that the summary's
// preferences are theirs word for word; that it came as a correction shows
// in the task's failures.
func (p pref) render() string { return quote(p.text) }
