package regret

import (
	"path"
	"sort"
	"strings"

	"github.com/memctl/memctl/internal/lazyre"
)

// Grouping. The incidents of one project are taken in time order; each
// joins the first topic whose incidents it resembles, else a lesson opens
// a topic of its own. Two incidents resemble each other when they share
// distinctive words (weighted by how few sessions use them; see similar).
// A topic comes back in a later
// session of its project (one that started after the lesson's ended)
// when that session repeats the mistake (an incident of the topic, or,
// for a correction, the corrected command run again) or shows the same
// need without the mistake (the command, the file or the words of the
// lesson).

// topTermCount is how many terms describe an incident.
const topTermCount = 12

// topic is one lesson and its returns.
type topic struct {
	id        int
	project   string
	lesson    *incident
	incidents []*incident // the lesson and the repeats, in time order
	returns   []*ret
}

// ret is one later session where a topic came back.
type ret struct {
	topic    *topic
	session  *session
	repeated bool
	by       *incident // the incident that repeated it; nil for a rerun or a need
	action   string    // the command that repeated it or showed the need
	// evidence are the topic's incidents in sessions that ended before
	// this one started: what memory could have carried.
	evidence []*incident

	// Set by the replay.
	class     Class
	extracted bool
	injected  bool
	found     bool
}

// describe computes every incident's terms.
func describe(all []*session) *idf {
	x := newIDF()
	for _, s := range all {
		s.words = map[string]bool{}
		for _, h := range s.humans {
			for t := range termSet(h) {
				s.words[t] = true
			}
		}
		for _, c := range s.commands {
			for t := range termSet(c.norm + " " + c.errLine) {
				s.words[t] = true
			}
		}
		x.add(s.words)
	}
	for _, s := range all {
		for _, in := range s.incidents {
			in.text = incidentText(in)
			in.top = x.topTerms(terms(in.text), topTermCount)
			in.said = x.topTerms(terms(in.saidText()), topTermCount)
		}
	}
	return x
}

// saidText is what the user said, or what the error and the fix said:
// the incident's words without its commands' names.
func (in *incident) saidText() string {
	if in.kind == KindCorrection {
		return in.quote
	}
	return errorWords(in.errorText()) + " " + strings.Join(added(in.bad, in.good), " ")
}

// incidentText is what an incident's topic words are drawn from: the
// commands' keys, the files, the setup steps, and the user's words or the
// error line with what the fix added. Addresses and absolute paths in an
// error are left out: two different errors of one registry or folder
// share them.
func incidentText(in *incident) string {
	parts := []string{in.bad.key, in.good.key, strings.Join(in.files, " "), setupKeys(in)}
	if in.kind == KindCorrection {
		parts = append(parts, in.quote)
	} else {
		parts = append(parts, errorWords(in.errorText()), strings.Join(added(in.bad, in.good), " "))
	}
	return strings.Join(parts, " ")
}

var urlRE = lazyre.New(`\b[a-z][a-z0-9+.-]*://\S+|(^|\s)/\S+`)

// pathRE finds file paths: an error names a file by its path, and two
// errors of one project share the folders, not the problem.
var pathRE = lazyre.New(`[\w.@-]*(/[\w.@-]+)+`)

// errorWords is an error line without addresses, with each path reduced
// to its file name.
func errorWords(s string) string {
	s = urlRE().ReplaceAllString(s, " ")
	return pathRE().ReplaceAllStringFunc(s, func(p string) string { return path.Base(p) })
}

// errorText is a failure's error line.
func (in *incident) errorText() string {
	if i := strings.Index(in.quote, "` failed: "); i >= 0 {
		return in.quote[i+len("` failed: "):]
	}
	return ""
}

// keyTerms are the terms of the incident's command keys: they say what
// kind of command it was, not what went wrong.
func (in *incident) keyTerms() map[string]bool {
	return termSet(in.bad.key + " " + in.good.key)
}

// fixTerms are the terms of what the fix added to the command and of the
// setup steps it ran: a memory that carries the lesson says them
// ("--access public", "uv run", "docker compose up").
func (in *incident) fixTerms() map[string]bool {
	if in.kind != KindFailure {
		return nil
	}
	return termSet(strings.Join(added(in.bad, in.good), " ") + " " + setupKeys(in))
}

// setupKeys are the keys of the setup steps of a fix ("docker compose up").
func setupKeys(in *incident) string {
	var keys []string
	for _, c := range in.setup {
		keys = append(keys, readCommand(c).key)
	}
	return strings.Join(keys, " ")
}

// added lists the words of good's command line that bad's lacks: what a
// fix added ("--access public", "uv run").
func added(bad, good shellCommand) []string {
	if good.norm == "" {
		return nil
	}
	have := map[string]bool{}
	for _, w := range rawWords(bad.norm) {
		have[w] = true
	}
	var out []string
	for _, w := range rawWords(good.norm) {
		if !have[w] {
			out = append(out, w)
			have[w] = true
		}
	}
	return out
}

// similar reports two incidents of one topic: the user's correction of
// the very run that failed; for the same command, two words said in both
// (by the user, or by the error and the fix) carrying 30% of the lighter
// side's weight; otherwise two shared words carrying 45% of it.
func similar(a, b *incident) bool {
	if a.session == b.session && a.badLine > 0 && a.badLine == b.badLine {
		return true
	}
	if a.bad.key != "" && a.bad.key == b.bad.key && !a.bad.looksAround() {
		n, w := overlap(a.said, b.said)
		if lighter := min(a.said.total(), b.said.total()); n >= 2 && lighter > 0 && w >= 0.3*lighter {
			return true
		}
	}
	n, w := overlap(a.top, b.top)
	lighter := min(a.top.total(), b.top.total())
	return lighter > 0 && n >= 2 && w >= 0.45*lighter
}

// group builds the topics of every project and their returns.
func group(all []*session) []*topic {
	byProject := map[string][]*session{}
	var keys []string
	for _, s := range all {
		if _, ok := byProject[s.projectKey]; !ok {
			keys = append(keys, s.projectKey)
		}
		byProject[s.projectKey] = append(byProject[s.projectKey], s)
	}
	sort.Strings(keys)
	var out []*topic
	for _, k := range keys {
		out = append(out, groupProject(k, byProject[k], len(out))...)
	}
	return out
}

func groupProject(key string, list []*session, firstID int) []*topic {
	sort.SliceStable(list, func(i, j int) bool { return list[i].start.Before(list[j].start) })
	var topics []*topic
	repeatedIn := map[*topic]map[*session]bool{}
	for _, s := range list {
		for _, in := range s.incidents {
			var t *topic
			for _, cand := range topics {
				if cand.matches(in) {
					t = cand
					break
				}
			}
			switch {
			case t == nil && in.lesson():
				t = &topic{id: firstID + len(topics) + 1, project: key, lesson: in, incidents: []*incident{in}}
				topics = append(topics, t)
				repeatedIn[t] = map[*session]bool{}
			case t != nil && later(t.lesson.session, s):
				if !repeatedIn[t][s] {
					repeatedIn[t][s] = true
					t.returns = append(t.returns, &ret{topic: t, session: s, repeated: true, by: in, action: in.bad.norm})
				}
				t.incidents = append(t.incidents, in)
			case t != nil && s == t.lesson.session:
				// The same lesson told twice (a failure, then the user's
				// correction of it): either may be what memory keeps.
				t.incidents = append(t.incidents, in)
			}
		}
	}
	for _, t := range topics {
		for _, s := range list {
			if !later(t.lesson.session, s) || repeatedIn[t][s] {
				continue
			}
			if cmd, ok := t.rerun(s); ok {
				t.returns = append(t.returns, &ret{topic: t, session: s, repeated: true, action: cmd})
			} else if cmd, ok := t.need(s); ok {
				t.returns = append(t.returns, &ret{topic: t, session: s, action: cmd})
			}
		}
		sort.SliceStable(t.returns, func(i, j int) bool { return t.returns[i].session.start.Before(t.returns[j].session.start) })
		for _, r := range t.returns {
			for _, in := range t.incidents {
				if !in.session.end.After(r.session.start) && in.session != r.session {
					r.evidence = append(r.evidence, in)
				}
			}
		}
	}
	return topics
}

// later reports a session that started after the lesson's ended.
func later(lesson, s *session) bool {
	return s != lesson && !s.start.Before(lesson.end)
}

func (t *topic) matches(in *incident) bool {
	for _, prev := range t.incidents {
		if similar(prev, in) {
			return true
		}
	}
	return false
}

// rerun finds, for a correction, the corrected command run again in s.
// It counts only when the user's words name what was wrong: the other
// program they asked for ("use pnpm, not npm": npm again is the mistake
// again), the flag the fix added ("always go test -race": go test
// without -race), or, when nothing replaced it, the command itself
// ("don't run migrations": rails db:migrate again). "No, just the unit
// tests" corrects one run; it does not ban the command.
func (t *topic) rerun(s *session) (string, bool) {
	l := t.lesson
	if l.kind != KindCorrection || l.bad.key == "" || l.bad.looksAround() {
		return "", false
	}
	q := termSet(l.quote)
	var flags []string
	switch {
	case l.good.key == "":
		if !shares(q, termSet(l.bad.key)) {
			return "", false
		}
	case l.good.key != l.bad.key:
		if !shares(q, termSet(l.bad.key)) && !shares(q, termSet(l.good.key)) {
			return "", false
		}
	default:
		for _, f := range addedFlags(l.bad, l.good) {
			if shares(q, termSet(f)) {
				flags = append(flags, f)
			}
		}
		if len(flags) == 0 {
			return "", false
		}
	}
	for _, c := range s.commands {
		if c.key != l.bad.key || c.norm == l.good.norm {
			continue
		}
		if len(flags) > 0 && containsAny(c.args, flags) {
			continue
		}
		return c.norm, true
	}
	return "", false
}

// addedFlags are the flags and environment assignments good's command
// line has and bad's lacks.
func addedFlags(bad, good shellCommand) []string {
	have := setOf(bad.args)
	var out []string
	for _, a := range good.args {
		if (strings.HasPrefix(a, "-") || isAssignment(a)) && !have[a] {
			out = append(out, a)
		}
	}
	return out
}

// need finds what in s shows the topic's need: a command of the lesson's
// (for a fix made by editing files, only in a session that edits one of
// them too), a file it was about, or a message in its words.
func (t *topic) need(s *session) (string, bool) {
	l := t.lesson
	codeFix := l.kind == KindFailure && l.good.norm == l.bad.norm
	for _, c := range s.commands {
		if c.key == "" || c.looksAround() {
			continue
		}
		if c.key == l.bad.key || c.key == l.good.key {
			if codeFix && !shares(setOf(l.files), setOf(s.changed)) {
				continue
			}
			return c.norm, true
		}
	}
	if len(l.files) > 0 && l.kind == KindCorrection && shares(setOf(l.files), setOf(s.changed)) {
		return "", true
	}
	probe := &incident{}
	for _, h := range s.humans {
		probe.top = weighted{weights: map[string]float64{}}
		for _, term := range l.top.terms {
			if termSet(h)[term] {
				probe.top.terms = append(probe.top.terms, term)
				probe.top.weights[term] = l.top.weights[term]
			}
		}
		if n, w := overlap(l.top, probe.top); n >= 2 && w >= 0.45*l.top.total() {
			return "", true
		}
	}
	return "", false
}

func setOf(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, s := range list {
		m[s] = true
	}
	return m
}

func containsAny(words, want []string) bool {
	set := setOf(words)
	for _, w := range want {
		if set[w] {
			return true
		}
	}
	return false
}

// mentions reports a text that carries an incident's lesson: one of its
// lines holds at least three of the incident's terms (all of them when it
// has fewer), one of them beyond the command's own name, and, for a
// failure whose fix changed the command, one of the words the fix added.
// A keyword list that names the command and its topic is not the lesson.
func mentions(text string, in *incident) bool {
	need := min(3, len(in.top.terms))
	if need == 0 {
		return false
	}
	keys, fix := in.keyTerms(), in.fixTerms()
	for line := range strings.Lines(text) {
		set := termSet(line)
		n, beyond, fixed := 0, false, len(fix) == 0
		for _, t := range in.top.terms {
			if set[t] {
				n++
				beyond = beyond || !keys[t]
			}
		}
		for t := range fix {
			fixed = fixed || set[t]
		}
		if n >= need && beyond && fixed {
			return true
		}
	}
	return false
}
