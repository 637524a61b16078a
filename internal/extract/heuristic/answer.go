package heuristic

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/lazyre"
	"github.com/memctl/memctl/internal/program"
	"github.com/memctl/memctl/internal/sessions"
)

// Answers. The agent's words enter a memory only as its final answer to a message of the user, in whole
// sentences but for questions, list labels, verdicts on runs and recitals of memory (docs/extractor.md).

// answer is the agent's final answer to one message of the user; unchecked when no tool ran since the user
// spoke, withdrawn when the user's next message rejected it or the check it followed, passed, failed with no
// file changed since (changes: the task's file changes then); reply: the user's next message in the task, quoted.
type answer struct {
	sentences            []string
	reply                string
	unchecked, withdrawn bool
	check                *call
	changes              int
}

var (
	verdictRE = lazyre.New(`(?i)\b(tests?|specs?|suites?|builds?|lint(ers?|ing)?|checks?|ci|type-?checks?|compil\w+|` +
		`everything|all)\b[^;]{0,40}\b(pass(es|ed|ing)?|green|succeed(s|ed)?|clean)\b|\bfalse positives?\b|` +
		`\b(no|zero|0) (\w+ )?(failures?|errors?|failed)\b|\bnothing (failed|broke)\b|` + // a claim that nothing failed
		`\bflak(y|iness)\b|[\x{2705}\x{2714}\x{2713}]`)
	optionsRE = lazyre.New(`(?i)\|\s*(options?|choices?|approach(es)?|alternatives?|variants?|pros|cons)\b`) // a column
	// notDoneRE: no statement of what was done or found, in the languages users write in: a prediction, a
	// guess, a recommendation, an offer (nothing done yet), what the user might do next, a recital of memory
	// (what memory holds is no news).
	notDoneRE = lazyre.New(`(?i)\b(will|won'?t|'ll|going to|would|should|might|may|could|likely|unlikely|probably|` +
		`possibly|perhaps|maybe|presumably|recommend(ed|ation)?|suggest(ed)?|i (think|believe|guess|suspect)|seems?|` +
		`appears?|probablement|devrait|sera|peut-être|probablemente|deber[ií]a|ser[aá]|quiz[aá]s?|wahrscheinlich|` +
		`sollte|wird|vielleicht|provavelmente|deveria|talvez|i remember|let me know|happy to|je (peux|pourrais)|` +
		`puedo|podr[ií]a|ich (kann|k[öo]nnte)|posso|poderia)\b|^((natural|suggested|possible) )?next steps?\b|` +
		`^(if you (want|like|prefer|need)|you can|feel free|optionally|run)\b|\bi can\s|` +
		`\b(according to|in|from|based on) (my|the|your) (saved )?memor(y|ies)\b|` +
		`\bmy (memory|memories|notes) (say|show|note)|可能|应该|应当|将会|建议|也许|大概|我(也|还)?可以|？$`)
	// verbs make a clause: auxiliaries, modals and common irregular pasts.
	verbs = lazyre.Words(`is are was were be been has have had does do did can cannot could will would should must may
	might need broke broken found made took taken gave given got went gone came ran built wrote written left kept lost
	began became brought caught chose knew known led meant met paid said sent shown sold stood told thought threw
	understood won saw seen done held fell felt stuck hid hidden put set let run`)
	selfFailureRE = lazyre.New(`(?i)\bI (was |am )?(unable|not able|couldn'?t|could not|can'?t|cannot|wasn'?t able|` +
		`did not manage|didn'?t manage)\b`)
	failureRE = lazyre.New(`(?i)\b(couldn'?t|could not|i (must |have to )?decline|(don'?t|do not) have (access|` +
		`permission)|unable to|not able to|failed to|still fail|still failing|blocked|can'?t|cannot|did not work|` +
		`didn'?t work|won'?t be able|i won'?t)\b`)
)

// assistant takes the agent's words; only a final answer is kept.
func (x *Extractor) assistant(e sessions.Event) {
	t, text := x.current(), strings.TrimSpace(sessions.StripCitations(e.Text))
	if t == nil || text == "" {
		return
	}
	// The message's last question, whole, with the questions just before it that fit in lineMax.
	question := func(s string) bool { return strings.HasSuffix(strings.TrimRight(s, "*` "), "?") }
	ss, q := sentencesOf(text), ""
	for i := len(ss) - 1; i >= 0 && (q == "" || question(ss[i]) && len(ss[i])+len(q) < lineMax); i-- {
		q = strings.TrimSpace(when(question(ss[i]), ss[i]) + " " + q)
	}
	t.answered, x.question = true, oneLine(q)
	if !e.Final {
		return
	}
	checkFails := func(f program.Failure) bool { return t.failures[f.Last.Ref].purpose != "" }
	passed := t.lastCheck != nil && t.lastCheck.status == stOK && !slices.ContainsFunc(t.open(), checkFails)
	asks := strings.HasSuffix(strings.TrimRight(text, "*`) \n"), "?") // it ends by asking the user
	a := &answer{sentences: answerSentences(text, passed, asks), unchecked: !x.looked, check: t.lastCheck,
		changes: t.files.changes}
	if t.finalSince && len(t.answers) > 0 { // given twice (a message and the turn's end): the latest stands
		t.answers[len(t.answers)-1] = a
	} else {
		if !a.unchecked || len(t.answers) == 0 || !t.answers[len(t.answers)-1].unchecked { // questions in a row: once
			t.steps.add("The assistant answered"+when(a.unchecked, " with no tool call since the user spoke")+
				when(!a.unchecked && len(a.sentences) > 0, " (its answer is quoted below)")+".", 3)
		}
		t.answers = append(t.answers[max(0, len(t.answers)-maxAnswers+1):], a)
	}
	t.final, t.finalSince = oneLine(text), true
}

// answerSentences keeps the sentences a memory may quote: no heading, and a code block's lines as code. Of an
// answer that ends by asking the user (asks), the numbered items are options offered, no finding.
func answerSentences(text string, passed, asks bool) []string {
	var kept, prose []string
	dropped := func(s string) bool {
		return !statement(s) || strings.HasSuffix(s, "?") || strings.HasSuffix(s, ":") || verdict(s, passed) ||
			notDoneRE().MatchString(s) || quotes(s)
	}
	flush := func() {
		ss := sentencesOf(strings.Join(prose, "\n"))
		for i := 0; i+1 < len(ss); i++ { // a sentence split inside parentheses ("(e.g. Foo)") joins the one after it
			if strings.Count(ss[i], "(") > strings.Count(ss[i], ")") && len(ss[i]) < 400 {
				ss, i = slices.Replace(ss, i, i+2, ss[i]+" "+ss[i+1]), i-1
			}
		}
		kept, prose = append(kept, slices.DeleteFunc(ss, dropped)...), nil
	}
	fenced, header := false, ""
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		header = when(strings.HasPrefix(t, "|") && !fenced, header) // a table's first row names its columns
		switch {
		case strings.HasPrefix(t, "```"):
			flush()
			fenced = !fenced
		case fenced && len(t) <= 160 && !strings.Contains(t, "`") && len(meaningfulWords(t)) > 0:
			kept = append(kept, code(t))
		case fenced || strings.HasPrefix(t, "#"): // a heading is layout
		case strings.HasPrefix(t, "|"): // a table's row is a sentence; in an answer that asks, an option offered
			flush()
			kept = append(kept, slices.DeleteFunc([]string{when(header != "", rowSentence(header, t))}, dropped)...)
			header = cmp.Or(header, when(!asks, strings.ReplaceAll(t, "**", ""))) // no header: no row is read
		case asks && strings.IndexAny(t, ".)") > 0 && strings.Trim(t[:strings.IndexAny(t, ".)")], "0123456789") == "":
		case len(prose) > 0 && continues(prose[len(prose)-1], t): // a sentence wrapped over lines is one
			prose[len(prose)-1] += " " + strings.ReplaceAll(t, "**", "")
		default:
			prose = append(prose, strings.ReplaceAll(strings.TrimLeft(t, "> "), "**", ""))
		}
	}
	flush()
	return kept
}

// rowSentence reads a table's row as a sentence, each cell after its column's name ("Bug: …; Fix: …."), or "": a
// separator, a grade (no cell past the first holds code or two words, or one opens on a glyph: "Yes", "81%", "✅
// Done"), a row of a table that lays out options (a column "Option", "Approach A", "Pros"). "\|" is a bar.
func rowSentence(header, row string) string {
	names, says, parts := strings.Split(strings.Trim(header, "|"), "|"), false, []string(nil)
	for i, c := range strings.Split(strings.Trim(strings.ReplaceAll(row, `\|`, "\x00"), "|"), "|") {
		c = strings.TrimRight(strings.ReplaceAll(strings.TrimSpace(strings.ReplaceAll(c, "**", "")), "\x00", "|"), ". ")
		if r, _ := utf8.DecodeRuneInString(c); r > 0x2000 && !unicode.IsLetter(r) && strings.Trim(c, "-—–") != "" {
			return ""
		} else if name := strings.TrimSpace(names[min(i, len(names)-1)]); strings.Trim(c, "-—–") != "" {
			says = says || i > 0 && (strings.Contains(c, "`") || len(meaningfulWords(c)) > 1)
			parts = append(parts, when(name != "" && i < len(names), name+": ")+c)
		}
	}
	return when(says && !optionsRE().MatchString(header), strings.Join(parts, "; ")+".")
}

// continues reports a line that goes on with the sentence of the line before: that one ends in no
// stop and this one opens in lower case, or that one breaks off on "(", "," or a joining word.
func continues(before, line string) bool {
	r, _ := utf8.DecodeRuneInString(line)
	f := strings.Fields(before)
	return len(f) > 0 && line != "" && !strings.ContainsAny(before[len(before)-1:], ".!?:;") &&
		(unicode.IsLower(r) || strings.ContainsAny(before[len(before)-1:], "(,[") ||
			slices.Contains([]string{"and", "or", "the", "a", "to", "of", "with"}, f[len(f)-1]))
}

// verdict reports a verdict on a run, which only an exit status gives: a run called clean, flaky or a false
// positive, a pass or "no failures" and little else, or with more unless passed (the last check passed, no check open).
func verdict(s string, passed bool) bool {
	m := strings.ToLower(verdictRE().FindString(s))
	claim := strings.Contains(m, "pass") || strings.Contains(m, "succeed") || // a pass, or that nothing failed
		strings.Contains(m, "green") || strings.Contains(m, "fail")
	return m != "" && (!passed || len(meaningfulWords(strings.Replace(strings.ToLower(s), m, "", 1))) < 4 || !claim)
}

// statement reports a sentence, not a caption ("✅ Backward compatible"): it opens on a word and has a verb (an
// auxiliary, a modal, a word in -s or -ed), code, or "Label: value"; scripts without spaces pass.
func statement(s string) bool {
	if r, _ := utf8.DecodeRuneInString(s); r > 0x2000 && !unicode.IsLetter(r) {
		return false
	}
	label, value, ok := strings.Cut(s, ": ")
	if strings.ContainsFunc(s, func(r rune) bool { return r >= 0x2E80 }) || strings.Contains(s, "`") ||
		ok && value != "" && len(strings.Fields(label)) <= 4 && unicode.IsUpper([]rune(label)[0]) {
		return true
	}
	verb := func(w string) bool {
		w = strings.Trim(w, ".,;:!?()\"'")
		l := strings.ToLower(w)
		return verbs()[l] || strings.HasSuffix(l, "n't") ||
			len(w) >= 4 && w[1:] == l[1:] && strings.Trim(l, "abcdefghijklmnopqrstuvwxyz") == "" &&
				(strings.HasSuffix(l, "ed") || strings.HasSuffix(l, "s") && !strings.HasSuffix(l, "ss"))
	}
	f := strings.Fields(s)
	return len(f) >= 3 && slices.ContainsFunc(f, verb)
}

// quotes reports a sentence quoting three or more words in double quotes outside code: someone else's words.
func quotes(s string) bool {
	parts := strings.Split(s, "`")
	for i := 1; i < len(parts); i += 2 {
		parts[i] = "" // code
	}
	parts = strings.Split(strings.NewReplacer("\u201c", "\"", "\u201d", "\"").Replace(strings.Join(parts, "")), "\"")
	for i := 1; i < len(parts)-1; i += 2 {
		if len(strings.Fields(parts[i])) >= 3 {
			return true
		}
	}
	return false
}

// firstSentences keeps the opening sentences in n bytes, the first always.
func firstSentences(ss []string, n int) []string {
	size := 0
	for i, s := range ss {
		if size += len(s) + 1; i > 0 && size > n {
			return ss[:i]
		}
	}
	return ss
}
