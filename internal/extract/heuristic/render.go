package heuristic

import (
	"slices"
	"strings"

	"github.com/memctl/memctl/internal/english"
	"github.com/memctl/memctl/internal/program"
	"github.com/memctl/memctl/internal/rawmemory"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/textcut"
)

// What goes in which section of a task (the consolidator turns "Preference
// signals" into the user's preferences and Check and Fix items into
// tips, so each holds only what its name promises):
//
//   - Preference signals: the user's standing instructions, verbatim.
//   - Reusable knowledge: Fix (a failure, the pass that ended it and what
//     ran between), Check (a passing check and the changes it verified),
//     and the agent's final answers, labelled as its words.
//   - Failures and how to do differently: failures no pass ended, flaky
//     passes, calls that did not run, changes thrown away, the user's
//     corrections, verbatim.
//   - References: commands that changed state, with their counts, the
//     commits made, the files whose change stands, the files read.
//
// When a text is over its budget, whole items are dropped, the least
// telling first (shrink); no sentence is cut.

// taskDoc is a task's lists, before the budget.
type taskDoc struct {
	name, outcome, reason string
	// For the rollout summary only: the files changed, and what did not
	// run or failed outside the work (an interruption, a refused plan, a
	// tool's own error).
	files, notes          []string
	prefs, fixes, checks  []string
	final, earlier        []quoted // the latest final answer; the earlier ones
	failures, corrections []string
	refs, steps           []string
	live                  int
	score                 int
}

// drops are the ways to shorten the tasks' lists, the least telling
// first: each drops one whole item and reports whether it did. A list is
// cut from its end, the last task's first; a final answer loses its last
// sentence, the longest answer first, down to its first sentence before
// the failures go, and goes whole only at the very end. The steps that
// quote the user go after every other step; the steps, which only the
// rollout summary prints, are left out with steps false.
func drops(steps, answered bool) []func(ds []taskDoc) bool {
	last := func(l func(d *taskDoc) *[]string) func(ds []taskDoc) bool {
		return func(ds []taskDoc) bool {
			for i := len(ds) - 1; i >= 0; i-- {
				if p := l(&ds[i]); len(*p) > 0 {
					*p = (*p)[:len(*p)-1]
					return true
				}
			}
			return false
		}
	}
	step := func(human bool) func(ds []taskDoc) bool {
		return func(ds []taskDoc) bool {
			for i := len(ds) - 1; i >= 0; i-- {
				at := -1
				for j := len(ds[i].steps) - 1; j >= 0; j-- {
					if humanStep(ds[i].steps[j]) == human && (at < 0 || stepWorth(ds[i].steps[j]) < stepWorth(ds[i].steps[at])) {
						at = j
					}
				}
				if at >= 0 {
					ds[i].steps = slices.Delete(ds[i].steps, at, at+1)
					return true
				}
			}
			return false
		}
	}
	shorten := func(ds []taskDoc) bool {
		var long *quoted // the longest answer of more than one sentence
		for i := range ds {
			for _, l := range []*[]quoted{&ds[i].final, &ds[i].earlier} {
				for j := range *l {
					if q := &(*l)[j]; len(q.sentences) > 1 && (long == nil || q.size() > long.size()) {
						long = q
					}
				}
			}
		}
		if long == nil {
			return false
		}
		low := len(long.sentences) - 1
		for i := low - 1; i >= 0; i-- {
			if worth(long.sentences[i]) < worth(long.sentences[low]) {
				low = i
			}
		}
		long.sentences = slices.Delete(long.sentences, low, low+1)
		return true
	}
	out := []func(ds []taskDoc) bool{
		last(func(d *taskDoc) *[]string { return &d.notes }),
		last(func(d *taskDoc) *[]string { return &d.checks }), shorten, last(func(d *taskDoc) *[]string { return &d.refs }),
		last(func(d *taskDoc) *[]string { return &d.files }), lastAnswer(func(d *taskDoc) *[]quoted { return &d.earlier }),
		last(func(d *taskDoc) *[]string { return &d.failures }), last(func(d *taskDoc) *[]string { return &d.fixes }),
		last(func(d *taskDoc) *[]string { return &d.corrections }), step(true),
		last(func(d *taskDoc) *[]string { return &d.prefs }), lastAnswer(func(d *taskDoc) *[]quoted { return &d.final }),
	}
	switch {
	case steps && answered:
		// The raw memory quotes the answers whole: the summary, the
		// history, keeps its steps before their detail.
		return append([]func(ds []taskDoc) bool{shorten, lastAnswer(func(d *taskDoc) *[]quoted { return &d.earlier }),
			lastAnswer(func(d *taskDoc) *[]quoted { return &d.final }), step(false)}, out...)
	case steps:
		return append([]func(ds []taskDoc) bool{step(false)}, out...)
	}
	return out
}

func lastAnswer(l func(d *taskDoc) *[]quoted) func(ds []taskDoc) bool {
	return func(ds []taskDoc) bool {
		for i := len(ds) - 1; i >= 0; i-- {
			if p := l(&ds[i]); len(*p) > 0 {
				*p = (*p)[:len(*p)-1]
				return true
			}
		}
		return false
	}
}

// worth is how much a sentence of an answer names that a later session
// can look up or check: code, paths and file names, numbers, addresses.
func worth(s string) int {
	n := strings.Count(s, "`") / 2
	for _, w := range strings.Fields(s) {
		if strings.ContainsAny(w, "/#0123456789") || strings.Contains(strings.Trim(w, ".,;:()"), ".") {
			n++
		}
	}
	return n
}

// quoted is an answer as the memory quotes it: a label and whole
// sentences.
type quoted struct {
	label     string
	sentences []string
	unchecked bool
}

func (q quoted) String() string { return q.label + ": " + quote(joinSentences(q.sentences)) }

// joinSentences joins sentences, closing with ";" a list item that has
// no stop of its own.
func joinSentences(ss []string) string {
	var b strings.Builder
	for i, s := range ss {
		b.WriteString(s)
		if i < len(ss)-1 {
			if !strings.ContainsAny(s[len(s)-1:], ".!?;:)") {
				b.WriteByte(';')
			}
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func (q quoted) size() int { return len(q.String()) }

// strs prints answers; an answer given before any tool call only with
// summary set: the raw memory states what the session found.
func strs(qs []quoted, summary bool) []string {
	var out []string
	for _, q := range qs {
		if summary || !q.unchecked {
			out = append(out, q.String())
		}
	}
	return out
}

func (x *Extractor) taskDoc(t *task, gone map[string]bool) taskDoc {
	d := taskDoc{name: textcut.Line(t.request, 100)}
	d.outcome, d.reason = t.outcome()
	live := slices.DeleteFunc(t.files.live(), func(f *fileRec) bool { return gone[f.path] })
	d.live = len(live)
	d.score = t.calls - t.explore + 2*len(live) + t.followUps + len(t.prefs)
	for _, p := range t.prefs {
		d.prefs = append(d.prefs, userWords(p, prefMax))
	}
	covered := map[string]bool{}
	for _, f := range t.fixes {
		if !f.Flaky() {
			d.fixes = append(d.fixes, rawmemory.TagFix+" "+x.fixLine(f))
			covered[f.Pass.Command] = true
		}
	}
	var checks []*call
	for _, c := range t.checks {
		if c.status == stOK && !covered[c.command] {
			checks = append(checks, c)
		}
	}
	slices.SortFunc(checks, func(a, b *call) int { return b.seq - a.seq }) // the latest first
	for _, c := range capped(checks, maxChecks) {
		line := rawmemory.TagCheck + " " + code(textcut.Line(program.WithoutFilters(c.command), 160)) + " passed"
		if c.tally != "" {
			line += " (" + code(c.tally) + ")"
		}
		if c.script != "" && strings.ContainsAny(c.script, "&|;") {
			line += "; it runs " + code(textcut.Line(c.script, 200))
		}
		if names := x.changedBefore(t, c); len(names) > 0 {
			line += " after the changes to " + strings.Join(capped(names, 3), ", ")
			if len(names) > 3 {
				line += " and " + itoa(len(names)-3) + " more"
			}
		}
		d.checks = append(d.checks, line+".")
	}
	for i, a := range t.answers {
		last := i == len(t.answers)-1 && t.finalSince
		if a.withdrawn || len(a.sentences) == 0 || !last && a.unchecked {
			continue
		}
		q := quoted{label: "Earlier answer", sentences: a.sentences, unchecked: a.unchecked}
		if last {
			q.label = "Final answer"
		}
		if a.unchecked {
			// What the model believed, with nothing looked at: worth its
			// opening only.
			q.label += " (given before any tool call)"
			q.sentences = firstSentences(q.sentences, uncheckedMax)
		}
		if q.label[0] == 'F' {
			d.final = []quoted{q}
		} else {
			d.earlier = append([]quoted{q}, d.earlier...) // the latest first
		}
	}
	d.failures, d.notes = x.failures(t, d.outcome)
	for _, c := range t.corrections {
		d.corrections = append(d.corrections, "The user corrected the agent: "+userWords(c, lineMax)+".")
	}
	d.files, d.refs = x.references(t, live)
	d.steps = t.steps.render()
	return d
}

// fixLine phrases a failure and the pass that ended it.
func (x *Extractor) fixLine(f fix) string {
	escalated := f.Pass.Escalated && !f.Last.Escalated
	line := code(textcut.Line(f.Last.Command, 120)) + " failed"
	if f.Times > 1 {
		line += " " + times(f.Times)
	}
	if escalated {
		line += " in the sandbox"
	}
	line += errPart(f.fail, f.Errors) + " and "
	added, dropped := program.ArgDiff(program.WithoutFilters(f.Last.Command), program.WithoutFilters(f.Pass.Command))
	switch {
	case escalated && len(added)+len(dropped) == 0:
		line += "passed when rerun with escalated permissions"
	case len(added)+len(dropped) == 0:
		line += "passed on a rerun"
	case len(dropped) == 0 && len(added) <= 6 && !slices.ContainsFunc(added, func(w string) bool { return strings.ContainsAny(w, "&|;") }):
		line += "passed with " + code(strings.Join(added, " ")) + " added"
	default:
		line += code(textcut.Line(f.Pass.Command, 120)) + " passed"
	}
	if f.pass.tally != "" {
		line += " (" + code(f.pass.tally) + ")"
	}
	return line + "; " + between(f.Failure) + "."
}

// between lists what ran between a failure and what came after it.
func between(f program.Failure) string {
	if f.Quiet() {
		return "nothing else ran between the failure and the pass"
	}
	var parts []string
	if len(f.Edited) > 0 {
		parts = append(parts, "edited "+strings.Join(f.Edited, ", "))
	}
	if len(f.Ran) > 0 {
		cmds := make([]string, len(f.Ran))
		for i, c := range f.Ran {
			cmds[i] = textcut.Line(c, 100)
		}
		parts = append(parts, "ran "+codeList(cmds))
	}
	if f.More > 0 {
		parts = append(parts, "and "+itoa(f.More)+" more")
	}
	return "between the failure and the pass: " + strings.Join(parts, "; ")
}

// errPart quotes what a failed call printed: its error line, the failing
// tests it names, and the other error lines of the same work's earlier
// failures.
func errPart(c *call, errors []string) string {
	var parts []string
	if c != nil && c.errLine != "" {
		parts = append(parts, code(textcut.Line(c.errLine, 160)))
	}
	if c != nil && len(c.tests) > 0 {
		parts = append(parts, "failing: "+strings.Join(c.tests, ", "))
	}
	var earlier []string
	for _, e := range errors {
		if c == nil || !strings.HasPrefix(e, c.errLine) {
			earlier = append(earlier, code(textcut.Line(e, 120)))
		}
	}
	if len(earlier) > 0 {
		parts = append(parts, "earlier: "+strings.Join(earlier, ", "))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// failures lists what failed or did not run: the statements first, then
// the notes the rollout summary keeps for the record.
func (x *Extractor) failures(t *task, outcome string) (out, notes []string) {
	for _, f := range t.fixes {
		if f.Flaky() {
			out = append(out, code(textcut.Line(f.Last.Command, 120))+" failed "+times(f.Times)+errPart(f.fail, f.Errors)+
				", then passed on an identical rerun with nothing run or changed between (possibly flaky).")
		}
	}
	for _, f := range t.open() {
		line := code(textcut.Line(f.Last.Command, 120)) + " failed " + times(f.Times) + errPart(t.failures[f.Last.Ref], f.Errors)
		switch {
		case f.CoveredBy != "":
			line = "For " + f.Last.Purpose + ", " + code(textcut.Line(f.CoveredBy, 100)) + " passed after " + line
		case outcome == "success" || reportsCompletion(t.final) && !reportsFailure(t.final):
			line += " and was not run again to a pass; the task was still reported done"
		default:
			line += " and was not run again to a pass"
		}
		out = append(out, line+".")
	}
	for _, c := range t.toolFails {
		line := upperFirst(c.describe()) + " failed"
		if c.errLine != "" {
			line += ": " + code(textcut.Line(c.errLine, 160))
		}
		notes = append(notes, line+".")
	}
	for _, c := range t.refused {
		if c.reads {
			continue // a look around the user stopped shows nothing of the project
		}
		edit := map[bool]string{true: ": the file was not written"}[c.action == sessions.ActionEdit]
		list := &out
		if c.status == stInterrupted {
			list = &notes
		}
		switch c.status {
		case stRejected:
			*list = append(*list, "The user rejected "+c.describe()+"; it did not run"+edit+".")
		case stDenied:
			*list = append(*list, "Permission for "+c.describe()+" was not granted; it did not run"+edit+".")
		case stInterrupted:
			*list = append(*list, "The user interrupted "+c.describe()+".")
		}
	}
	if t.interrupts > 0 && len(t.refused) == 0 {
		notes = append(notes, "The user interrupted the agent "+times(t.interrupts)+".")
	}
	for _, f := range t.files.undone() {
		out = append(out, "The changes to "+x.relPath(f.path)+" were undone ("+f.undone+"); they are not part of the result.")
	}
	return out, notes
}

// references lists what a later session looks up: the commits, the files
// whose change stands (for the rollout summary) and the files read.
func (x *Extractor) references(t *task, live []*fileRec) (files, out []string) {
	for i, f := range live {
		if i == 10 {
			files = append(files, "… and "+itoa(len(live)-10)+" more files")
			break
		}
		line := x.relPath(f.path) + " (" + strings.Join(f.ops, ", ") + ")"
		if added := t.lines[x.relPath(f.path)]; added != "" {
			line += "; its latest edit put in " + code(textcut.Line(added, 100))
		}
		files = append(files, line)
	}
	if len(t.commits) > 0 {
		out = append(out, "Commits made: "+strings.TrimPrefix(strings.TrimPrefix(commitsText(t.commits), "commits "), "commit "))
	}
	if len(t.reads) > 0 {
		line := "Files read: " + strings.Join(capped(t.reads, 8), ", ")
		if len(t.reads) > 8 {
			line += " and " + itoa(len(t.reads)-8) + " more"
		}
		out = append(out, line)
	}
	return files, out
}

// Result renders what was gathered. Call it once, after the last event. A
// thread without any message of the user, or an unknown version, gives the
// empty result (nothing worth keeping).
func (x *Extractor) Result() Result {
	if (x.version != V1 && x.version != V2) || len(x.tasks) == 0 || x.humans == 0 {
		return Result{}
	}
	gone := goneLater(x.tasks)
	docs := make([]taskDoc, len(x.tasks))
	main := 0
	for i, t := range x.tasks {
		docs[i] = x.taskDoc(t, gone)
		if docs[i].score > docs[main].score {
			main = i
		}
	}
	res := Result{Slug: x.slug(x.tasks[main].request)}
	res.RolloutSummary = shrink(docs, true, x.version == V1, summaryBudget, func(ds []taskDoc) string {
		return rawmemory.RenderSummary(x.summaryDoc(ds, main), x.version == V2)
	})
	if x.version == V1 {
		res.RawMemory = shrink(docs, false, false, rawMemoryBudget, func(ds []taskDoc) string { return rawmemory.Render(x.rawDoc(ds, main)) })
	}
	return res
}

// shrink renders docs within budget bytes, dropping whole items (drops),
// the last task's first, until it fits.
func shrink(docs []taskDoc, steps, answered bool, budget int, render func([]taskDoc) string) string {
	ds := slices.Clone(docs)
	for i := range ds {
		d := &ds[i]
		// Each task's own caps, before the budget; copies, as both texts
		// shrink the same docs.
		d.steps = slices.Clone(d.steps)
		d.refs, d.earlier = slices.Clone(d.refs), slices.Clone(capped(d.earlier, 5))
		d.checks, d.failures, d.fixes = slices.Clone(capped(d.checks, 4)), slices.Clone(capped(d.failures, 6)), slices.Clone(capped(d.fixes, 6))
		d.corrections, d.prefs = slices.Clone(d.corrections), slices.Clone(d.prefs)
		d.notes, d.files = slices.Clone(capped(d.notes, 4)), slices.Clone(d.files)
		for _, l := range []*[]quoted{&d.final, &d.earlier} {
			*l = slices.Clone(*l)
			for j := range *l {
				(*l)[j].sentences = slices.Clone((*l)[j].sentences)
			}
		}
	}
	out := render(ds)
	for _, drop := range drops(steps, answered) {
		for len(out) > budget && drop(ds) {
			// Far over the budget, drop several items before rendering
			// again: an item is rarely under a hundred bytes.
			for n := (len(out) - budget) / 400; n > 0 && drop(ds); n-- {
			}
			out = render(ds)
		}
	}
	return out
}

// stepWorth ranks the steps that do not quote the user: a look around
// or a file edit first (the files are listed elsewhere), then a run whose
// exit status says nothing, then a run that ended well, then anything
// that failed or did not run.
func stepWorth(s string) int {
	switch {
	case strings.HasPrefix(s, "Explored") || strings.HasPrefix(s, "Changed") || strings.HasPrefix(s, "… "):
		return 0
	case strings.Contains(s, "no exit status") || strings.Contains(s, "no result recorded"):
		return 1
	case strings.HasSuffix(s, ": ok.") || strings.Contains(s, ": passed") || strings.Contains(s, ": ok, exit 0") || strings.Contains(s, ": ok; made"):
		return 2
	}
	return 3
}

// humanStep reports a step that quotes the user.
func humanStep(s string) bool {
	return strings.HasPrefix(s, "The user asked") || strings.HasPrefix(s, "Follow-up from the user") || strings.HasPrefix(s, "The user pushed back")
}

func (x *Extractor) summaryDoc(ds []taskDoc, main int) rawmemory.Doc {
	title := ds[main].name
	if len(ds) > 1 {
		title += " (and " + english.Count(len(ds)-1, "more task", "more tasks") + ")"
	}
	doc := rawmemory.Doc{Title: title + " in " + x.project(), Context: x.context()}
	for _, d := range ds {
		doc.Tasks = append(doc.Tasks, rawmemory.Task{
			Title: d.name, Outcome: d.outcome, OutcomeReason: d.reason, Prefs: d.prefs, Steps: d.steps,
			Failures: concat(d.failures, d.corrections, d.notes), Knowledge: concat(d.fixes, d.checks, strs(d.final, true), strs(d.earlier, true)),
			Refs: concat(d.files, d.refs),
		})
	}
	return doc
}

func (x *Extractor) rawDoc(ds []taskDoc, main int) rawmemory.Doc {
	m := ds[main]
	desc := m.name + " — outcome " + m.outcome
	if m.live > 0 {
		desc += "; changed " + english.Count(m.live, "file", "files")
	}
	if len(ds) > 1 {
		desc += "; " + english.Count(len(ds)-1, "more task", "more tasks") + " in the same session"
	}
	cwd := x.meta.Cwd
	if cwd == "" {
		cwd = "unknown"
	}
	doc := rawmemory.Doc{Front: rawmemory.Front{
		Description: desc, Task: m.name, TaskGroup: x.project(), TaskOutcome: m.outcome, Cwd: cwd,
		Keywords: x.topKeywords(maxKeywords), Other: map[string]string{rawmemory.WrittenByKey: rawmemory.WrittenByHeuristic},
	}}
	for _, d := range ds {
		doc.Tasks = append(doc.Tasks, rawmemory.Task{
			Title: d.name, Task: d.name, Group: x.project(), Outcome: d.outcome, Prefs: d.prefs,
			Knowledge: concat(d.fixes, d.checks, strs(d.final, false), strs(d.earlier, false)), Failures: concat(d.failures, d.corrections), Refs: d.refs,
		})
	}
	return doc
}

func concat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// slug names the thread after the main request's words, in the order the
// user wrote them (five at most); the keywords fill in when there are
// fewer than three.
func (x *Extractor) slug(request string) string {
	var parts []string
	words := meaningfulWords(request)
	for i, w := range append(words, x.topKeywords(maxKeywords)...) {
		if len(parts) == 5 || i >= len(words) && len(parts) >= 3 {
			break
		}
		var b strings.Builder
		for _, r := range strings.ToLower(w) {
			switch {
			case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_':
				b.WriteRune(r)
			case r == '-' || r == '.' || r == '/':
				b.WriteByte('-')
			}
		}
		if p := strings.Trim(b.String(), "-_"); p != "" && !slices.Contains(parts, p) {
			parts = append(parts, p)
		}
	}
	s := strings.Join(parts, "-")
	for len(s) > maxSlugBytes {
		i := strings.LastIndexByte(s[:maxSlugBytes], '-')
		if i <= 0 {
			return s[:maxSlugBytes]
		}
		s = s[:i]
	}
	return s
}
