package heuristic

import (
	"maps"
	"slices"
	"strings"

	"github.com/memctl/memctl/internal/english"
	"github.com/memctl/memctl/internal/program"
	"github.com/memctl/memctl/internal/rawmemory"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/textcut"
)

// What goes in which section of a task (the consolidator turns
// "Preference signals" into the user's preferences and the tagged
// knowledge into tips, so each holds only what its name promises):
//
//   - Preference signals: the user's standing instructions, quoted.
//   - Reusable knowledge: facts the transcript validated, each tagged:
//     Check (a verifying command and what it showed), Fix (a failure and
//     what made it pass), Finding (the agent's explanation, quoted).
//   - Failures and how to do differently: each failure and how it ended,
//     refused or interrupted calls, changes that were thrown away.
//   - References: the commands with their exact counts, the files whose
//     change stands, the final answer.

const maxKnowledge = 10

// taskDigest is a task reduced to the lists both renderings print.
type taskDigest struct {
	name      string
	final     string
	unchecked bool     // the final answer came with no tool call since the user spoke
	question  bool     // nothing was changed or run: the answer is the work
	answers   []string // earlier answers to the user's follow-up questions
	score     int      // how much work the task holds; picks the main task
	outcome   string
	reason    string
	prefs     []string
	steps     []string
	failures  []string
	knowledge []string
	// rawKnowledge is knowledge without the findings the raw memory
	// already quotes in its final answer.
	rawKnowledge []string
	refs         []string
	refKeys      []string // the failing command each reference repeats, if any
	live         []*fileRec
}

type digest struct {
	project  string
	cwd      string
	keywords []string
	tasks    []taskDigest
	ran      int
	failed   int
	unknown  int
	files    int
	commits  int
	// changed names the files still changed at the end, across tasks,
	// relative to the cwd, once each, at most maxChangedNames.
	changed []string
	undone  int
	refused int
	calls   int

	// gitChanges are command lines that changed the repository through
	// git without reporting a commit, across tasks, once each.
	gitChanges []string
}

func (x *Extractor) digest() digest {
	d := digest{project: x.project(), cwd: x.meta.Cwd, keywords: x.kw.top(maxKeywords)}
	if d.cwd == "" {
		d.cwd = "unknown"
	}
	gone := goneLater(x.tasks)
	x.deleted, x.existed = x.fileNames()
	for _, t := range x.tasks {
		td := taskDigest{name: textcut.Line(t.request, 100), final: t.final, unchecked: t.finalUnchecked, answers: t.answers}
		if !t.finalSince {
			// The user wrote again and no answer came: it answered an
			// earlier message, one the user may have disputed since.
			td.final = ""
		}
		td.live = slices.DeleteFunc(t.files.live(), func(f *fileRec) bool { return gone[f.path] })
		td.question = len(td.live) == 0 && t.ran-t.explore == 0 && t.failed == 0
		td.score = t.calls - t.explore + 2*len(td.live) + len(t.followUps) + len(t.prefs)
		td.outcome, td.reason = t.outcome()
		for _, p := range t.prefs {
			td.prefs = append(td.prefs, p.render())
		}
		d.ran += t.ran
		d.failed += t.failed
		d.unknown += t.unknown
		d.files += len(td.live)
		for _, f := range td.live {
			if p := x.relPath(f.path); !slices.Contains(d.changed, p) && len(d.changed) < maxChangedNames {
				d.changed = append(d.changed, p)
			}
		}
		d.commits += len(t.commits)
		for _, g := range t.gitChanges {
			if !slices.Contains(d.gitChanges, g) && len(d.gitChanges) < maxGitChanges {
				d.gitChanges = append(d.gitChanges, g)
			}
		}
		d.undone += len(t.files.undoneFiles())
		d.refused += len(t.refused)
		d.calls += t.calls

		td.steps = t.steps.render()
		if len(t.tools) > 0 {
			td.steps = append(td.steps, "Tools used: "+toolList(t.tools)+".")
		}
		td.failures = x.failures(t, td.outcome)
		td.knowledge = x.knowledge(t, false)
		td.rawKnowledge = x.knowledge(t, true)
		td.refs, td.refKeys = x.references(t, td.live)
		d.tasks = append(d.tasks, td)
	}
	return d
}

func (x *Extractor) failures(t *task, outcome string) []string {
	var out []string
	for _, r := range t.recoveries {
		out = append(out, r.failureLine())
	}
	for _, f := range openFailures(t) {
		out = append(out, openFailureLine(f, outcome, t.final, &t.files))
	}
	for _, c := range t.toolFails {
		line := upperFirst(c.describe()) + " failed"
		if c.errLine != "" {
			line += ": " + code(textcut.Line(c.errLine, 160))
		}
		out = append(out, line+".")
	}
	for _, c := range t.emptyAgents {
		line := "The sub-agent task returned no result"
		if c.errLine != "no report" {
			line += ", only: " + quote(c.errLine)
		}
		out = append(out, line+".")
	}
	for _, c := range t.refused {
		if c.command != "" && program.Explores(c.command) {
			continue // a look around the user stopped shows nothing of the project
		}
		what := c.describe()
		switch c.status {
		case stRejected:
			line := "The user rejected " + what + "; it did not run"
			if c.action == sessions.ActionEdit {
				line += ": the file was not written"
			}
			out = append(out, line+".")
		case stDenied:
			line := "Permission for " + what + " was not granted; it did not run"
			if c.action == sessions.ActionEdit {
				line += ": the file was not written"
			}
			out = append(out, line+".")
		case stInterrupted:
			out = append(out, "The user interrupted "+what+".")
		}
	}
	if t.interrupts > 0 && len(t.refused) == 0 {
		out = append(out, "The user interrupted the agent "+times(t.interrupts)+".")
	}
	for _, f := range t.files.undoneFiles() {
		if f.undone == undoneTemp {
			continue // a scratch file: it left nothing behind
		}
		out = append(out, "The changes to "+x.relPath(f.path)+" were undone ("+f.undone+"); they are not part of the result.")
	}
	for i, c := range t.corrections {
		line := "The user corrected the agent: " + quote(c)
		if i == len(t.corrections)-1 && t.negAfter {
			line += "; nothing afterwards shows it was fixed"
		}
		out = append(out, line+".")
	}
	return out
}

func (x *Extractor) knowledge(t *task, quotesFinal bool) []string {
	var out []string
	covered := map[string]bool{} // purposes and commands already stated
	add := func(s string) {
		if len(out) < maxKnowledge {
			out = append(out, s)
		}
	}
	for _, f := range openFailures(t) {
		if len(f.replacedBy) == 0 {
			continue
		}
		used := replacementPhrase(f.replacedBy, &t.files)
		run := f.failRun
		if f.missing {
			add(rawmemory.TagCheck + " " + used + " is the " + run.purpose + " step that works here; " + code(program.Name(run.command)) + " is not installed.")
		} else {
			add(rawmemory.TagCheck + " for " + run.purpose + ", " + used + " passed here where " + code(textcut.Line(run.command, 100)) + " failed.")
		}
		covered[run.purpose] = true
		for _, c := range f.replacedBy {
			covered[c] = true
		}
	}
	for _, r := range t.recoveries {
		if r.flaky() {
			continue
		}
		add(rawmemory.TagFix + " " + r.fixLine())
		covered[r.pass.command] = true
	}
	for _, p := range program.Purposes {
		c := t.byPurpose[p]
		if c == nil || c.status != stOK || covered[p] || covered[c.command] {
			continue
		}
		line := rawmemory.TagCheck + " " + code(textcut.Line(program.WithoutFilters(c.command), 160)) + " passed"
		if c.tally != "" {
			line += " (" + code(c.tally) + ")"
		}
		if edited := x.editedBefore(t, c); edited != "" {
			line += " after the changes to " + edited
		}
		if program.Targeted(c.command) {
			line += " (a targeted " + p + " run, not the whole suite)"
		}
		add(line + ".")
	}
	for _, sc := range t.scripts {
		add(rawmemory.TagFinding + " " + code(sc[0]) + " runs " + code(textcut.Line(sc[1], 200)) + " (as it printed when it ran clean).")
	}
	n := maxFindings
	if len(t.files.live()) == 0 && t.ran-t.explore == 0 {
		n += 2 // an answer to a question: what it says is the work
	}
	// The raw memory quotes the final answer in References: there its
	// sentences are no finding of their own.
	final := ""
	if quotesFinal && t.finalSince {
		final = oneLine(textcut.Line(t.final, finalAnswerMax))
	}
	// A sentence the final answer quotes is said already; one about a
	// file the session deleted describes what is gone; one calling a file
	// missing that the session read or wrote was wrong about it.
	skip := func(s string) bool {
		return final != "" && strings.Contains(final, oneLine(s)) || mentionsAny(s, maps.Keys(x.deleted)) || callsMissing(s, x.existed)
	}
	for _, f := range t.findings.best(n, skip) {
		add(rawmemory.TagFinding + " " + f)
	}
	return out
}

// absenceRE is a clause saying something is not there, ending on it
// ("… files are missing.", "x.go does not exist"): "config.go is missing
// the Timeout field" says what a file lacks, not that it is absent.
var absenceRE = lazyRE(`(?i)\b(is|are|was|were|be|been)\s+(missing|absent|not found|nowhere)\s*([.,;:!)]|$|\b(from|in|under|at)\b)|\b(does|do|did)\s*n[o']t exist\b|\bno such file\b`)

// callsMissing reports a sentence calling a file absent that the session
// read or changed: it was there.
func callsMissing(s string, existed map[string]bool) bool {
	return absenceRE().MatchString(s) && mentionsAny(s, maps.Keys(existed))
}

// editedBefore names the standing changes made before a call ran: a file
// first changed after the check is not one the check verified.
func (x *Extractor) editedBefore(t *task, c *call) string {
	if c.editsBefore == 0 {
		return ""
	}
	var names []string
	for _, f := range t.files.live() {
		if f.first > c.editsBefore {
			continue
		}
		if len(names) == 3 {
			names = append(names, "…")
			break
		}
		names = append(names, x.relPath(f.path))
	}
	return strings.Join(names, ", ")
}

func upperFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// main picks the task the thread is about: the first one, unless a later
// task holds clearly more work (a "show tools" warm-up before the real job).
func (d digest) main() int {
	best := 0
	for i, t := range d.tasks {
		if t.score > d.tasks[best].score {
			best = i
		}
	}
	return best
}

// Result renders what was gathered. Call it once, after the last event. A
// thread without any human message, or an unknown version, gives the
// empty result (nothing worth keeping).
func (x *Extractor) Result() Result {
	if (x.version != V1 && x.version != V2) || len(x.tasks) == 0 || x.humans == 0 {
		return Result{}
	}
	d := x.digest()
	res := Result{Slug: x.slug(d)}
	for _, items := range []int{6, 4, 3, 2, 1} {
		res.RolloutSummary = rawmemory.RenderSummary(x.summaryDoc(d, items), x.version == V2)
		if len(res.RolloutSummary) <= summaryBudget {
			break
		}
	}
	if x.version == V1 {
		for _, items := range []int{6, 4, 3, 2, 1} {
			res.RawMemory = rawmemory.Render(x.rawDoc(d, items))
			if len(res.RawMemory) <= rawMemoryBudget {
				break
			}
		}
		if len(res.RawMemory) > rawMemoryBudget {
			res.RawMemory = rawmemory.Render(withoutRefs(x.rawDoc(d, 1), rawMemoryBudget))
		}
	}
	return res
}

// finalAnswerRef opens the reference that quotes a task's final answer.
const finalAnswerRef = "Final answer: "

// withoutRefs fits a raw memory of many tasks, still too long at one item
// a list, by dropping the references to commands and files, the last
// task's first: they point at what the other sections state. A task's
// final answer stays (it says how the task ended). Otherwise the hard cap
// after it cuts the middle out, taking some task's preferences and
// findings with it.
func withoutRefs(doc rawmemory.Doc, budget int) rawmemory.Doc {
	for i := len(doc.Tasks) - 1; i >= 0 && len(rawmemory.Render(doc)) > budget; i-- {
		var kept []string
		for _, r := range doc.Tasks[i].Refs {
			if strings.HasPrefix(r, finalAnswerRef) {
				kept = append(kept, r)
			}
		}
		doc.Tasks[i].Refs = kept
	}
	return doc
}

// capSteps shortens a long history to n lines: every message of the user
// first (their words are the most telling evidence), then the other steps
// nearest the start and the end, in their order, with the gaps marked.
func capSteps(steps []string, n int) []string {
	if len(steps) <= n {
		return steps
	}
	keep := make([]bool, len(steps))
	left := n
	for i, s := range steps {
		if left > n/3 && humanStep(s) {
			keep[i] = true
			left--
		}
	}
	for lo, hi := 0, len(steps)-1; left > 0 && lo <= hi; {
		// two from the end for one from the start: how a task ended
		// matters more than how it began
		for _, i := range []int{hi, hi - 1, lo} {
			if left > 0 && i >= lo && i <= hi && !keep[i] {
				keep[i] = true
				left--
			}
		}
		lo++
		hi -= 2
	}
	var out []string
	gap := 0
	for i, s := range steps {
		if !keep[i] {
			gap++
			continue
		}
		if gap > 0 {
			out = append(out, "… "+english.Count(gap, "step", "steps")+" omitted …")
			gap = 0
		}
		out = append(out, s)
	}
	if gap > 0 {
		out = append(out, "… "+english.Count(gap, "step", "steps")+" omitted …")
	}
	return out
}

func humanStep(s string) bool {
	return strings.HasPrefix(s, "The user asked:") || strings.HasPrefix(s, "Follow-up from the user:") ||
		strings.HasPrefix(s, "The user pushed back:")
}

func capped(list []string, n int) []string {
	if len(list) > n {
		return list[:n]
	}
	return list
}

func (x *Extractor) summaryDoc(d digest, items int) rawmemory.Doc {
	main := d.tasks[d.main()]
	title := main.name
	if len(d.tasks) > 1 {
		title += " (and " + english.Count(len(d.tasks)-1, "more task", "more tasks") + ")"
	}
	doc := rawmemory.Doc{Title: title + " in " + d.project, Context: x.context(d)}
	for _, t := range d.tasks {
		doc.Tasks = append(doc.Tasks, rawmemory.Task{
			Title: t.name, Outcome: t.outcome, OutcomeReason: t.reason,
			Prefs: capped(t.prefs, items+2), Steps: capSteps(t.steps, items*4), Failures: capped(t.failures, items),
			Knowledge: capped(t.knowledge, items+3), Refs: capped(withoutRestated(t.refs, t.refKeys, capped(t.failures, items)), items+2),
		})
	}
	return doc
}

func (x *Extractor) rawDoc(d digest, items int) rawmemory.Doc {
	main := d.tasks[d.main()]
	desc := main.name + " — outcome " + main.outcome
	if len(main.live) > 0 {
		desc += "; changed " + english.Count(len(main.live), "file", "files")
	}
	if len(d.tasks) > 1 {
		desc += "; " + english.Count(len(d.tasks)-1, "more task", "more tasks") + " in the same session"
	}
	doc := rawmemory.Doc{Front: rawmemory.Front{
		Description: desc, Task: main.name, TaskGroup: d.project, TaskOutcome: main.outcome,
		Cwd: d.cwd, Keywords: d.keywords, Other: map[string]string{rawmemory.WrittenByKey: rawmemory.WrittenByHeuristic},
	}}
	for _, t := range d.tasks {
		refs := capped(withoutRestated(t.refs, t.refKeys, capped(t.failures, items)), items+2)
		if t.final != "" {
			// The raw memory has no steps, so the result is kept as
			// evidence here, where it is never cut. An answer to a
			// question is the memory itself, so it is kept longer.
			max := finalAnswerMax
			if t.question {
				max = answerMax * items / 6
			}
			refs = append([]string(nil), refs...)
			for _, a := range t.answers {
				if !t.question {
					// In a task that did work, the last answer reports
					// it; earlier ones are progress talk.
					break
				}
				refs = append(refs, "Earlier answer: "+quote(textcut.Line(a, max/2)))
			}
			label := finalAnswerRef
			if t.unchecked {
				// what the model believed: nothing was looked at or run for it
				label += "(no tool call since the user spoke) "
			}
			refs = append(refs, label+quote(textcut.Line(t.final, max)))
		}
		doc.Tasks = append(doc.Tasks, rawmemory.Task{
			Title: t.name, Task: t.name, Group: d.project, Outcome: t.outcome,
			Prefs: capped(t.prefs, items+2), Knowledge: capped(t.rawKnowledge, items+3), Failures: capped(t.failures, items), Refs: refs,
		})
	}
	return doc
}

// slug names the thread after the main request's meaningful words, in the
// order the human wrote them; the keywords fill in when there are too few.
func (x *Extractor) slug(d digest) string {
	words := meaningfulWords(x.tasks[d.main()].request)
	var parts []string
	seen := map[string]bool{}
	add := func(w string) {
		w = slugPart(w)
		if w == "" || seen[w] || len(parts) >= 5 {
			return
		}
		seen[w] = true
		parts = append(parts, w)
	}
	for _, w := range words {
		add(w)
	}
	if len(parts) < 3 {
		for _, k := range d.keywords {
			add(k)
		}
	}
	s := strings.Join(parts, "-")
	for len(s) > maxSlugBytes {
		i := strings.LastIndexByte(s[:maxSlugBytes], '-')
		if i <= 0 {
			s = s[:maxSlugBytes]
			break
		}
		s = s[:i]
	}
	return s
}

func slugPart(w string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(w) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		case r == '-' || r == '.' || r == '/':
			b.WriteByte('-')
		}
	}
	return strings.Trim(b.String(), "-_")
}
