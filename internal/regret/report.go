package regret

import (
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/memctl/memctl/internal/textcut"
)

// Report is what [Run] found: the --json document of `memctl eval`
// (docs/json.md).
type Report struct {
	Overall  Totals         `json:"overall"`
	Projects []ProjectTotal `json:"projects"`
	// Returns lists every return of a lesson, oldest first.
	Returns []Return `json:"returns"`
	// DominantMiss is the miss class with the most returns; "" when no
	// mistake was repeated.
	DominantMiss Class `json:"dominant_miss"`
	// Timeline counts the sessions, returns and repeats per period.
	Timeline []Bucket `json:"timeline"`
	// Period is the timeline's step: "day", "week" or "month".
	Period  string        `json:"period"`
	Elapsed time.Duration `json:"-"`
}

// Totals are the figures of a project, or of all of them.
type Totals struct {
	Sessions int `json:"sessions"`
	// Lessons counts the topics: corrections and fixed failures that
	// opened one.
	Lessons int `json:"lessons"`
	// Returns counts the later sessions where a topic came back; Repeats
	// those that repeated the mistake.
	Returns int `json:"returns"`
	Repeats int `json:"repeats"`
	// RepeatRate is Repeats / Returns (null without returns).
	RepeatRate *float64     `json:"repeated_correction_rate"`
	Classes    ClassCounts  `json:"classes"`
	Memory     MemoryTotals `json:"memory"`
}

// ClassCounts counts the returns of each class.
type ClassCounts struct {
	Prevented      int `json:"prevented"`
	ExtractionMiss int `json:"extraction_miss"`
	RankingMiss    int `json:"ranking_miss"`
	ComplianceMiss int `json:"compliance_miss"`
	Unaided        int `json:"unaided"`
}

// Of returns the count of one class.
func (c ClassCounts) Of(k Class) int {
	switch k {
	case ClassPrevented:
		return c.Prevented
	case ClassExtractionMiss:
		return c.ExtractionMiss
	case ClassRankingMiss:
		return c.RankingMiss
	case ClassComplianceMiss:
		return c.ComplianceMiss
	case ClassUnaided:
		return c.Unaided
	}
	return 0
}

func (c *ClassCounts) add(k Class) {
	switch k {
	case ClassPrevented:
		c.Prevented++
	case ClassExtractionMiss:
		c.ExtractionMiss++
	case ClassRankingMiss:
		c.RankingMiss++
	case ClassComplianceMiss:
		c.ComplianceMiss++
	case ClassUnaided:
		c.Unaided++
	}
}

// MemoryTotals are the figures of what was injected.
type MemoryTotals struct {
	// InjectedEntries counts the memories (one per session extracted)
	// that an injected summary showed at least once.
	InjectedEntries int `json:"injected_entries"`
	// CitedEntries counts those an agent ever cited.
	CitedEntries int `json:"cited_entries"`
	// Precision is CitedEntries / InjectedEntries (null when none).
	Precision *float64 `json:"precision"`
	// JunkEntries counts the injected memories never cited and never
	// matching a later need of their project (no later session ran one
	// of their commands, changed one of their files or met their lesson).
	JunkEntries int      `json:"junk_entries"`
	JunkRate    *float64 `json:"junk_rate"`
	// TokensPerSession is the mean of the approximate tokens injected
	// into each session (0 for a session given nothing).
	TokensPerSession float64 `json:"tokens_injected_per_session"`
	// SessionsInjected counts the sessions given a summary.
	SessionsInjected int `json:"sessions_injected"`
}

// ProjectTotal is one project's figures.
type ProjectTotal struct {
	Key  string `json:"key"`
	Name string `json:"name"`
	Totals
}

// Return is one later session where a lesson's topic came back.
type Return struct {
	Project    string `json:"project"`
	ProjectKey string `json:"project_key"`
	// Topic numbers the lesson's topic (stable within one report).
	Topic    int       `json:"topic"`
	Lesson   Incident  `json:"lesson"`
	Session  string    `json:"session"`
	Path     string    `json:"path"`
	Time     time.Time `json:"time"`
	Repeated bool      `json:"repeated"`
	Class    Class     `json:"class"`
	// Repeat is the incident that repeated the mistake, when one did.
	Repeat *Incident `json:"repeat,omitempty"`
	// Command is the command that repeated the mistake or showed the
	// need, when one did.
	Command string `json:"command,omitempty"`
	// Extracted, Injected and FoundBySearch say where the lesson was in
	// the memory the session was given.
	Extracted     bool `json:"extracted"`
	Injected      bool `json:"injected"`
	FoundBySearch bool `json:"found_by_search"`
}

// Incident is one mistake as reported: where it is and what shows it.
type Incident struct {
	Kind    IncidentKind `json:"kind"`
	Session string       `json:"session"`
	Path    string       `json:"path"`
	Line    int          `json:"line"`
	Time    time.Time    `json:"time"`
	Quote   string       `json:"quote"`
}

// Bucket is one period of the timeline.
type Bucket struct {
	Start    time.Time `json:"start"`
	Sessions int       `json:"sessions"`
	Returns  int       `json:"returns"`
	Repeats  int       `json:"repeats"`
}

func (o *Options) report(in *incident) Incident {
	return Incident{Kind: in.kind, Session: in.session.id, Path: in.session.path, Line: in.line,
		Time: in.time.UTC(), Quote: o.quote(in.quote, 300)}
}

// quote is transcript text as the report shows it: redacted, on one line,
// cut to max bytes, and without control characters, so that a quoted
// escape sequence cannot drive the terminal it is printed on and a tab
// cannot split a row of the piped report.
func (o *Options) quote(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, o.Redact(s))
	return textcut.Line(strings.Join(strings.Fields(s), " "), max)
}

// build adds everything up.
func build(all []*session, topics []*topic, gave map[*session]given, opts *Options) *Report {
	rep := &Report{Projects: []ProjectTotal{}, Returns: []Return{}, Timeline: []Bucket{}}
	byKey := map[string]*ProjectTotal{}
	var order []string
	proj := func(s *session) *ProjectTotal {
		p, ok := byKey[s.projectKey]
		if !ok {
			p = &ProjectTotal{Key: s.projectKey, Name: s.projectName}
			byKey[s.projectKey] = p
			order = append(order, s.projectKey)
		}
		return p
	}
	cited := map[string]bool{}
	for id, ok := range opts.Used {
		if ok {
			cited[id] = true
		}
	}
	for _, s := range all {
		for _, id := range s.cited {
			cited[id] = true
		}
	}
	tokens := map[string]int{}
	for _, s := range all {
		p := proj(s)
		p.Sessions++
		rep.Overall.Sessions++
		g := gave[s]
		tokens[s.projectKey] += g.tokens
		if g.tokens > 0 {
			p.Memory.SessionsInjected++
			rep.Overall.Memory.SessionsInjected++
		}
		rep.Overall.Memory.TokensPerSession += float64(g.tokens)
	}
	if rep.Overall.Sessions > 0 {
		rep.Overall.Memory.TokensPerSession = round1(rep.Overall.Memory.TokensPerSession / float64(rep.Overall.Sessions))
	}
	for k, p := range byKey {
		p.Memory.TokensPerSession = round1(float64(tokens[k]) / float64(p.Sessions))
	}

	byID := map[string]*session{}
	for _, s := range all {
		byID[s.id] = s
	}
	needed := neededMemories(all, topics)
	injected := map[string]map[string]bool{} // project key → thread ids
	allInjected := map[string]bool{}
	for _, s := range all {
		for _, id := range gave[s].entries {
			if injected[s.projectKey] == nil {
				injected[s.projectKey] = map[string]bool{}
			}
			injected[s.projectKey][id] = true
			allInjected[id] = true
		}
	}
	count := func(m *MemoryTotals, ids map[string]bool) {
		for id := range ids {
			m.InjectedEntries++
			if cited[id] {
				m.CitedEntries++
			} else if !needed[id] {
				m.JunkEntries++
			}
		}
		m.Precision = ratio(m.CitedEntries, m.InjectedEntries)
		m.JunkRate = ratio(m.JunkEntries, m.InjectedEntries)
	}
	for k, ids := range injected {
		count(&byKey[k].Memory, ids)
	}
	count(&rep.Overall.Memory, allInjected)
	rep.Overall.Memory.Precision = ratio(rep.Overall.Memory.CitedEntries, rep.Overall.Memory.InjectedEntries)

	misses := ClassCounts{}
	for _, t := range topics {
		p := byKey[t.project]
		p.Lessons++
		rep.Overall.Lessons++
		for _, rt := range t.returns {
			for _, tot := range []*Totals{&p.Totals, &rep.Overall} {
				tot.Returns++
				if rt.repeated {
					tot.Repeats++
				}
				tot.Classes.add(rt.class)
			}
			misses.add(rt.class)
			out := Return{Project: p.Name, ProjectKey: p.Key, Topic: t.id, Lesson: opts.report(t.lesson), Session: rt.session.id,
				Path: rt.session.path, Time: rt.session.start.UTC(), Repeated: rt.repeated, Class: rt.class,
				Command: opts.quote(rt.action, 200), Extracted: rt.extracted, Injected: rt.injected, FoundBySearch: rt.found}
			if rt.by != nil {
				in := opts.report(rt.by)
				out.Repeat = &in
			}
			rep.Returns = append(rep.Returns, out)
		}
	}
	sort.SliceStable(rep.Returns, func(i, j int) bool {
		if !rep.Returns[i].Time.Equal(rep.Returns[j].Time) {
			return rep.Returns[i].Time.Before(rep.Returns[j].Time)
		}
		return rep.Returns[i].Topic < rep.Returns[j].Topic
	})
	best := 0
	for _, c := range Misses {
		if n := misses.Of(c); n > best {
			best, rep.DominantMiss = n, c
		}
	}
	rep.Overall.RepeatRate = ratio(rep.Overall.Repeats, rep.Overall.Returns)
	sort.Strings(order)
	for _, k := range order {
		p := byKey[k]
		p.RepeatRate = ratio(p.Repeats, p.Returns)
		rep.Projects = append(rep.Projects, *p)
	}
	sort.SliceStable(rep.Projects, func(i, j int) bool {
		if rep.Projects[i].Name != rep.Projects[j].Name {
			return rep.Projects[i].Name < rep.Projects[j].Name
		}
		return rep.Projects[i].Key < rep.Projects[j].Key
	})
	rep.Period, rep.Timeline = timeline(all, rep.Returns)
	return rep
}

// neededMemories are the sessions whose memory a later session of their
// project needed: it ran one of their commands, changed one of their
// files, or was a return of a topic they taught.
func neededMemories(all []*session, topics []*topic) map[string]bool {
	out := map[string]bool{}
	for _, t := range topics {
		for _, rt := range t.returns {
			for _, in := range rt.evidence {
				out[in.session.id] = true
			}
		}
	}
	byProject := map[string][]*session{}
	for _, s := range all {
		byProject[s.projectKey] = append(byProject[s.projectKey], s)
	}
	for _, list := range byProject {
		for _, s := range list {
			if out[s.id] {
				continue
			}
			keys, files := map[string]bool{}, setOf(s.changed)
			for _, c := range s.commands {
				if c.key != "" && !c.looksAround() {
					keys[c.key] = true
				}
			}
		later:
			for _, l := range list {
				if !later(s, l) {
					continue
				}
				for _, c := range l.commands {
					if keys[c.key] {
						out[s.id] = true
						break later
					}
				}
				for _, f := range l.changed {
					if files[f] {
						out[s.id] = true
						break later
					}
				}
			}
		}
	}
	return out
}

func ratio(n, d int) *float64 {
	if d == 0 {
		return nil
	}
	v := float64(int(float64(n)/float64(d)*1000+0.5)) / 1000
	return &v
}

func round1(v float64) float64 { return float64(int(v*10+0.5)) / 10 }

// maxBuckets bounds the timeline.
const maxBuckets = 60

// timeline counts sessions, returns and repeats per day, week or month,
// whichever keeps the span within maxBuckets.
func timeline(all []*session, returns []Return) (string, []Bucket) {
	if len(all) == 0 {
		return "day", []Bucket{}
	}
	first, last := all[0].start.UTC(), all[0].start.UTC()
	for _, s := range all {
		t := s.start.UTC()
		if t.Before(first) {
			first = t
		}
		if t.After(last) {
			last = t
		}
	}
	period := "day"
	step := func(t time.Time) time.Time { return t.AddDate(0, 0, 1) }
	floor := func(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC) }
	switch span := last.Sub(first); {
	case span > maxBuckets*7*24*time.Hour:
		period = "month"
		step = func(t time.Time) time.Time { return t.AddDate(0, 1, 0) }
		floor = func(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC) }
	case span > maxBuckets*24*time.Hour:
		period = "week"
		step = func(t time.Time) time.Time { return t.AddDate(0, 0, 7) }
		floor = func(t time.Time) time.Time {
			d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
			return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7)) // Monday
		}
	}
	var out []Bucket
	index := map[time.Time]int{}
	for t := floor(first); !t.After(last); t = step(t) {
		index[t] = len(out)
		out = append(out, Bucket{Start: t})
	}
	for len(out) > maxBuckets { // months over five years: keep the latest
		out = out[1:]
		for k := range index {
			index[k]--
		}
	}
	at := func(t time.Time) *Bucket {
		if i, ok := index[floor(t.UTC())]; ok && i >= 0 && i < len(out) {
			return &out[i]
		}
		return nil
	}
	for _, s := range all {
		if b := at(s.start); b != nil {
			b.Sessions++
		}
	}
	for _, r := range returns {
		if b := at(r.Time); b != nil {
			b.Returns++
			if r.Repeated {
				b.Repeats++
			}
		}
	}
	return period, out
}

// sparkBlocks are the eight heights of a sparkline.
var sparkBlocks = []rune("▁▂▃▄▅▆▇█")

// Sparkline draws counts as one block per value, the largest full height;
// a zero is the lowest block, so the line keeps its length.
func Sparkline(values []int) string {
	top := 0
	for _, v := range values {
		top = max(top, v)
	}
	out := make([]rune, len(values))
	for i, v := range values {
		h := 0
		if top > 0 && v > 0 {
			h = 1 + (v*(len(sparkBlocks)-1)-1)/top
		}
		out[i] = sparkBlocks[min(h, len(sparkBlocks)-1)]
	}
	return string(out)
}
