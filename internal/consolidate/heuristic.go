package consolidate

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/model"
	"github.com/memctl/memctl/internal/origin"
	"github.com/memctl/memctl/internal/rawmemory"
	"github.com/memctl/memctl/internal/textcut"
)

// Size bounds of the heuristic output. They keep memory_summary.md near
// the 2,500-token injection budget and MEMORY.md greppable.
const (
	maxItemBytes      = 1500 // one bullet in MEMORY.md, shortened by whole sentences (wholeItem)
	maxSummaryItem    = 240  // one bullet in memory_summary.md, the same
	maxBlockBullets   = 30   // per block-level section of a task group
	maxSummaryPrefs   = 15
	maxSummaryTips    = 15
	maxOlderPerScope  = 25
	maxRecentPerScope = 20
	maxProfileScopes  = 8
	summaryV2Target   = 9000 // comfortably under the 10,000-byte limit
	recentMemoryDays  = 3
	dayLayout         = "2006-01-02"
	unknownCwd        = "unknown"
	noteMarker        = "[ad-hoc note]"
	// userAssertedMarker tags what a user-asserted memory states.
	userAssertedMarker = "[user-asserted]"
)

// wholeItem shortens a bullet to about n bytes by dropping whole
// sentences from its end, never cutting one (textcut.WholeSentences): its
// first sentence stays whatever its length, for a tip cut in the middle
// says something else, down to a wrong error line. A quote the shortening
// leaves open is closed after an ellipsis.
func wholeItem(s string, n int) string {
	out := textcut.WholeSentences(s, n)
	if strings.Count(out, "“") > strings.Count(out, "”") {
		out += " …”"
	}
	return out
}

// NewHeuristic returns the offline consolidator: it builds MEMORY.md and
// memory_summary.md (v2: the summary only) from the structure of the
// selected raw memories and rollout summaries, plus the ad hoc notes, with
// no model. The output is a pure function of its inputs, so an unchanged
// selection produces byte-identical files and the next run is a no-op.
func NewHeuristic() Consolidator { return heuristic{} }

type heuristic struct{}

func (heuristic) Name() string { return "heuristic" }

// memory is one selected thread, parsed.
type memory struct {
	sel      Selected
	file     string // rollout_summaries/<stem>.md
	cwd      string
	desc     string
	topic    string
	outcome  string
	keywords []string
	tasks    []memTask
	day      string
	// offline is set for a memory of memctl's offline extractor, whose
	// knowledge is tagged (Check:, Fix:, Finding:).
	offline bool
	// stale is set when what the memory rests on changed since it was
	// written: its tips leave the summary, its index line says so, and
	// when everything it rested on is gone it leaves the summary.
	stale *StaleMemory
}

// dropped reports a memory that is left out of the summary.
func (m memory) dropped() bool { return m.stale != nil && m.stale.Gone }

// staleNote is what the summary says next to a stale memory.
func (m memory) staleNote() string {
	if m.stale == nil {
		return ""
	}
	return " (stale: " + textcut.Words(m.stale.Note(), maxSummaryItem) + ")"
}

// markStale attaches the run's stale verdicts to the parsed memories. A
// memory the user pinned or wrote is demoted at most, never dropped: the
// user chose to keep it.
func markStale(mems []memory, stale map[string]StaleMemory) {
	for i := range mems {
		if st, ok := stale[mems[i].sel.ThreadID]; ok {
			if mems[i].sel.Pinned || mems[i].sel.UserAsserted {
				st.Gone = false
			}
			mems[i].stale = &st
		}
	}
}

// current returns the memories the summary may show.
func current(mems []memory) []memory {
	var out []memory
	for _, m := range mems {
		if !m.dropped() {
			out = append(out, m)
		}
	}
	return out
}

type note struct {
	file string
	text string
	pref bool
	// project is the key a note was written for (its first line reads
	// "project: <key>"); empty for a note that holds everywhere.
	project string
	// from is where the note came from (its origin line; the user's when
	// it has none).
	from origin.Origin
}

func (heuristic) Consolidate(ctx context.Context, ws *Workspace) (model.Usage, error) {
	mems := parseSelected(ws.Selected)
	markStale(mems, ws.Stale)
	notes := readNotes(ws.Root, ws.redact)
	if err := ctx.Err(); err != nil {
		return model.Usage{}, err
	}
	// MEMORY.md lists every note; the summary the best-ranked.
	best := summaryNotes(notes, ws.NoteMarks)
	if ws.Version == memversion.V2 {
		return model.Usage{}, putFile(filepath.Join(ws.Root, memdir.SummaryFile), []byte(ws.redact(renderSummaryV2(mems, best))), 0o600)
	}
	if err := putFile(filepath.Join(ws.Root, memdir.MemoryFile), []byte(ws.redact(renderMemoryMD(mems, notes))), 0o600); err != nil {
		return model.Usage{}, err
	}
	return model.Usage{}, putFile(filepath.Join(ws.Root, memdir.SummaryFile), []byte(ws.redact(renderSummaryV1(mems, best))), 0o600)
}

// parseSelected parses every selected row, newest first (ties by thread id).
func parseSelected(sel []Selected) []memory {
	var out []memory
	for _, s := range sel {
		m := memory{sel: s, file: memdir.RolloutSummariesDir + "/" + memdir.RolloutSummaryStem(s.ThreadID, s.SourceUpdatedAt, s.RolloutSlug) + ".md"}
		m.day = time.Unix(s.SourceUpdatedAt, 0).UTC().Format(dayLayout)
		raw := parseMemoryText(s.RawMemory)
		sum := parseMemoryText(s.RolloutSummary)
		m.offline = raw.Offline() || sum.Offline()
		doc := raw
		if len(raw.Tasks) == 0 && raw.Front.Description == "" && len(raw.Loose.Knowledge)+len(raw.Loose.Prefs)+len(raw.Loose.Failures) == 0 {
			doc = sum // no usable raw memory (v2, or an unstructured one)
		}
		if s.UserAsserted {
			// The user's own words are the memory, structured or not.
			doc = userDoc(s, doc)
		}
		m.cwd = firstNonEmpty(known(doc.Front.Cwd), known(s.Cwd), known(sum.Front.Cwd), unknownCwd)
		m.keywords = doc.Front.Keywords
		m.tasks = doc.Tasks
		if len(m.tasks) == 0 {
			t := doc.Loose
			m.tasks = []memTask{t}
		} else if l := doc.Loose; len(l.Prefs)+len(l.Knowledge)+len(l.Failures) > 0 {
			m.tasks[0].Prefs = append(m.tasks[0].Prefs, l.Prefs...)
			m.tasks[0].Knowledge = append(m.tasks[0].Knowledge, l.Knowledge...)
			m.tasks[0].Failures = append(m.tasks[0].Failures, l.Failures...)
		}
		first := m.tasks[0]
		m.desc = firstNonEmpty(doc.Front.Description, doc.Loose.Task, first.Task, first.Title, doc.Title, sum.Title, firstLineOf(s.RolloutSummary), "session "+s.ThreadID)
		m.topic = firstNonEmpty(doc.Loose.Group, first.Group, doc.Front.TaskGroup, first.Title, first.Task, m.desc)
		m.outcome = firstNonEmpty(doc.Loose.Outcome, doc.Front.TaskOutcome, first.Outcome)
		if len(m.keywords) == 0 {
			m.keywords = fallbackKeywords(m.topic + " " + m.desc)
		}
		out = append(out, m)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].sel.SourceUpdatedAt != out[j].sel.SourceUpdatedAt {
			return out[i].sel.SourceUpdatedAt > out[j].sel.SourceUpdatedAt
		}
		return out[i].sel.ThreadID < out[j].sel.ThreadID
	})
	return out
}

// userDoc is the memory of a user-asserted row: the text the user wrote
// (the raw memory, or in v2 the rollout summary) as parsed, or, when it
// has no structure memctl recognises, its first line as the description
// and every further line as a piece of knowledge.
func userDoc(s Selected, parsed rawmemory.Doc) rawmemory.Doc {
	text := s.RawMemory
	if strings.TrimSpace(text) == "" {
		text = s.RolloutSummary
	}
	doc := parseMemoryText(text)
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
			items[i] = userAssertedMarker + " " + it
		}
	}
	for _, t := range append(doc.Tasks, doc.Loose) {
		mark(t.Prefs)
		mark(t.Knowledge)
		mark(t.Failures)
	}
	return doc
}

func known(s string) string {
	if strings.EqualFold(strings.TrimSpace(s), unknownCwd) {
		return ""
	}
	return strings.TrimSpace(s)
}

func firstNonEmpty(vals ...string) string {
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

var wordRe = lazyRegexp(`[A-Za-z][A-Za-z0-9_.+#-]{2,}`)

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

var prefNoteRe = lazyRegexp(`(?i)\b(prefers?|preferred|always|never|don't|do not|avoid|please|i like|i want|i'd like|use)\b`)

// MaxSummaryNotes is how many ad hoc notes the summary and the project
// layer hold: each is a bullet of up to 240 bytes placed before every
// memory's, so without a bound notes alone would fill the 2,500-token
// budget. Past it, notes rank by the user's pin, then uses, then last
// use, then newest first; MEMORY.md lists every note, and a consolidation
// and memctl doctor say when some are left out of the summary.
const MaxSummaryNotes = 20

// summaryNotes are the notes the summary holds: the MaxSummaryNotes
// best-ranked (see MaxSummaryNotes), in name order.
func summaryNotes(notes []note, marks map[string]NoteMark) []note {
	if len(notes) <= MaxSummaryNotes {
		return notes
	}
	ranked := append([]note(nil), notes...)
	mark := func(n note) NoteMark { return marks[path.Base(n.file)] }
	sort.SliceStable(ranked, func(i, j int) bool {
		a, b := mark(ranked[i]), mark(ranked[j])
		if a.Pinned != b.Pinned {
			return a.Pinned
		}
		if a.UsageCount != b.UsageCount {
			return a.UsageCount > b.UsageCount
		}
		la, lb := int64(0), int64(0)
		if a.LastUsage != nil {
			la = *a.LastUsage
		}
		if b.LastUsage != nil {
			lb = *b.LastUsage
		}
		if la != lb {
			return la > lb
		}
		return ranked[i].file > ranked[j].file // a note's name starts with its time
	})
	best := ranked[:MaxSummaryNotes]
	sort.SliceStable(best, func(i, j int) bool { return best[i].file < best[j].file })
	return best
}

// readNotes loads extensions/ad_hoc/notes/*.md in name order, every one.
func readNotes(root string, redact func(string) string) []note {
	dir := filepath.Join(root, filepath.FromSlash(memdir.NotesDir))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []note
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		raw := lossy(data)
		body, scope := noteScope(raw)
		text := wholeItem(cleanItem(origin.Body(body)), maxSummaryItem)
		if text == "" {
			continue
		}
		text = redact(text)
		out = append(out, note{file: memdir.NotesDir + "/" + e.Name(), text: text, pref: prefNoteRe().MatchString(text), project: scope, from: origin.OfNote(raw)})
	}
	return out
}

// marker tags a note in MEMORY.md: with its origin when the user did not
// write it ("[ad-hoc note, origin: sync laptop-3f2a]").
func (n note) marker() string {
	if n.from.Kind == "" || n.from.Kind == origin.User {
		return noteMarker
	}
	return strings.TrimSuffix(noteMarker, "]") + ", origin: " + n.from.String() + "]"
}

// noteScope splits a note's "project: <key>" first line, if any, from
// its text.
func noteScope(text string) (body, projectKey string) {
	first, rest, _ := strings.Cut(text, "\n")
	if k, ok := strings.CutPrefix(strings.TrimSpace(first), notePrefix); ok && strings.TrimSpace(k) != "" {
		return rest, strings.TrimSpace(k)
	}
	return text, ""
}
