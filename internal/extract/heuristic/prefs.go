package heuristic

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/lazyre"
	"github.com/memctl/memctl/internal/program"
)

// Preferences: the sentences of the user that state how to work rather
// than what to do now, verbatim (docs/extractor.md, "Preferences").

var (
	// standingRE: a rule's words in the languages users write in: English,
	// French, Spanish, German, Portuguese, then Chinese (no word boundary).
	standingRE = lazyre.New(`(?i)\b(always|from now on|going forward|from here on|in (the )?future|by default|` +
		`as a rule|at all times|(every time|each time|whenever) (you|we)|must|mustn'?t|shall not|` +
		`(is|are) not (acceptable|allowed|permitted)|unacceptable|(is|are) (required|mandatory|forbidden)|` +
		`(important|essential|crucial|critical|vital) (not )?to|not until|only after|make sure (to|you)|remember to|` +
		`next time|refrain from|before (you|each|every|any) \w+|i (really )?(don'?t|do not) (want|like)|` +
		`(after|for) (every|each) (change|edit|commit|step|file|task)|prefer(s|red|ably)?|instead of|rather than|` +
		`use\b[^.;!?]{1,80}?[,;\x{2014}\x{2013}-]\s*(not|never)|(should|must|will) never|` +
		`(you|we) never \w*([^\Wd]|[^\We]d|eed)|` +
		`(is|are) (crucial|critical|essential|a must|mandatory|non-negotiable|a priority)|backwards?[- ]compatib\w*|` +
		`toujours|jamais|d[ée]sormais|dor[ée]navant|il faut|tu dois|vous devez|au lieu d[e']|plut[ôo]t que|` +
		`pr[ée]f[èée]re[rz]?|` +
		`siempre|nunca|a partir de ahora|de ahora en adelante|en (lugar|vez) de|prefiero|debes|aseg[úu]rate|` +
		`immer|nie|niemals|ab (jetzt|sofort)|k[üu]nftig|zuk[üu]nftig|(an)?statt|lieber|bevorzug\w*|musst|m[üu]sst|` +
		`achte darauf|denk daran|` +
		`sempre|a partir de agora|daqui (pra|para) (frente|diante)|ao inv[ée]s de|em vez de|prefiro|voc[êe] deve|` +
		`certifique-se)\b|` +
		`(^|[.,;:(\x{2014}\x{2013}-]\s*|\b(please|and|but|so|just|also|then|no|ok|okay)\s+)` +
		`(don'?t|do not|dont|avoid|stop \w+ing|no need to|never)\b|(^|[.,;:]\s*)(ne |n')\S+ (pas|plus)\b|` +
		`(^|[.,;:]\s*)(no \w{2,}(es|as)|n[ãa]o \w+[ea])\b|` +
		`(^|[.,;:]\s*)(only (use|run|edit|touch|commit|change)|no more)\b|` +
		`\b(verwende|benutze|nutze) kein|\bbitte (nicht|kein)|` +
		`总是|始终|永远|一律|不要|别再|不许|不准|请勿|禁止|必须|务必|一定要|今后|往后|从现在开始|从今以后|而不是|优先|记得|记住`)
	oneOffRE = lazyre.New(`(?i)\b(this time|for now|right now|for the moment|at the moment|just this once|just once|` +
		`for this (one|run|task|change|pr|commit|file|session|case|test|step|branch)|yet|today|tonight|temporarily|` +
		`cette fois|pour l'instant|pour le moment|esta vez|por (ahora|enquanto|agora|ora)|de momento|diesmal|vorerst|` +
		`f[üu]rs erste|desta vez|dessa vez)\b|` +
		`\b(don'?t|do not|never) (forget|worry|bother|mind)\b|\bno worries\b|这次|这一次|本次|暂时|目前`)
	// notPrefRE: a template speaking of the user, or a mapping to build.
	notPrefRE   = lazyre.New(`(?i)\bthe user('s)?\b|\s(→|->|=>)\s`)
	optionRefRE = lazyre.New(`(?i)\b(option|choice|alternative|approach|variant)\s*(#?\d+|[a-d]\b|one|two|three)|` +
		`\bthe (first|second|third|last|other) (one|option|approach)\b`)
)

// preferences returns the standing instructions of one message and its sentences' keys; one another message said
// too (said: their keys) whatever its words, but for a message sent again (the two share over half the shorter's
// sentences). A pick of an option ("I prefer option 2") answers once, and so does a "no" to a question (refuses)
// but for a sentence that says it stands. A rule that opens its paragraph (after a greeting at most) keeps the
// sentences that go on with it there, two at most, whole; after a request it is an aside to it and stands alone.
func preferences(text string, refuses bool, said [][]string) (prefs, keys []string) {
	ss := sentencesOf(ownWords(text))
	for _, s := range ss {
		keys = append(keys, key(s))
	}
	again := func(s string) bool {
		return slices.ContainsFunc(said, func(m []string) bool {
			n := len(slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return !slices.Contains(m, k) }))
			return slices.Contains(m, key(s)) && 2*n <= min(len(keys), len(m))
		})
	}
	rule := func(s string) bool { // a ban of a word or two as the whole message reacts to the moment ("dont run")
		return standing(s, again) && (marksStanding(s) || !refuses && !optionRefRE().MatchString(s)) &&
			(len(meaningfulWords(s)) > 0 || words(s) >= 4) && (len(ss) > 1 || words(s) >= 3)
	}
	for _, p := range strings.Split(ownWords(text), "\n\n") { // paragraphs: ownWords parts them
		ps := sentencesOf(p)
		for i := range ps {
			n, opens := i+1, !slices.ContainsFunc(ps[:i], func(s string) bool { return len(meaningfulWords(s)) > 0 })
			for ; opens && n < min(len(ps), i+3) && goesOn(ps[n]) && !rule(ps[n]); n++ {
			}
			if rule(ps[i]) {
				prefs = append(prefs, strings.Join(ps[i:n], " ")) // userWords keeps it to prefMax by whole sentences
			}
		}
	}
	return capped(prefs, 4), keys
}

// goesOn reports a sentence that goes on with a rule: it speaks of the user or to the agent, or narrows the rule
// ("Only …", "Except …"); not a question, nor one that turns to the work at hand ("Now fix …").
func goesOn(s string) bool {
	f := append(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) }), "")
	w := " " + f[0] + " "
	return !strings.HasSuffix(s, "?") && prose(s) && !strings.Contains(" now first next then also anyway btw ", w) &&
		(strings.Contains(" only except unless even not but ", w) || slices.ContainsFunc(f, addressed))
}

// ownWords drops what the user pasted, its lines folded: fenced blocks, quoted (">") and indented lines, a
// tool's lines and, up to a blank line, a shell prompt's line and what follows, and what follows a line that
// introduces someone else's words ("The reviewer wrote:"). A line left out, and a list's item, part paragraphs as
// a blank line does (a rule keeps the sentences of its paragraph).
func ownWords(text string) string {
	b, fenced, pasted := strings.Builder{}, false, false
	for l := range strings.Lines(text) {
		t, f := strings.TrimSpace(l), append(strings.Fields(strings.ToLower(l)), "")
		switch {
		case strings.HasPrefix(t, "```") || fenced:
			fenced = fenced != strings.HasPrefix(t, "```")
		case t == "" || pasted:
			pasted = t != ""
		case strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t") || strings.HasPrefix(t, ">"),
			program.Diagnostic(t):
		case f[0] == "$" || f[0] == "%", // a prompt: a command and its output
			len(f) > 2 && strings.ContainsAny(f[0], "@:\\") && strings.ContainsAny(f[0][len(f[0])-1:], "$#>"),
			strings.HasSuffix(t, ":") &&
				slices.ContainsFunc(f, func(w string) bool { return pasteIntros()[strings.Trim(w, ":,.")] }):
			pasted = true
		default: // a list's item is a paragraph of its own
			b.WriteString(when(strings.IndexAny(t, "-*•0123456789") == 0, "\n") + oneLine(t))
		}
		b.WriteString("\n") // a line left out parts the paragraph as a blank one does
	}
	return b.String()
}

// terminalOutput parts a terminal's output the user pasted from their own words: a line opening with a mark (⏺ ⎿ └
// │ ✦ ●: a 3-byte symbol, alone; an emoji has 4) and what follows up to a blank line and a line at the margin. "•"
// marks only beside another: people type it to open a list item, and Codex marks its replies with it.
func terminalOutput(text string) (own, pasted string) {
	lines := slices.Collect(strings.Lines(text))
	mark := func(l string, bullet bool) bool {
		f := append(strings.Fields(l), "-")[0] // "-": no mark
		r, n := utf8.DecodeRuneInString(f)
		return n == len(f) && (n == 3 && unicode.In(r, unicode.So, unicode.Sm) || bullet && r == '•')
	}
	bullet, in, prev := slices.ContainsFunc(lines, func(l string) bool { return mark(l, false) }), false, ""
	for _, l := range lines { // the reply's paragraphs are indented under its mark
		in = mark(l, bullet) || in && (strings.TrimSpace(prev) != "" || unicode.IsSpace(rune(l[0])))
		own, pasted, prev = own+when(!in || strings.TrimSpace(l) == "", l), pasted+when(in, l), l
	}
	return own, pasted
}

// pasteIntros are the words of a line that introduces someone else's.
var pasteIntros = lazyre.Words(`said says wrote writes comment comments review reviewer reviewers feedback error errors
	output log logs message forwarded quoted pasted traceback printed reported suggested`)

// marksStanding reports a sentence that says it stands.
func marksStanding(s string) bool {
	l := strings.ToLower(s)
	return strings.Contains(l, "always") || strings.Contains(l, "never") || strings.Contains(l, "from now on")
}

// standing reports a sentence that states a rule, in a rule's words or said again (a nudge said again is none:
// four words, one meaningful): no question, and no line that opens a list ("make sure to change:").
func standing(s string, again func(string) bool) bool {
	return strings.TrimRight(s, "?？:") == s && len(s) <= 400 && words(s) >= 2 && prose(s) &&
		!notPrefRE().MatchString(s) && !specifies(s) && !oneOffRE().MatchString(s) &&
		(standingRE().MatchString(s) || words(s) >= 4 && len(meaningfulWords(s)) > 0 && again(s))
}

// specifies reports a condition that does not address the agent: what the
// program must do ("if the error is silent, do not print anything").
func specifies(s string) bool {
	l := strings.ToLower(s)
	conditional := strings.HasPrefix(l, "if ") || strings.HasPrefix(l, "when ") || strings.HasPrefix(l, "unless ") ||
		strings.HasPrefix(l, "in case ")
	return conditional && !marksStanding(s) &&
		!slices.ContainsFunc(strings.FieldsFunc(l, func(r rune) bool { return !unicode.IsLetter(r) }), addressed)
}

// addressed reports a word that speaks of the user or to the agent.
func addressed(w string) bool { return strings.Contains(" you your we us our me my i ", " "+w+" ") }

// prose reports text that reads as words rather than pasted code or logs.
func prose(s string) bool {
	letters := 0 // and spaces, apostrophes, commas, stops: three in four at least
	for _, r := range s {
		letters += map[bool]int{true: 1}[unicode.IsLetter(r) || strings.ContainsRune(" ',.", r)]
	}
	return 4*letters >= 3*utf8.RuneCountInString(s)
}

// words counts a sentence's words, a Chinese or Japanese character as one.
func words(s string) (n int) {
	for _, r := range s {
		n += map[bool]int{true: 1}[r >= 0x2E80 && unicode.IsLetter(r)] // CJK and beyond: no spaces between words
	}
	return n + len(strings.Fields(s))
}
