package memmodel

import (
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/memctl/memctl/internal/lazyre"
	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/origin"
	"github.com/memctl/memctl/internal/store"
)

// NoteMarker tags an ad hoc note in a summary or MEMORY.md.
const NoteMarker = "[ad-hoc note]"

// notePrefix starts the first line of a note written for one project.
const notePrefix = "project:"

// Note is one ad hoc note of the memory folder.
type Note struct {
	File string // extensions/ad_hoc/notes/<name>.md
	Text string
	Pref bool
	// Project is the key a note was written for (its first line reads
	// "project: <key>"); empty for a note that holds everywhere.
	Project string
	// From is where the note came from (its origin line; the user's when
	// it has none).
	From origin.Origin
}

var prefNoteRe = lazyre.New(`(?i)\b(prefers?|preferred|always|never|don't|do not|avoid|please|i like|i want|i'd like|use)\b`)

// MaxSummaryNotes is how many ad hoc notes the summary and the project
// layer hold: each is a bullet of up to 240 bytes placed before every
// memory's, so without a bound notes alone would fill the 2,500-token
// budget. Past it, notes rank by the user's pin, then uses, then last
// use, then newest first; MEMORY.md lists every note, and a consolidation
// and memctl doctor say when some are left out of the summary.
const MaxSummaryNotes = 20

// SummaryNotes are the notes the summary holds: the MaxSummaryNotes
// best-ranked (see MaxSummaryNotes), in name order. marks are the notes'
// pins and uses by file name.
func SummaryNotes(notes []Note, marks map[string]store.NoteMark) []Note {
	if len(notes) <= MaxSummaryNotes {
		return notes
	}
	ranked := append([]Note(nil), notes...)
	mark := func(n Note) store.NoteMark { return marks[path.Base(n.File)] }
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
		return ranked[i].File > ranked[j].File // a note's name starts with its time
	})
	best := ranked[:MaxSummaryNotes]
	sort.SliceStable(best, func(i, j int) bool { return best[i].File < best[j].File })
	return best
}

// ReadNotes loads extensions/ad_hoc/notes/*.md of the memory folder root
// in name order, every one, each note's text through redact.
func ReadNotes(root string, redact func(string) string) []Note {
	dir := filepath.Join(root, filepath.FromSlash(memdir.NotesDir))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []Note
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		raw := strings.ToValidUTF8(string(data), "\uFFFD")
		body, scope := noteScope(raw)
		text := WholeItem(cleanItem(origin.Body(body)), MaxSummaryItem)
		if text == "" {
			continue
		}
		text = redact(text)
		out = append(out, Note{File: memdir.NotesDir + "/" + e.Name(), Text: text, Pref: prefNoteRe().MatchString(text), Project: scope, From: origin.OfNote(raw)})
	}
	return out
}

// Marker tags a note in MEMORY.md: with its origin when the user did not
// write it ("[ad-hoc note, origin: sync laptop-3f2a]").
func (n Note) Marker() string {
	if n.From.Kind == "" || n.From.Kind == origin.User {
		return NoteMarker
	}
	return strings.TrimSuffix(NoteMarker, "]") + ", origin: " + n.From.String() + "]"
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
