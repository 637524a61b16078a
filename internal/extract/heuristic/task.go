package heuristic

import (
	"cmp"
	"slices"
	"strings"

	"github.com/memctl/memctl/internal/lazyre"
	"github.com/memctl/memctl/internal/program"
	"github.com/memctl/memctl/internal/prompttemplate"
	"github.com/memctl/memctl/internal/rawmemory"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/textcut"
)

// task is what the extractor keeps about one request of the user. negAfter: its latest message
// pushed back, after the last passing check; finalSince: a final answer came since the
// user spoke (answeredBefore: before, for a typo taken back); endedRefused: its latest act was refused.
type task struct {
	request, next                          string // next: the message opening the next task (it may accept an answer)
	prefs, corrections, reads              []string
	words                                  map[string]bool
	negAfter, finalSince, answered         bool
	answeredBefore, endedRefused, template bool      // template: its request is one (Extractor.template)
	answers                                []*answer // the final answers, one per message answered
	final                                  string    // the latest final answer, whole
	files                                  files
	lines                                  map[string]string // file → the first line its latest edit put in
	commits                                []program.Commit
	pairs                                  program.Pairer
	fixes                                  []fix
	failures                               map[int]*call    // failed shell calls by sequence
	checks                                 map[string]*call // the latest run of each check family
	lastCheck                              *call
	refused, toolFails                     []*call // calls that did not run; failed calls of other tools
	calls, ran, failed, unknown, explore   int
	followUps, interrupts                  int
	steps                                  timeline
}

// fix is a failure and the pass of the same work that ended it.
type fix struct {
	program.Pair
	fail, pass *call
}

func (t *task) addWords(words []string) {
	for _, w := range words {
		if len(t.words) < maxTaskWords {
			t.words[w] = true
		}
	}
}

// shares reports a word the task holds, or unless exactly a related form ("track", "tracking").
func (t *task) shares(words []string, exactly bool) bool {
	for _, w := range words {
		for tw := range t.words {
			related := min(len(w), len(tw)) >= 4 && (strings.HasPrefix(w, tw) || strings.HasPrefix(tw, w))
			if w == tw || !exactly && related {
				return true
			}
		}
	}
	return false
}

func (x *Extractor) human(e sessions.Event) {
	e.Text = harnessRE().ReplaceAllString(e.Text, "") // what the harness put in is no word of the user's
	own, paste := terminalOutput(e.Text)
	pasted := strings.TrimSpace(own) == "" // all of it pasted: quoted as such; no request, reply, rule or correction
	e.Text = cmp.Or(when(!pasted, own), e.Text)
	lines := strings.Split(normQuotes(e.Text), "\n")
	for i, l := range lines {
		lines[i] = oneLine(l)
	}
	text := strings.Join(slices.DeleteFunc(lines, func(l string) bool { return l == "" }), "\n")
	if text == "" {
		return
	}
	x.humans, x.looked = x.humans+1, false
	words, cur := meaningfulWords(text), x.current()
	// A complaint is about the task's work when it names it or is short, or opens by overruling ("actually …").
	first := strings.ToLower(strings.Trim(strings.Fields(text)[0], ",.!:;"))
	tmpl := pasted || x.template(text) // no correction, no reply and no rule: not the user's own words
	complaint := negativeRE().MatchString(text) && (cur == nil || len(words) < 3 || cur.shares(words, true))
	asked := !tmpl && x.question != "" // a reply to the agent's question answers it, whatever its words
	negative := !tmpl && !asked && (complaint || first == "actually" || first == "instead")
	// A short reply to the agent's question ("yes", "1", "oui", "A") says nothing without it: both are quoted.
	short := asked && len(strings.Fields(text)) <= 3
	reply := when(!tmpl && len(words) > 0 || short, text)
	replied := when(short, "the agent asked: "+quote(x.question)+"; ") + "the user replied: " + userWords(text, lineMax)
	label := rawmemory.StepAsked + when(pasted, pastedMark)
	if cur == nil || !asked && x.startsTask(cur, text, first, words, negative) {
		if cur != nil && cur.finalSince {
			cur.next = reply
		}
		cur = &task{request: when(!pasted, text), words: map[string]bool{}, files: files{m: map[string]*fileRec{}},
			failures: map[int]*call{}, checks: map[string]*call{}, lines: map[string]string{}, template: tmpl != pasted}
		x.tasks = append(x.tasks, cur)
		cur.steps.said(label, text)
	} else { // the first own words name a task pasted output opened
		cur.followUps, cur.request = cur.followUps+1, cmp.Or(cur.request, when(!tmpl, text))
		if n := len(cur.answers); cur.finalSince && n > 0 { // the answer it replies to
			cur.answers[n-1].reply = when(reply != "", replied)
		}
		for _, a := range cur.answers { // a push back: what the task's answers said so far did not stand
			a.withdrawn = a.withdrawn || negative
		}
		if negative && len(cur.corrections) < maxCorrections {
			cur.corrections = append(cur.corrections, text)
		}
		label = cmp.Or(when(negative, "The user pushed back: "), rawmemory.StepFollowUp) + when(pasted, pastedMark)
		if short {
			cur.steps.add(strings.ToUpper(replied[:1])+replied[1:]+".", 3)
		} else if reply != "" || negative || tmpl {
			cur.steps.said(label, text)
		}
		cur.negAfter = negative
	}
	if !pasted && paste != "" {
		cur.steps.said(label+pastedMark, paste)
	}
	cur.answeredBefore, cur.answered, cur.finalSince = cur.finalSince, false, false
	cur.addWords(words)
	for _, w := range words {
		x.keyword(w, 2)
	}
	prefs, keys := preferences(when(!tmpl, normQuotes(e.Text)), asked && negativeRE().MatchString(text), x.said)
	for _, p := range prefs {
		kept := func(t *task) bool { return strings.Contains(strings.Join(t.prefs, "\n"), p) } // or in a longer one
		if !slices.ContainsFunc(x.tasks, kept) && len(cur.prefs) < maxPrefs {
			cur.prefs = append(cur.prefs, p)
		}
	}
	x.said = capped(append(x.said, keys), maxCalls) // a rule stands across tasks: said in any message of the session
	x.refusal, x.question = false, ""
}

// template reports a message the user did not type word by word (prompttemplate.Is); a long message whose
// opening an earlier one had is one, and the sentences the earlier one gave as rules are the template's too.
func (x *Extractor) template(text string) bool {
	opening := text[:min(len(text), 160)]
	again := len(text) >= 160 && slices.Contains(x.openings, opening)
	if len(text) >= 160 && !again && len(x.openings) < 64 {
		x.openings = append(x.openings, opening)
	}
	if again { // its first use's rules were the template's
		for _, t := range x.tasks {
			t.prefs = slices.DeleteFunc(t.prefs, func(p string) bool { return strings.Contains(oneLine(text), p) })
		}
	}
	return prompttemplate.Is(prompttemplate.Message{Text: text, Repeats: map[bool]int{true: 1}[again]})
}

// startsTask reports a message that opens a task after a final answer: ten words of its own, or two sharing
// nothing with the task and no continuation; never a complaint, a refusal's answer or a rule.
func (x *Extractor) startsTask(cur *task, text, first string, words []string, negative bool) bool {
	clause, _, _ := strings.Cut(strings.NewReplacer(".", ",", ";", ",", ":", ",", "\n", ",").Replace(text), ",")
	if len(x.tasks) >= maxTasks || !cur.finalSince || negative || x.refusal || standingRE().MatchString(clause) {
		return false
	}
	link := func(f string) bool { return strings.Contains(f, "://") }
	n := len(meaningfulWords(strings.Join(slices.DeleteFunc(strings.Fields(text), link), " "))) // links aside
	// Under two words (a link, a nudge) it is about the current request.
	return n >= 10 || n >= 2 && !continuations()[first] && !cur.shares(words, false)
}

// continuations open a message that goes on with the current request.
var continuations = lazyre.Words(`also and now then but still ok okay great thanks thank it it's its that that's this
	these those same again what how more why yes no nope wait instead actually hmm plus next continue go do try i looks
	seems don't dont`)

// harnessRE: what the agent's harness put into a message of the user, not typed by them: an image's
// placeholder, a notice in a tag of its own named in snake case (<ide_opened_file>), or in kebab case opening
// the message (<hook-output>; inside it, such a tag may be a template's markup).
var harnessRE = lazyre.New(`(?is)\[image[^\]\n]{0,24}\]|<[a-z]+_[a-z_]*>.*?</[a-z]+_[a-z_]*>|` +
	`^\s*<[a-z]+-[a-z-]*>.*?</[a-z]+-[a-z-]*>`)

// negativeRE: the work did not work or was not what the user wanted; a "no" that stands as an answer (alone, before
// a stop, comma, dash or clause), not one that opens an instruction ("no cache").
var negativeRE = lazyre.New(`(?i)\b(doesn'?t|does not|don'?t|didn'?t|did not|isn'?t|is not|not|never) work|` +
	`\bnot working\b|\bstill (fail\w*|broken|crash\w*|wrong|not|doesn'?t|does not|getting|seeing|see)\b|` +
	`\b(is|are|was|looks|it'?s|that'?s|all|everything) (wrong|broken)\b|\b(revert|undo)\b|^nope\b|` +
	`^no(\s*([,.!\n\x{2014}\x{2013}-]|$)|\s+(i|it|that|this|the|you|we|not|don'?t|like|just|wait|please)\b)|` +
	`\bthat'?s not\b|\bthat is not\b|\bnot what i\b|\b(bad|terrible|poor) (idea|approach)\b|` +
	`\bnot (a )?good (idea|approach)\b|\bwrong approach\b|\bnot valid\b|does ?n[o']t make sense`)

func (x *Extractor) interrupted(e sessions.Event) {
	t := x.current()
	if x.refusal = true; t == nil {
		return
	}
	steps := t.steps.steps
	if n := len(steps); n > 1 && steps[n-1].user != "" && len(meaningfulWords(steps[n-1].user)) < 2 {
		// A word or two stopped before the agent did anything: a typo.
		for _, w := range meaningfulWords(steps[n-1].user) {
			x.keyword(w, -2)
		}
		t.steps.steps, t.followUps, t.finalSince = steps[:n-1], t.followUps-1, t.answeredBefore
		if len(t.answers) > 0 && t.finalSince {
			t.answers[len(t.answers)-1].reply = "" // the typo answered nothing
		}
		return
	}
	t.interrupts, t.endedRefused = t.interrupts+1, true // endedRefused: until a call runs again
	t.steps.add("The user interrupted the agent.", 3)
}

// userWords quotes what the user typed, shortened by whole sentences or list items, and says so ("…"): a
// list's number that ends a sentence ("… 2.", 1 or the next number) opens the next one, so no cut parts the two.
func userWords(s string, n int) string {
	ss, k := textcut.Sentences(oneLine(s)), 1
	for i := 0; i+1 < len(ss); i++ {
		if f := strings.Fields(ss[i]); f[len(f)-1] == "1." || f[len(f)-1] == itoa(k)+"." {
			k = map[bool]int{true: 2, false: k + 1}[f[len(f)-1] == "1."]
			ss[i], ss[i+1] = strings.Join(f[:len(f)-1], " "), f[len(f)-1]+" "+ss[i+1]
		}
	}
	kept := firstSentences(ss, n+1)
	return quote(oneLine(strings.Join(kept, " ")) + when(len(kept) < len(ss), " …"))
}
