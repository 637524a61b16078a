// Package memmodel is Phase 2's model of what is in memory: the selected
// raw memories parsed into one [Memory] each, the run's stale marks on
// them, the ad hoc notes, which facts a newer memory supersedes, and the
// list rules every summary shares (whole items, one line for repeated
// memories, the recent days). The offline consolidator renders MEMORY.md
// and memory_summary.md from it, and the project layer the personal layer
// and each project's summary, whatever consolidator ran; the model and
// agent consolidators read the same stale marks through the input files.
package memmodel

import (
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/lazyre"
	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/project"
	"github.com/memctl/memctl/internal/rawmemory"
	"github.com/memctl/memctl/internal/store"
	"github.com/memctl/memctl/internal/textcut"
)

const (
	// MaxSummaryItem bounds one bullet of memory_summary.md or of the
	// project layer, shortened by whole sentences ([WholeItem]).
	MaxSummaryItem = 240
	// RecentMemoryDays is how many of the newest days a summary lists
	// as recent, each memory with its description and first learning.
	RecentMemoryDays = 3
	// UnknownCwd is the folder of a memory whose session recorded none.
	UnknownCwd = "unknown"
	// UserAssertedMarker tags what a user-asserted memory states.
	UserAssertedMarker = "[user-asserted]"

	dayLayout           = "2006-01-02"
	unscopedProjectName = "sessions with no recorded folder"
)

// Memory is one selected thread, parsed.
type Memory struct {
	Sel      store.Selected   // the store's row it was parsed from
	File     string           // rollout_summaries/<stem>.md
	Cwd      string           // the session's folder, or UnknownCwd
	Desc     string           // one line on what the session did
	Topic    string           // its task group, else its first task
	Outcome  string           // as stated (success, uncertain…); "" when unsaid
	Keywords []string         // as written, else picked from Topic and Desc
	Tasks    []rawmemory.Task // at least one; loose items join the first
	Day      string           // the session's last update, UTC, 2006-01-02
	// Asked is, per task of an offline memory, the user's messages its
	// rollout summary quotes (rawmemory.StepAsked, StepFollowUp).
	Asked [][]string
	// Offline is set for a memory of memctl's offline extractor, whose
	// knowledge is tagged (Check:, Fix:, Finding:).
	Offline bool
	// Stale is set when what the memory rests on changed since it was
	// written: its tips leave the summary, its index line says so, and
	// when everything it rested on is gone it leaves the summary.
	Stale *Stale
}

// Parse parses every selected row, newest first (ties by thread id).
func Parse(sel []store.Selected) []Memory {
	var out []Memory
	for _, s := range sel {
		m := Memory{Sel: s, File: memdir.RolloutSummariesDir + "/" + memdir.RolloutSummaryStem(s.ThreadID, s.SourceUpdatedAt, s.RolloutSlug) + ".md"}
		m.Day = time.Unix(s.SourceUpdatedAt, 0).UTC().Format(dayLayout)
		raw := rawmemory.Parse(s.RawMemory)
		sum := rawmemory.Parse(s.RolloutSummary)
		m.Offline = raw.Offline() || sum.Offline()
		if m.Offline && len(sum.Tasks) == len(raw.Tasks) {
			for _, t := range sum.Tasks {
				m.Asked = append(m.Asked, slices.DeleteFunc(slices.Clone(t.Steps), func(s string) bool {
					return !strings.HasPrefix(s, rawmemory.StepAsked) && !strings.HasPrefix(s, rawmemory.StepFollowUp)
				}))
			}
		}
		doc := raw
		if len(raw.Tasks) == 0 && raw.Front.Description == "" && len(raw.Loose.Knowledge)+len(raw.Loose.Prefs)+len(raw.Loose.Failures) == 0 {
			doc = sum // no usable raw memory (v2, or an unstructured one)
		}
		if s.UserAsserted {
			// The user's own words are the memory, structured or not.
			doc = userDoc(s, doc)
		}
		m.Cwd = FirstNonEmpty(known(doc.Front.Cwd), known(s.Cwd), known(sum.Front.Cwd), UnknownCwd)
		m.Keywords = doc.Front.Keywords
		m.Tasks = doc.Tasks
		if len(m.Tasks) == 0 {
			t := doc.Loose
			m.Tasks = []rawmemory.Task{t}
		} else if l := doc.Loose; len(l.Prefs)+len(l.Knowledge)+len(l.Failures) > 0 {
			m.Tasks[0].Prefs = append(m.Tasks[0].Prefs, l.Prefs...)
			m.Tasks[0].Knowledge = append(m.Tasks[0].Knowledge, l.Knowledge...)
			m.Tasks[0].Failures = append(m.Tasks[0].Failures, l.Failures...)
		}
		first := m.Tasks[0]
		m.Desc = FirstNonEmpty(doc.Front.Description, doc.Loose.Task, first.Task, first.Title, doc.Title, sum.Title, firstLineOf(s.RolloutSummary), "session "+s.ThreadID)
		m.Topic = FirstNonEmpty(doc.Loose.Group, first.Group, doc.Front.TaskGroup, first.Title, first.Task, m.Desc)
		m.Outcome = FirstNonEmpty(doc.Loose.Outcome, doc.Front.TaskOutcome, first.Outcome)
		if len(m.Keywords) == 0 {
			m.Keywords = fallbackKeywords(m.Topic + " " + m.Desc)
		}
		if m.Offline && !s.UserAsserted {
			m.markUnverified(sum)
		}
		out = append(out, m)
	}
	dropTemplatePrefs(out)
	dropAnswerPrefs(out)
	tidyAnswers(out)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Sel.SourceUpdatedAt != out[j].Sel.SourceUpdatedAt {
			return out[i].Sel.SourceUpdatedAt > out[j].Sel.SourceUpdatedAt
		}
		return out[i].Sel.ThreadID < out[j].Sel.ThreadID
	})
	return out
}

// UnverifiedDone is what an offline memory's task outcome "success" reads
// as when no check of the task passed: the agent's final answer said the
// work was done and nothing contradicted it, which is the agent's word,
// not a result.
const UnverifiedDone = "reported done by the agent, no check passed"

// markUnverified rewords the outcome of each task of an offline memory
// that the extractor called a success on the agent's word alone, in the
// task and in the memory's description, so that neither MEMORY.md nor a
// summary calls it done. A task was checked when its rollout summary
// says its last check passed (the offline extractor's reason opens with
// "the last check"), or when it states a check or a fix (a failure that
// ended in a pass).
func (m *Memory) markUnverified(sum rawmemory.Doc) {
	for i := range m.Tasks {
		t := &m.Tasks[i]
		reason := ""
		if len(sum.Tasks) == len(m.Tasks) {
			reason = sum.Tasks[i].OutcomeReason
		}
		if t.Outcome != "success" || strings.HasPrefix(reason, "the last check") || len(TipItems(t.Knowledge)) > 0 {
			continue
		}
		t.Outcome = UnverifiedDone
		if said := t.Task + " — outcome success"; t.Task != "" && strings.HasPrefix(m.Desc, said) {
			m.Desc = t.Task + " — outcome " + UnverifiedDone + m.Desc[len(said):]
			m.Outcome = UnverifiedDone
		}
	}
}

// userDoc is the memory of a user-asserted row: the text the user wrote
// (the raw memory, or in v2 the rollout summary) as parsed, or, when it
// has no structure memctl recognises, its first line as the description
// and every further line as a piece of knowledge.
func userDoc(s store.Selected, parsed rawmemory.Doc) rawmemory.Doc {
	text := s.RawMemory
	if strings.TrimSpace(text) == "" {
		text = s.RolloutSummary
	}
	doc := rawmemory.Parse(text)
	if !(len(doc.Tasks) > 0 || doc.Front.Description != "" || len(doc.Loose.Knowledge)+len(doc.Loose.Prefs)+len(doc.Loose.Failures) > 0) {
		var lines []string
		for _, l := range strings.Split(text, "\n") {
			if l = cleanItem(strings.TrimLeft(strings.TrimSpace(l), "-*#> ")); l != "" {
				lines = append(lines, l)
			}
		}
		if len(lines) == 0 {
			return parsed
		}
		doc = rawmemory.Doc{Front: rawmemory.Front{Description: lines[0], Cwd: parsed.Front.Cwd}}
		doc.Loose.Knowledge = lines[1:]
		if len(doc.Loose.Knowledge) == 0 {
			doc.Loose.Knowledge = lines[:1]
		}
	}
	// Every statement carries the mark into MEMORY.md and the summary.
	mark := func(items []string) {
		for i, it := range items {
			items[i] = UserAssertedMarker + " " + it
		}
	}
	for _, t := range append(doc.Tasks, doc.Loose) {
		mark(t.Prefs)
		mark(t.Knowledge)
		mark(t.Failures)
	}
	return doc
}

// Project is the memory's project as the store recorded it.
func (m Memory) Project() project.Identity {
	if m.Sel.ProjectKey != "" {
		// Printable: a key or name stored before they were made one line
		// is until the next scan keys the thread again.
		return project.Printable(project.Identity{Key: m.Sel.ProjectKey, Name: FirstNonEmpty(m.Sel.ProjectName, m.Sel.ProjectKey), Root: m.Sel.ProjectRoot})
	}
	if m.Cwd == UnknownCwd {
		return project.Identity{Key: "path:", Name: unscopedProjectName}
	}
	return project.Identity{Key: "path:" + m.Cwd, Name: filepath.Base(m.Cwd), Root: m.Cwd}
}

// Root is the folder the memory's project was recorded in: the
// project's root, else the session's folder; "" when neither is known.
func (m Memory) Root() string { return FirstNonEmpty(m.Sel.ProjectRoot, known(m.Sel.Cwd)) }

// FirstLearning is the memory's first piece of knowledge, else its first
// failure.
func (m Memory) FirstLearning() string {
	for _, t := range m.Tasks {
		if len(t.Knowledge) > 0 {
			return t.Knowledge[0]
		}
	}
	for _, t := range m.Tasks {
		if len(t.Failures) > 0 {
			return t.Failures[0]
		}
	}
	return ""
}

// IndexLearning is the learning a summary's index shows for the memory.
// For one of the offline extractor it is, of its statements the
// summary's tips do not already list (checks and fixes), the first final
// answer, else the first other statement (a finding, a failure), else its
// first learning: never an earlier answer, the agent's words on the way.
func (m Memory) IndexLearning() string {
	if !m.Offline {
		return m.FirstLearning()
	}
	var other string
	for _, t := range m.Tasks {
		for _, k := range append(slices.Clone(t.Knowledge), t.Failures...) {
			switch {
			case rawmemory.Tagged(k) == rawmemory.TagCheck, rawmemory.Tagged(k) == rawmemory.TagFix, strings.HasPrefix(k, earlierAnswer):
			case strings.HasPrefix(k, finalAnswer):
				return k
			case other == "":
				other = k
			}
		}
	}
	return FirstNonEmpty(other, m.FirstLearning())
}

// Labels of the offline extractor's quoted answers.
const (
	finalAnswer   = "Final answer"
	earlierAnswer = "Earlier answer"
)

// Describe names a memory in a few words: its description, else its
// summary's title.
func Describe(s store.Selected) string {
	raw := rawmemory.Parse(s.RawMemory)
	sum := rawmemory.Parse(s.RolloutSummary)
	return textcut.Words(FirstNonEmpty(raw.Front.Description, sum.Front.Description, sum.Title, firstLineOf(s.RolloutSummary), "session "+s.ThreadID), 160)
}

func known(s string) string {
	if strings.EqualFold(strings.TrimSpace(s), UnknownCwd) {
		return ""
	}
	return strings.TrimSpace(s)
}

// FirstNonEmpty is the first value that is not blank, trimmed: the rule
// each field of a Memory is chosen by, from the places it may be written.
func FirstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func firstLineOf(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(strings.TrimLeft(l, "# ")); l != "" {
			return l
		}
	}
	return ""
}

var wordRe = lazyre.New(`[A-Za-z][A-Za-z0-9_.+#-]{2,}`)

var stopWords = map[string]bool{
	"the": true, "and": true, "for": true, "with": true, "that": true, "this": true, "from": true,
	"into": true, "was": true, "were": true, "are": true, "has": true, "have": true, "user": true,
	"task": true, "session": true, "when": true, "then": true, "than": true, "not": true, "but": true,
	"its": true, "via": true, "all": true, "any": true, "new": true, "use": true, "used": true,
}

// fallbackKeywords picks up to six distinctive words when a memory lists
// none, so every task keeps a searchable keywords line.
func fallbackKeywords(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range wordRe().FindAllString(text, -1) {
		lw := strings.ToLower(strings.TrimRight(w, ".-"))
		if stopWords[lw] || seen[lw] || len(lw) < 3 {
			continue
		}
		seen[lw] = true
		out = append(out, lw)
		if len(out) == 6 {
			break
		}
	}
	return out
}
