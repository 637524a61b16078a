package heuristic

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/textcut"
)

// Findings are what the agent learned and said: the sentences of its
// answers that state a cause, a fix, a location or a fact about the
// project ("the cutoff was inclusive", "token data lives at …", "npm run
// ci = license check + lint + build + tests"). They are kept in the
// agent's words, quoted, and tied to their task; plans ("I'll …", "Let me
// …") and questions are not findings.

const (
	maxFindings        = 6
	findingsPerMessage = 2
	maxFindingCands    = 24
	findingMinLen      = 24
	findingMaxLen      = 320
	findingQuoteBytes  = 260
)

var (
	// findingRE marks a sentence that explains something.
	findingRE = lazyRE(`(?i)\bbecause\b|, so\b|\bnot (exposed|available|installed|supported|present|set|defined|found|configured|enabled)\b|\bfall(ing|s)? back\b|` +
		`\b(breaks?|prevents?|skips?|loses?|drops?|ignores?|overrides?|shadows?)\b|\bredundant\b|\bis the same as\b|\balready (contains|holds|tracks|has|covers|exists|handles|does)\b|` +
		`\binstead of\b|\w-(dependent|specific)\b|\bthe (root )?cause\b|\bcaused by\b|\bthe (fix|problem|issue|bug|culprit|reason|trick|catch) (was|is)\b|` +
		`\bturn(ed|s) out\b|\blives? (in|at|under)\b|\b(is|are|was|were) (defined|declared|set|configured|stored|implemented|located|kept|registered|generated|computed|read|loaded|handled) (in|at|by|under|from|via)\b|` +
		`\bcomes? from\b|\brequires?\b|\bdepends on\b|\b(is|was|are|were) (inclusive|exclusive|case-sensitive|ignored|cached|deprecated)\b|` +
		`\bdue to\b|\bhappens (when|because|only)\b|\bonly (works|fails|happens) when\b|\bso that\b|\bwhich means\b|\bthat means\b|` +
		`\s(=|→|->)\s|\bis (an alias|shorthand) for\b|\bruns\b.+\b(then|and)\b|\bexpects\b|\breturns\b|\bwithout\b.+\bfails\b`)
	// planRE marks intentions and chatter, which state nothing learned.
	planRE = lazyRE(`(?i)^(i'?ll|i will|i'?m going to|i am going to|let me|let's|now i|next,? i|first,? i|then i|i need to|i should|i can|i could|we need to|we should|shall i|would you|do you|should i|if you|please|sure|great|ok|okay|done\b|here'?s|here is|i'?ve (updated|added|created|changed|made))\b`)
	// guessRE marks a sentence that guesses, says it is still to be
	// verified, or waves a tool's verdict away ("probably", "(needs
	// verification)", "a false positive", "typically", "a flaky test": the
	// extractor calls a run flaky only when an identical rerun passed): a
	// hypothesis the session may refute later, not a finding.
	guessRE = lazyRE(`(?i)` + dismissal + `|\b(probably|likely|perhaps|maybe|presumably|possibly|typically|usually)\b|\bmight\b|\bi (think|suspect|guess|believe)\b|\b(seems|appears) (to|like)\b|\bflak(y|iness)\b|` +
		`\bneeds? (verification|verifying|to be (verified|checked|confirmed))\b|\bunverified\b|\bto be confirmed\b|\bTBD\b`)
	// dismissRE marks a sentence waving a tool's verdict away: when the
	// check later passes after a change, the code was wrong, so even right
	// after the failure it is no explanation worth keeping.
	dismissRE = lazyRE(`(?i)` + dismissal)
	// labelledRE marks a "Label: value" line.
	labelledRE = lazyRE(`^[A-Z][\w /&()-]{1,38}: \S`)
	// evidenceRE rewards concrete detail: code, paths, numbers.
	evidenceRE = lazyRE("`[^`]+`|\\b[\\w.-]+/[\\w./-]+|\\b\\w+\\.(go|py|ts|js|rs|md|json|toml|yaml|yml|sh|sql)\\b|\\b\\d+(\\.\\d+)?\\b")
)

const dismissal = `\bfalse positives?\b|\b(is|are) (a )?(bug|limitation)s? (in|of) (the )?(linter|checker|tool|type checker)\b`

type finding struct {
	text  string
	who   string // "the agent said", "the sub-agent reported"
	score int
	order int
	msg   int // the message it came from
}

// findings collects the candidate sentences of one task.
type findings struct {
	list  []finding
	seen  map[string]bool
	order int
	msgs  int
	// answerFrom is the message count when the agent last did something
	// (a tool call other than a plan update) or the human last spoke: the
	// messages after it are the agent's answer.
	answerFrom int
}

// withdrawAnswer drops what the agent's answer said: the human rejected it
// ("it's not valid to track all changes under one session"), so the
// design or claim it made did not stand. What the agent found on its way
// there, before its last tool call, still does.
func (f *findings) withdrawAnswer() {
	f.list = slices.DeleteFunc(f.list, func(x finding) bool { return x.msg > f.answerFrom })
}

// agentSaid is who the agent's own findings come from.
const agentSaid = "the agent said"

// add reads one assistant message.
func (f *findings) add(text string) { f.addFrom(text, agentSaid, 0) }

// addFrom reads one message of who, adding bonus to each candidate's score.
// What a sub-agent found is no part of the agent's answer: a rejection of
// the answer leaves it standing.
func (f *findings) addFrom(text, who string, bonus int) {
	if f.seen == nil {
		f.seen = map[string]bool{}
	}
	f.msgs++
	ss := sentences(stripMarkdown(text), 60)
	probing := len(ss) > 0 && probeRE().MatchString(ss[len(ss)-1])
	for _, s := range ss {
		sc := findingScore(s)
		if sc == 0 || probing && diagnosisRE().MatchString(s) {
			// A diagnosis the agent goes on to test in the same breath
			// ("The issue is X. Let me check …") is a hypothesis.
			continue
		}
		key := strings.ToLower(s)
		if f.seen[key] {
			continue
		}
		f.seen[key] = true
		f.order++
		f.list = append(f.list, finding{text: s, who: who, score: sc + bonus, order: f.order, msg: f.msgs})
		if len(f.list) > maxFindingCands {
			f.dropWeakest()
		}
	}
	if who != agentSaid {
		f.answerFrom = f.msgs
	}
}

// addChoice keeps the user's answer to the agent's question, ahead of the
// agent's own sentences: it is what the user decided.
func (f *findings) addChoice(question, answer string) {
	f.order++
	f.list = append(f.list, finding{
		text: answer, who: "asked " + quote(textcut.Line(question, 200)) + ", the user chose",
		score: 100, order: f.order,
	})
	if len(f.list) > maxFindingCands {
		f.dropWeakest()
	}
}

func (f *findings) dropWeakest() {
	w := 0
	for i, c := range f.list {
		if c.score < f.list[w].score || (c.score == f.list[w].score && c.order > f.list[w].order) {
			w = i
		}
	}
	f.list = append(f.list[:w], f.list[w+1:]...)
}

// best returns the strongest findings in the order the agent said them,
// leaving out those skip reports (the memory quotes them elsewhere, or
// they did not stand), and at most findingsPerMessage from any one
// message: a long overview is one answer, and its list items must not
// push out what other messages found.
func (f *findings) best(n int, skip func(string) bool) []string {
	c := slices.DeleteFunc(slices.Clone(f.list), func(x finding) bool { return skip(x.text) })
	slices.SortStableFunc(c, func(a, b finding) int { return cmp.Or(b.score-a.score, a.order-b.order) })
	var kept []finding
	per := map[int]int{}
	for _, x := range c {
		if len(kept) < n && (x.msg == 0 || per[x.msg] < findingsPerMessage) {
			per[x.msg]++
			kept = append(kept, x)
		}
	}
	slices.SortFunc(kept, func(a, b finding) int { return a.order - b.order })
	out := make([]string, len(kept))
	for i, x := range kept {
		out[i] = x.who + " " + quote(textcut.Line(x.text, findingQuoteBytes))
	}
	return out
}

// probeRE is a message ending on the agent going to test something.
var probeRE = lazyRE(`(?i)^(now )?(let me|let's|i'?ll|i will) (also |first |now )?(check|verify|test|try|confirm|see|look|run)\b`)

// passReportRE is a sentence that only reports checks passing ("`make
// lint` and `go test ./...` both pass locally"): the Check lines say so,
// from the runs themselves.
var passReportRE = lazyRE("^(`[^`]+`(,? (and|or) `[^`]+`)*|(all )?(the )?tests?|the (test )?suite|everything) (now |both |all |still )*pass(es|ed)?( locally| again| cleanly)?( \\(\\d+ passed\\))?[.;]?$")

// outline reports the frame of a plan or a document rather than
// something found: a step, phase or status label over a title or a
// phrase that states nothing ("Phase 2: Claude Implementation (7
// steps)"), what is still to be done ("Next steps: proceed to
// `/speckit.plan`") and an effort estimate ("Estimated effort: 3-4
// hours", "Phase 1 (High): 2-4 days"). What the plan says lives in the
// final answer, which the memory quotes. A label over a clause still says
// something ("Conclusion: the race comes from t.Parallel"), and so does a
// duration with no estimate about it ("the keys expire after 12-24
// hours").
func outline(s string) bool {
	if m := headingLabelRE().FindStringSubmatch(s); m != nil && (verbless(m[1]) || titled(m[1])) {
		return true
	}
	return planLabelRE().MatchString(s) || estimateRE().MatchString(s)
}

var (
	headingLabelRE = lazyRE(`(?i)^(?:(?:step|phase|stage|part|option|milestone|file|scenario)\b[^:]{0,24}|(?:implementation|solution|conclusion|status|context|summary|goal|approach|overview|plan|priority|success criteria|key insight)(?: \w+)?)\s*:\s*(.*)$`)
	// planLabelRE opens what is still to be done, whatever follows.
	planLabelRE = lazyRE(`(?i)^(next(?: steps?)?|verify|to ?do|action items?|follow[- ]ups?)\s*:`)
	estimateRE  = lazyRE(`(?i)(\b(estimated?|estimates?|effort|eta)\b[^.]{0,40}|^[^:.]{1,40}:\s*[^.]{0,30}?)\b\d+(\.\d+)?\s*(-|–|to)\s*\d+(\.\d+)?\s*(\w+ )?(hours?|hrs?|days?|weeks?|months?)\b`)
)

// titled reports a phrase written as a title: most of its words
// capitalised ("Core Abstractions (6 steps)", "Understanding What You
// Want to Build"), brackets and small words aside.
func titled(s string) bool {
	words, caps := 0, 0
	for _, w := range strings.Fields(bracketedRE().ReplaceAllString(stripCode(s), " ")) {
		r, _ := utf8.DecodeRuneInString(w)
		if !unicode.IsLetter(r) || smallWords()[strings.ToLower(w)] {
			continue
		}
		words++
		if unicode.IsUpper(r) {
			caps++
		}
	}
	return words >= 2 && caps*10 >= words*8
}

var (
	bracketedRE = lazyRE(`\([^)]*\)|\[[^\]]*\]`)
	smallWords  = wordSet(`a an the to of and or in on for with by at from as vs`)
)

// verbRE finds a word that makes a clause in English: an auxiliary or
// modal (also in its "n't" form), a word ending as a verb in the third
// person or the past does ("returns", "Fixed"), or a common irregular
// past ("broke", "found"). Plural nouns match too, which only keeps a
// sentence that might have gone; a word in capitals ("CSS") does not.
var verbRE = lazyRE(`\b(?i:is|are|was|were|be|been|has|have|had|does|do|did|can|cannot|could|will|would|should|must|may|might|need|\w+n['’]t|` +
	`broke|broken|found|made|took|taken|gave|given|got|went|gone|came|ran|built|wrote|written|left|kept|lost|began|begun|became|brought|` +
	`caught|chose|knew|known|led|meant|met|paid|said|sent|shown|sold|stood|told|thought|threw|understood|won|saw|seen|done|held|fell|felt|stuck|hid|hidden)\b|` +
	`\b[A-Za-z][a-z]+(s|ed)\b`)

// verbless reports an English sentence with no verb: a list item or a
// caption ("Next.js 14 with TypeScript, Tailwind CSS, and ESLint",
// "Append-only DAG instead of mutable record") that names things and
// states nothing about them (findingScore lets a "Label: value" line
// through: it says the label is the value, "Runtime: Node.js ≥24"). Text
// in scripts without spaces between words is left alone.
func verbless(s string) bool {
	for _, r := range s {
		if r >= 0x2E80 {
			return false
		}
	}
	return !verbRE().MatchString(stripCode(s))
}

// stripCode drops `code` spans, whose words are names, not English.
func stripCode(s string) string { return codeSpanRE().ReplaceAllString(s, "x") }

var codeSpanRE = lazyRE("`[^`]*`")

// diagnosisRE is how the agent names a cause.
var diagnosisRE = lazyRE(`(?i)\bthe (root )?(issue|problem|cause|bug|culprit) (is|was)\b`)

// findingScore is 0 for a sentence that is no finding, else higher for
// more concrete ones.
func findingScore(s string) int {
	if len(s) < findingMinLen || len(s) > findingMaxLen || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "？") || strings.HasSuffix(s, ":") {
		return 0
	}
	if r, _ := utf8.DecodeRuneInString(s); r > 0x2000 && !unicode.IsLetter(r) {
		// "✅ Backward compatible", "❌ Skip session": pros and cons of
		// a proposal, not something found out
		return 0
	}
	if planRE().MatchString(s) || guessRE().MatchString(s) || passReportRE().MatchString(s) || outline(s) || verbless(s) && !labelledRE().MatchString(s) {
		return 0
	}
	evidence := min(3, len(evidenceRE().FindAllString(s, 4)))
	switch {
	case findingRE().MatchString(s):
		return 3 + evidence
	case evidence >= 1 && labelledRE().MatchString(s):
		// "Runtime: Node.js ≥24.0.0": a labelled fact of an overview
		return 2 + evidence
	case evidence >= 2:
		// no explaining word, but concrete: names, paths, numbers
		return evidence
	}
	return 0
}

// stripMarkdown drops emphasis and heading marks, which are no part of
// what the agent said.
func stripMarkdown(s string) string {
	var lines []string
	fenced := false
	for _, l := range strings.Split(s, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") {
			fenced = !fenced
			continue
		}
		if fenced || strings.HasPrefix(t, "|") {
			continue
		}
		t = strings.TrimLeft(t, "#>")
		lines = append(lines, strings.ReplaceAll(strings.TrimSpace(t), "**", ""))
	}
	return strings.Join(lines, "\n")
}

// explanationOf keeps the first sentence of what the agent said after a
// failure, and the next one unless it is only a plan: together they
// usually say why it failed and what the agent changes.
func explanationOf(text string) string {
	var ss []string
	for _, s := range sentences(stripMarkdown(text), 3) {
		if !dismissRE().MatchString(s) {
			ss = append(ss, s)
		}
	}
	if len(ss) == 0 || planRE().MatchString(ss[0]) && !findingRE().MatchString(ss[0]) {
		return ""
	}
	out := ss[0]
	if len(ss) > 1 && !planRE().MatchString(ss[1]) && len(out)+len(ss[1]) < 260 {
		out += " " + ss[1]
	}
	return textcut.Line(out, 260)
}
