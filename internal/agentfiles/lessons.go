package agentfiles

import (
	"strings"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/textcut"
)

// What a repository's AGENTS.md or CLAUDE.md may carry is this project's
// lessons and nothing else: the file is committed and read by everyone
// who clones the repository, so the personal layer (the user's rules for
// every project), other projects and paths into the user's memory folder
// stay out, and the block stays short enough to review in a diff.

// Bounds of the exported lessons.
const (
	maxLessons     = 8
	maxLessonBytes = 240
)

// Lessons are a project's own preferences and tips.
type Lessons struct {
	Prefs []string
	Tips  []string
}

// Empty reports whether there is no lesson to export.
func (l Lessons) Empty() bool { return len(l.Prefs) == 0 && len(l.Tips) == 0 }

// ProjectLessons reads the preferences and tips of a project summary:
// at most maxLessons of each, each cut to maxLessonBytes, leaving out an
// item that points into the memory folder (its files mean nothing in the
// repository, and memoryRoot is a folder of the user's).
func ProjectLessons(summary, memoryRoot string) Lessons {
	var l Lessons
	var list *[]string
	for _, line := range strings.Split(summary, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case t == memdir.ProjectPrefsHeading:
			list = &l.Prefs
			continue
		case t == memdir.ProjectTipsHeading:
			list = &l.Tips
			continue
		case strings.HasPrefix(t, "#"):
			list = nil
			continue
		}
		item, ok := strings.CutPrefix(t, "- ")
		if list == nil || !ok || item == memdir.NoneRecorded || len(*list) >= maxLessons || pointsIntoMemory(item, memoryRoot) {
			continue
		}
		*list = append(*list, textcut.Words(item, maxLessonBytes))
	}
	return l
}

// pointsIntoMemory reports an item that names a file of the memory folder.
func pointsIntoMemory(item, memoryRoot string) bool {
	if memoryRoot != "" && strings.Contains(item, memoryRoot) {
		return true
	}
	for _, dir := range []string{memdir.RolloutSummariesDir + "/", memdir.NotesDir + "/", memdir.PersonalFile, ".memctl/memories"} {
		if strings.Contains(item, dir) {
			return true
		}
	}
	// A project summary's path: projects/<dir>/summary.md.
	for _, f := range strings.Fields(item) {
		f = strings.Trim(f, "`'\"()[],;.:")
		if strings.HasPrefix(f, memdir.ProjectsDir+"/") && strings.HasSuffix(f, "/"+memdir.ProjectSummaryFile) {
			return true
		}
	}
	return false
}

// Body is the managed block's text for a repository file: a heading, how
// to regenerate it, and the lessons.
func (l Lessons) Body(target string) string {
	var b strings.Builder
	b.WriteString("# Memory (memctl)\n\nLessons memctl learnt from past sessions in this repository. Regenerate them with `memctl export --to " +
		target + "` rather than editing them here; the repository's own instructions outside this block take precedence.\n")
	if l.Empty() {
		b.WriteString("\nNo lesson of this project has been consolidated yet.\n")
		return b.String()
	}
	for _, sec := range []struct {
		title string
		items []string
	}{{"Preferences", l.Prefs}, {"Tips", l.Tips}} {
		if len(sec.items) == 0 {
			continue
		}
		b.WriteString("\n## " + sec.title + "\n\n")
		for _, it := range sec.items {
			b.WriteString("- " + it + "\n")
		}
	}
	return b.String()
}
