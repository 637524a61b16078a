package team

import (
	"fmt"
	"strings"

	"github.com/memctl/memctl/internal/rawmemory"
	"github.com/memctl/memctl/internal/textcut"
)

// What a team file shares is a memory's lessons, not the memory: its
// preferences (the user's words) and the reusable knowledge a later
// session can act on. The narrative (key steps, quotes of what the agent
// said, references, this machine's folders) stays in the proposer's
// memory, so a reviewer reads the file in a minute and every session of
// the project pays for a few lines, not a session dump.

// Kinds of lesson.
const (
	KindPreference = "preference"
	KindLesson     = "lesson"
)

// Bounds of what one team file shares.
const (
	maxLessonBytes   = 300
	maxLessonsShared = 5
	// MaxBodyBytes bounds a proposed file's text, so that with its front
	// matter the file stays under 1.5 KB.
	MaxBodyBytes = 1100
)

// Lesson is one preference or lesson of a memory.
type Lesson struct {
	N    int    `json:"n"` // its number, from 1, as `team propose --list` shows it
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// Lessons are the preferences and lessons of a raw memory (or a rollout
// summary), numbered: preferences first, then what was learnt. For a
// memory of memctl's offline extractor only the checks and fixes count
// as lessons (its other items quote the agent); for a model's, every
// reusable-knowledge item and every failure. Repeats are dropped.
func Lessons(text string) []Lesson {
	d := rawmemory.Parse(text)
	tasks := append(append([]rawmemory.Task{}, d.Tasks...), d.Loose)
	var out []Lesson
	seen := map[string]bool{}
	add := func(kind, item string, limit int) {
		item = strings.Join(strings.Fields(item), " ")
		if item == "" || item == "none" || seen[item] {
			return
		}
		seen[item] = true
		out = append(out, Lesson{N: len(out) + 1, Kind: kind, Text: textcut.Words(item, limit)})
	}
	for _, t := range tasks {
		for _, p := range t.Prefs {
			add(KindPreference, p, maxLessonBytes)
		}
	}
	for _, t := range tasks {
		for _, k := range t.Knowledge {
			if d.Offline() {
				if tag := rawmemory.Tagged(k); tag != rawmemory.TagFix && tag != rawmemory.TagCheck {
					continue
				}
			}
			add(KindLesson, k, maxLessonBytes)
		}
		if !d.Offline() {
			for _, f := range t.Failures {
				add(KindLesson, f, maxLessonBytes)
			}
		}
	}
	if len(out) == 0 && len(d.Tasks) == 0 {
		// Text with no task structure (a note, an import written by
		// hand): the text itself is the one lesson.
		_, body, _ := frontMatter(text)
		add(KindLesson, body, MaxBodyBytes-3)
	}
	return out
}

// LessonBody is the text of a team file sharing lessons: the preferences,
// then the lessons, as lists; at most maxLessonsShared items and
// MaxBodyBytes bytes, keeping the first ones.
func LessonBody(ls []Lesson) string {
	var prefs, lessons []string
	size := 0
	for _, l := range ls {
		if len(prefs)+len(lessons) == maxLessonsShared || size+len(l.Text)+3 > MaxBodyBytes {
			break
		}
		size += len(l.Text) + 3
		if l.Kind == KindPreference {
			prefs = append(prefs, "- "+l.Text)
		} else {
			lessons = append(lessons, "- "+l.Text)
		}
	}
	var parts []string
	if len(prefs) > 0 {
		parts = append(parts, "Preferences:\n"+strings.Join(prefs, "\n"))
	}
	if len(lessons) > 0 {
		parts = append(parts, "Lessons:\n"+strings.Join(lessons, "\n"))
	}
	return strings.Join(parts, "\n\n")
}

// Pick returns lesson n of ls, or an error naming how many there are.
func Pick(ls []Lesson, n int) (Lesson, error) {
	if n < 1 || n > len(ls) {
		if len(ls) == 0 {
			return Lesson{}, fmt.Errorf("the memory has no lesson or preference to share")
		}
		return Lesson{}, fmt.Errorf("no lesson %d: the memory has %d (1 to %d)", n, len(ls), len(ls))
	}
	return ls[n-1], nil
}
