package heuristic

import (
	"cmp"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/english"
	"github.com/memctl/memctl/internal/program"
	"github.com/memctl/memctl/internal/rawmemory"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/textcut"
)

// What goes in which section, and how a text too long shrinks by whole items: docs/extractor.md.

// class orders the items of a text for shrink, the first to go first (the final answer last; cNote:
// interruptions and the errors of tools that are not a shell).
type class int

const ( // cChanged: the raw memory's list of files changed; the summary's is cFile
	cNote, cCheck, cSentence, cRef, cChanged, cFile, cEarlier class = 0, 1, 2, 3, 4, 5, 6
	cFailure, cFix, cCorrection, cStep, cUser, cPref, cFinal  class = 7, 8, 9, 10, 11, 12, 13
)

// entry is an item of a task's texts, or a sentence of an answer; within
// a class the less worth goes first. skip: not in the raw memory.
type entry struct {
	text            string
	class           class
	worth, task, at int
	gone, skip      bool
}

// answerDoc is an answer as a memory quotes it; whole stands for it.
type answerDoc struct {
	label, reply string
	whole        *entry
	sentences    []*entry
}

type taskDoc struct {
	name, outcome, reason                   string
	live, score                             int
	floor                                   bool // files changed under names not known: live is a lower bound
	prefs, knowledge, failures, refs, steps []*entry
	answers                                 []answerDoc
}

// add appends an item to a list of d; an empty text is none.
func (d *taskDoc) add(list *[]*entry, c class, text string) {
	if text != "" {
		*list = append(*list, &entry{text: text, class: c})
	}
}

func (x *Extractor) taskDoc(t *task) taskDoc {
	d := taskDoc{name: textcut.Line(t.title(), 100)}
	d.outcome, d.reason = t.outcome()
	live := t.files.live()
	d.live, d.floor = len(live), t.files.floor
	d.score = t.calls - t.explore + 2*len(live) + t.followUps + len(t.prefs)
	for _, p := range t.prefs {
		d.add(&d.prefs, cPref, userWords(p, prefMax))
	}
	for _, f := range t.fixes { // a pass with nothing between is stated as such: no cause (flakiness) is named
		d.add(&d.knowledge, cFix, when(f.Pass.Outcome == program.Passed, rawmemory.TagFix+" "+fixLine(f)))
		d.add(&d.failures, cFailure, when(f.Pass.Outcome == program.Failed, fixLine(f))) // it failed otherwise: no fix
	}
	checks := slices.DeleteFunc(slices.Collect(maps.Values(t.checks)), func(c *call) bool {
		covered := slices.ContainsFunc(t.fixes, func(f fix) bool { return f.Pass.Command == c.command })
		return c.status != stOK || covered || !t.verifies(c)
	})
	slices.SortFunc(checks, func(a, b *call) int { return b.seq - a.seq }) // the latest first
	for _, c := range capped(checks, maxChecks) {
		d.add(&d.knowledge, cCheck, rawmemory.TagCheck+" "+codeLine(program.WithoutFilters(c.command), 160)+" passed"+
			when(c.tally != "", " ("+code(c.tally)+")")+
			when(strings.ContainsAny(c.script, "&|;"), "; it runs "+codeLine(c.script, 200))+".")
	}
	for i := len(t.answers) - 1; i >= 0 && len(d.answers) < maxAnswers; i-- { // the latest first
		a, last := t.answers[i], i == len(t.answers)-1 && t.finalSince
		if a.withdrawn || len(a.sentences) == 0 || !last && a.unchecked {
			continue
		}
		doc, ss := answerDoc{label: cmp.Or(when(last, "Final answer"), "Earlier answer"), reply: a.reply}, a.sentences
		if a.unchecked { // what the model believed, nothing looked at: its opening, summary only
			doc.label, ss = doc.label+" (given before any tool call)", firstSentences(ss, uncheckedMax)
		}
		doc.whole = &entry{class: map[bool]class{true: cFinal, false: cEarlier}[last], skip: a.unchecked}
		for _, s := range ss {
			doc.sentences = append(doc.sentences, &entry{text: s, class: cSentence, worth: worth(s)})
		}
		d.answers = append(d.answers, doc)
	}
	x.failures(t, &d)
	for _, c := range t.corrections {
		d.add(&d.failures, cCorrection, "The user corrected the agent: "+userWords(c, lineMax)+".")
	}
	x.references(t, live, &d)
	d.steps = t.steps.entries()
	return d
}

// worth counts what a sentence names that a later session can look up: code, paths, numbers, addresses.
func worth(s string) int {
	n := strings.Count(s, "`") / 2
	for _, w := range strings.Fields(s) {
		n += map[bool]int{true: 1}[strings.ContainsAny(strings.Trim(w, ".,;:()"), "./#0123456789")]
	}
	return n
}

// fixLine phrases a failure, the run that ended it (a pass, or a failure with another error) and what ran between.
func fixLine(f fix) string {
	escalated, failed := f.Pass.Escalated && !f.Last.Escalated, f.Pass.Outcome == program.Failed
	same := program.WithoutFilters(f.Last.Command) == program.WithoutFilters(f.Pass.Command)
	ended, next := cmp.Or(when(failed, "failed differently"), "passed"), cmp.Or(when(failed, "the rerun"), "the pass")
	line := runLine(f.Last.Command, 120) + " failed" + when(f.Times > 1, " "+times(f.Times)) +
		when(escalated && f.Quiet(), " in the sandbox") + errPart(f.fail, f.Others) + " and " +
		cmp.Or(when(same && escalated, ended+" when rerun with escalated permissions"), when(same, ended+" on a rerun"),
			runLine(f.Pass.Command, 120)+" "+ended) + when(f.pass.tally != "", " ("+code(f.pass.tally)+")")
	between := joinSet("; ", when(len(f.Edited) > 0, "edited "+strings.Join(f.Edited, ", ")),
		when(len(f.Ran) > 0, "ran "+codeList(f.Ran, 100)), when(f.More > 0, "and "+itoa(f.More)+" more"))
	quiet := cmp.Or(when(failed, "."), "; nothing else ran between the failure and the pass.") // the commands say it
	return line + cmp.Or(when(!f.Quiet(), "; between the failure and "+next+": "+between+"."), quiet)
}

// runLine quotes a command line cut to n bytes, from its work on if the cut hides it and no "&&" may have stopped it.
func runLine(cmd string, n int) string {
	whole, work := textcut.Line(cmd, n), program.Work(cmd)
	start, before := strings.Fields(work+" "), strings.TrimRight(cmd[:max(strings.LastIndex(cmd, work), 0)], " \t")
	alone := strings.HasSuffix(before, ";") || strings.HasSuffix(before, "\n") && !strings.HasSuffix(before, "\\\n")
	return code(cmp.Or(when(alone && !strings.Contains(whole, strings.Join(start[:min(2, len(start))], " ")),
		"… "+textcut.Line(work, n-len("… "))), whole))
}

// errPart quotes a failed call's error line and failing tests: the latest failure's, an earlier one's error line
// was picked before the later runs showed which lines recur; and counts the failed runs of its work written otherwise.
func errPart(c *call, others int) string {
	c = cmp.Or(c, &call{})
	s := joinSet("; ", when(c.errLine != "", codeLine(c.errLine, 160)),
		when(len(c.tests) > 0, "failing: "+strings.Join(c.tests, ", ")),
		when(others > 0, itoa(others)+" earlier run"+when(others > 1, "s")+" written differently failed too"))
	return when(s != "", " ("+s+")")
}

// failures lists what failed or did not run, and the summary's notes.
func (x *Extractor) failures(t *task, d *taskDoc) {
	for _, f := range capped(t.open(), maxFailures) {
		line := runLine(f.Last.Command, 120) + " failed " + times(f.Times) + errPart(t.failures[f.Last.Ref], f.Others)
		line += when(f.Unsettled > 0, " and was run again with no exit status of its own") // what the transcript lacks
		d.add(&d.failures, cFailure, line+".")
	}
	for _, c := range t.toolFails {
		line := "The " + strings.TrimPrefix(c.describe(), "the ") + " failed" +
			when(c.errLine != "", " ("+codeLine(c.errLine, 160)+")") + when(c.passedLater, " and passed when run again"+
			when(len(c.between) > 0, "; between the failure and the pass: "+strings.Join(c.between, ", ")))
		d.add(&d.failures, cNote, line+".")
	}
	for _, c := range t.refused {
		edit := when(c.action == sessions.ActionEdit, ": the file was not written")
		switch {
		case c.reads: // a look around the user stopped shows nothing of the project
		case c.status == stRejected || c.status == stDenied:
			d.add(&d.failures, cFailure, cmp.Or(when(c.status == stDenied, "Permission for "+c.describe()+
				" was not granted"), "The user rejected "+c.describe())+"; it did not run"+edit+".")
		default:
			d.add(&d.failures, cNote, "The user interrupted "+c.describe()+".")
		}
	}
	d.add(&d.failures, cNote, when(t.interrupts > 0 && len(t.refused) == 0,
		"The user interrupted the agent "+times(t.interrupts)+"."))
	for _, f := range t.files.undone() {
		d.add(&d.failures, cFailure, "The changes to "+x.relPath(f.path)+" were undone ("+f.undone+
			"); they are not part of the result.")
	}
}

// references lists the changed files that stand, with the line their latest edit put in, commits and reads.
func (x *Extractor) references(t *task, live []*fileRec, d *taskDoc) {
	var names []string
	inPlace := when(len(t.files.inPlace) > 0, "the files "+codeList(t.files.inPlace, 100)+" edited in place")
	for _, f := range capped(live, 10) {
		name, added := x.relPath(f.path)+" ("+strings.Join(f.ops, ", ")+")", t.lines[x.relPath(f.path)]
		names = append(names, name)
		d.add(&d.refs, cFile, name+when(added != "", "; its latest edit put in "+codeLine(added, 100)))
	}
	d.add(&d.refs, cFile, when(len(live) > 10, "…"+more(len(live), 10)+" files"))
	d.add(&d.refs, cChanged, when(len(names) > 0 || inPlace != "", "Files changed: "+
		joinSet(", and ", strings.Join(names, ", ")+more(len(live), 10), inPlace)))
	d.add(&d.refs, cRef, when(len(t.commits) > 0, "Commits made: "+commitsText(t.commits)))
	d.add(&d.refs, cRef, when(len(t.reads) > 0,
		"Files read: "+strings.Join(capped(t.reads, 8), ", ")+more(len(t.reads), 8)))
}

// Result renders what was gathered; call it once, after the last event. A thread without a message of the
// user, or an unknown version, gives the empty result.
func (x *Extractor) Result() Result {
	x.flushTyped()
	if e := x.tail; e != nil { // the session's last event is the agent's message: its answer, whatever ran before
		x.tail, e.Final = nil, true
		x.assistant(*e)
	}
	if (x.version != V1 && x.version != V2) || len(x.tasks) == 0 { // a task opens on a message of the user
		return Result{}
	}
	docs, main := make([]taskDoc, len(x.tasks)), 0
	for i, t := range x.tasks {
		for _, f := range t.failures { // a line a later pass printed is no error line either
			f.errLine = x.errorLine(f)
		}
		docs[i] = x.taskDoc(t)
		if docs[i].score > docs[main].score {
			main = i
		}
	}
	res := Result{Slug: x.slug(x.tasks[main].request)}
	// In v1 the raw memory quotes the answers; the summary keeps its steps.
	first := map[bool][]class{true: {cSentence, cEarlier, cFinal, cStep}, false: {cStep}}[x.version == V1]
	res.RolloutSummary = shrink(docs, true, first, summaryBudget, func() string {
		return rawmemory.RenderSummary(x.doc(docs, main, true), x.version == V2)
	})
	if x.version == V1 {
		res.RawMemory = shrink(docs, false, nil, rawMemoryBudget, func() string {
			return rawmemory.Render(x.doc(docs, main, false))
		})
	}
	return res
}

// shrink renders docs within budget bytes, dropping items: the classes in first, then the others in class
// order; within a class the less worth, the last task's, the latest first; answers' sentences by dropSentence.
func shrink(docs []taskDoc, summary bool, first []class, budget int, render func() string) string {
	all, answers := []*entry(nil), [][]*entry(nil)
	for i := range docs {
		for j, l := range [][]*entry{docs[i].prefs, docs[i].knowledge, docs[i].failures, docs[i].refs, docs[i].steps} {
			for k, e := range l {
				e.gone, e.task, e.at = false, i, j*1000+k
				all = append(all, e)
			}
		}
		for _, a := range docs[i].answers {
			for _, e := range a.sentences {
				e.gone = false
			}
			if a.whole.gone = false; summary || !a.whole.skip {
				all = append(all, a.whole)
				answers = append(answers, a.sentences)
			}
		}
	}
	rank := func(c class) int { // the classes in first, in their order, before all others (-len(first) … -1)
		return cmp.Or(slices.Index(first, c)+1, int(c)+len(first)+1) - len(first) - 1
	}
	all = append(all, &entry{class: cSentence}) // where the answers' sentences go
	slices.SortStableFunc(all, func(a, b *entry) int {
		return cmp.Or(rank(a.class)-rank(b.class), a.worth-b.worth, b.task-a.task, b.at-a.at)
	})
	out := render()
	for i := 0; len(out) > budget && i < len(all); {
		for n := max(1, (len(out)-budget)/400); n > 0 && i < len(all); n-- { // far over, several go per render
			if all[i].class != cSentence || !dropSentence(answers) { // answers lose a sentence at a time
				all[i].gone = all[i].class != cSentence
				i++
			}
		}
		out = render()
	}
	return out
}

// dropSentence drops the least worth sentence of the longest answer (its best kept); false when none is left.
func dropSentence(answers [][]*entry) bool {
	low, size := &entry{}, 0 // a sentinel: set only when a sentence goes
	for _, a := range answers {
		live := slices.DeleteFunc(slices.Clone(a), func(e *entry) bool { return e.gone })
		if len(live) < 2 { // a last sentence stays
			continue
		}
		best, n, least := slices.MaxFunc(live, func(p, q *entry) int { return p.worth - q.worth }), 0, (*entry)(nil)
		for _, e := range live {
			if e != best {
				n += len(e.text)
				if least == nil || e.worth <= least.worth {
					least = e
				}
			}
		}
		if n > size {
			low, size = least, n
		}
	}
	low.gone = true
	return size > 0
}

// doc is the rawmemory document of the tasks as shrink left them.
func (x *Extractor) doc(docs []taskDoc, main int, summary bool) rawmemory.Doc {
	kept := func(l []*entry) (out []string) {
		for _, e := range l {
			if !e.gone && (summary && e.class != cChanged || !summary && e.class != cFile) {
				out = append(out, e.text)
			}
		}
		return out
	}
	m, others, doc := docs[main], english.Count(len(docs)-1, "more task", "more tasks"), rawmemory.Doc{}
	if summary {
		doc.Title, doc.Context = m.name+when(len(docs) > 1, " (and "+others+")")+" in "+x.project(), x.context()
	} else {
		desc := m.name + " — outcome " + m.outcome +
			when(m.live > 0, "; changed "+when(m.floor, "at least ")+english.Count(m.live, "file", "files")) +
			when(len(docs) > 1, "; "+others+" in the same session")
		doc.Front = rawmemory.Front{Description: desc, Task: m.name, TaskGroup: x.project(), TaskOutcome: m.outcome,
			Cwd: cmp.Or(x.meta.Cwd, "unknown"), Keywords: x.topKeywords(maxKeywords),
			Other: map[string]string{rawmemory.WrittenByKey: rawmemory.WrittenByHeuristic}}
	}
	for _, d := range docs {
		knowledge := kept(d.knowledge)
		for _, a := range d.answers {
			if s := kept(a.sentences); len(s) > 0 && !a.whole.gone && (summary || !a.whole.skip) {
				reply := when(a.reply != "", "; "+a.reply)
				knowledge = append(knowledge, a.label+": "+quote(joinSentences(s))+reply)
			}
		}
		task := rawmemory.Task{Title: d.name, Outcome: d.outcome, Prefs: kept(d.prefs), Knowledge: knowledge,
			Failures: kept(d.failures), Refs: kept(d.refs)}
		if summary {
			task.OutcomeReason, task.Steps = d.reason, kept(d.steps)
		} else {
			task.Task, task.Group = d.name, x.project()
		}
		doc.Tasks = append(doc.Tasks, task)
	}
	return doc
}

// joinSentences joins sentences, closing a list item without a stop by ";".
func joinSentences(ss []string) (b string) {
	for i, s := range ss {
		r, _ := utf8.DecodeLastRuneInString(s)
		b += s + when(i < len(ss)-1, when(!strings.ContainsRune(".!?;:)。！？", r), ";")+" ")
	}
	return b
}

// slug names the thread after the request's words (five at most), the keywords filling in up to three.
func (x *Extractor) slug(request string) string {
	parts, words := []string(nil), meaningfulWords(request)
	for i, w := range append(words, x.topKeywords(maxKeywords)...) {
		if len(parts) == 5 || i >= len(words) && len(parts) >= 3 {
			break
		}
		p := strings.Trim(strings.Map(func(r rune) rune { // "-", "." and "/" join; a letter, digit or "_" stays
			return cmp.Or(map[bool]rune{true: r}[r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_'],
				map[bool]rune{true: '-', false: -1}[strings.ContainsRune("-./", r)])
		}, strings.ToLower(w)), "-_")
		if p != "" && !slices.Contains(parts, p) {
			parts = append(parts, p)
		}
	}
	s := strings.Join(parts, "-")
	if len(s) > maxSlugBytes { // at the last hyphen that fits, else at the cap
		s = s[:cmp.Or(max(strings.LastIndexByte(s[:maxSlugBytes], '-'), 0), maxSlugBytes)]
	}
	return s
}
