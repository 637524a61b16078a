package consolidate

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memmodel"
	"github.com/memctl/memctl/internal/textcut"
)

// memory_summary.md of the offline consolidator: the user profile, the
// preference and tip lists, and the index of what is in memory (v1) or
// the pointers to rollout summaries (v2).

func userProfile(mems []memmodel.Memory, gs []group) string {
	if len(mems) == 0 {
		return "No sessions have been consolidated yet, so nothing is known about the user's work."
	}
	var sb strings.Builder
	byProject := gs[0].key != ""
	noun := "working director"
	if byProject {
		noun = "project"
	}
	fmt.Fprintf(&sb, "These memories cover %d session(s) in %d %s", len(mems), len(gs), noun)
	switch {
	case byProject && len(gs) != 1:
		sb.WriteString("s")
	case !byProject && len(gs) == 1:
		sb.WriteString("y")
	case !byProject:
		sb.WriteString("ies")
	}
	sb.WriteString(": ")
	var parts []string
	for i, g := range gs {
		if i == maxProfileScopes {
			parts = append(parts, fmt.Sprintf("and %d more", len(gs)-i))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%d)", g.name, len(g.mems)))
	}
	sb.WriteString(strings.Join(parts, ", ") + ".")
	if tools := stackSeen(mems); len(tools) > 0 {
		sb.WriteString(" Languages and tools seen: " + strings.Join(tools, ", ") + ".")
	}
	fmt.Fprintf(&sb, " Most recent work (%s): %s.", mems[0].Day, strings.TrimRight(textcut.Words(mems[0].Desc, memmodel.MaxSummaryItem), "."))
	return sb.String()
}

// rankedItems dedupes items gathered across memories, most frequent first,
// then in order of first appearance (newest memory first).
func rankedItems(items []string, limit int) []string {
	count := map[string]int{}
	first := map[string]string{}
	var order []string
	for _, it := range items {
		k := memmodel.NormKey(it)
		if k == "" {
			continue
		}
		if _, ok := first[k]; !ok {
			first[k] = it
			order = append(order, k)
		}
		count[k]++
	}
	sort.SliceStable(order, func(i, j int) bool { return count[order[i]] > count[order[j]] })
	var out []string
	for i, k := range order {
		if i == limit {
			break
		}
		out = append(out, memmodel.WholeItem(first[k], memmodel.MaxSummaryItem))
	}
	return out
}

func summaryLists(mems []memmodel.Memory, notes []memmodel.Note) (prefs, tips []string) {
	// With several projects in memory, a tip like "`make test` is the
	// project's test command" is only useful when it says which project.
	projects := map[string]bool{}
	for _, m := range mems {
		projects[m.Project().Key] = true
	}
	scope := func(m memmodel.Memory, items []string) []string {
		if len(projects) < 2 || m.Cwd == "" {
			return items
		}
		name := "(" + path.Base(m.Cwd) + ") "
		if m.Sel.ProjectName != "" {
			name = "(" + m.Sel.ProjectName + ") "
		}
		out := make([]string, len(items))
		for i, it := range items {
			out[i] = name + it
		}
		return out
	}
	var p, k []string
	latest, checked := memmodel.Facts{}, memmodel.Facts{}
	for _, m := range mems {
		for _, t := range m.Tasks {
			// Preferences are the user's words, about no file: a stale
			// memory keeps them. Its tips rest on what changed.
			p = append(p, scope(m, t.Prefs)...)
			if m.Stale != nil {
				continue
			}
			if m.Offline {
				for _, it := range memmodel.TipItems(t.Knowledge) {
					if memmodel.SubjectOf(it) != "" {
						if latest.Claim(m, it, 0) != "" || checked.CheckedAgain(m, it) {
							continue // a later session says otherwise, or the same
						}
						it += " (as of " + m.Day + ")"
					}
					k = append(k, scope(m, []string{it})...)
				}
				continue
			}
			k = append(k, scope(m, t.Knowledge)...)
			k = append(k, scope(m, t.Failures)...)
		}
	}
	for _, n := range notes {
		if n.Pref {
			prefs = append(prefs, memmodel.NoteMarker+" "+n.Text)
		} else {
			tips = append(tips, memmodel.NoteMarker+" "+n.Text)
		}
	}
	prefs = append(prefs, rankedItems(p, maxSummaryPrefs)...)
	tips = append(tips, rankedItems(k, maxSummaryTips)...)
	return prefs, tips
}

// profileOf is the user profile of the memories the summary shows, or of
// all of them when every one was dropped as stale: the user did that work.
func profileOf(all, shown []memmodel.Memory) string {
	if len(shown) == 0 {
		shown = all
	}
	return userProfile(shown, groupByCwd(shown))
}

// emptyIndex is what an empty "What's in Memory" says.
func emptyIndex(all []memmodel.Memory, none, keeper string) string {
	if len(all) > 0 {
		return "every memory rests on files or commands that are gone; " + keeper + " keeps them, marked stale"
	}
	return none
}

// renderSummaryV1 builds memory_summary.md for v1: profile, preferences,
// tips and an index of MEMORY.md by project and day.
func renderSummaryV1(all []memmodel.Memory, notes []memmodel.Note) string {
	prefs, tips := summaryLists(all, notes)
	mems := memmodel.Current(all)
	gs := groupByCwd(mems)
	later := supersessions(all)
	var sb strings.Builder
	sb.WriteString("v1\n\n## User Profile\n\n")
	sb.WriteString(profileOf(all, mems) + "\n\n")
	sb.WriteString("## User preferences\n\n")
	memmodel.WriteList(&sb, prefs, "none recorded yet")
	sb.WriteString("\n## General Tips\n\n")
	memmodel.WriteList(&sb, tips, "none recorded yet")
	sb.WriteString("\n## What's in Memory\n")
	if len(mems) == 0 {
		sb.WriteString("\n- " + emptyIndex(all, "nothing yet; MEMORY.md is empty", memdir.MemoryFile) + "\n")
		return sb.String()
	}
	recent := memmodel.RecentDays(mems, memmodel.RecentMemoryDays)
	for _, g := range gs {
		writeRecentTopics(&sb, g.name, memmodel.RepeatsMerged(g.mems, recent, true), later)
	}
	older := false
	for _, g := range gs {
		old := memmodel.RepeatsMerged(g.mems, recent, false)
		if len(old) == 0 {
			continue
		}
		if !older {
			sb.WriteString("\n### Older Memory Topics\n")
			older = true
		}
		fmt.Fprintf(&sb, "\n#### %s\n\n", g.name)
		for i, e := range old {
			if i == maxOlderPerScope {
				fmt.Fprintf(&sb, "- and %d older topics; search MEMORY.md\n", len(old)-i)
				break
			}
			m := e.Memory
			fmt.Fprintf(&sb, "- %s: %s%s%s\n", textcut.Words(m.Topic, 120), strings.Join(m.Keywords, ", "), m.StaleNote(), memmodel.SeenIn(e.Sessions))
		}
	}
	return sb.String()
}

// writeRecentTopics writes a project's recent memories into the v1
// index, by day, each with its description and first learning.
func writeRecentTopics(sb *strings.Builder, name string, rec []memmodel.Entry, later map[string]string) {
	if len(rec) == 0 {
		return
	}
	fmt.Fprintf(sb, "\n### %s\n", name)
	day := ""
	for i, e := range rec {
		if i == maxRecentPerScope {
			fmt.Fprintf(sb, "- and %d more recent topics; search MEMORY.md\n", len(rec)-i)
			break
		}
		m := e.Memory
		if m.Day != day {
			day = m.Day
			fmt.Fprintf(sb, "\n#### %s\n\n", day)
		}
		fmt.Fprintf(sb, "- %s: %s%s%s\n", textcut.Words(m.Topic, 120), strings.Join(m.Keywords, ", "), m.StaleNote(), memmodel.SeenIn(e.Sessions))
		fmt.Fprintf(sb, "  - desc: %s%s\n", textcut.Words(m.Desc, memmodel.MaxSummaryItem), assertedMark(m.Sel))
		if l := m.IndexLearning(); l != "" && m.Stale == nil {
			note := ""
			if by := later[m.Sel.ThreadID+"\x00"+l]; by != "" {
				note = " (" + by + ")"
			}
			fmt.Fprintf(sb, "  - learnings: %s%s\n", memmodel.WholeItem(l, memmodel.MaxSummaryItem), note)
		}
	}
}

// v2Limits is how much of each list the v2 summary shows; shrinking them
// is how the summary is made to fit.
type v2Limits struct{ prefs, tips, recent, older int }

// renderSummaryV2 builds the compact v2 summary with direct pointers to
// rollout summaries, dropping the oldest pointers, then tips and
// preferences, until it fits summaryV2Target bytes.
func renderSummaryV2(all []memmodel.Memory, notes []memmodel.Note) string {
	prefs, tips := summaryLists(all, notes)
	folded := memmodel.FoldRepeats(memmodel.Current(all))
	mems := make([]memmodel.Memory, len(folded))
	sessions := map[string]int{}
	for i, e := range folded {
		mems[i] = e.Memory
		sessions[e.Sel.ThreadID] = e.Sessions
	}
	recent := memmodel.RecentDays(mems, memmodel.RecentMemoryDays)
	nRecent, nOlder := 0, 0
	for _, m := range mems {
		if recent[m.Day] {
			nRecent++
		} else {
			nOlder++
		}
	}
	lim := v2Limits{len(prefs), len(tips), nRecent, nOlder}
	for {
		s := renderSummaryV2With(all, mems, sessions, prefs, tips, recent, lim)
		if len(s) < summaryV2Target {
			return s
		}
		// Pointer lines run to about 150 bytes: drop roughly the overshoot at once.
		step := max(1, (len(s)-summaryV2Target)/150)
		switch {
		case lim.older > 0:
			lim.older = max(0, lim.older-step)
		case lim.tips > 3:
			lim.tips--
		case lim.prefs > 3:
			lim.prefs--
		case lim.recent > 1:
			lim.recent--
		case lim.tips > 0:
			lim.tips--
		case lim.prefs > 0:
			lim.prefs--
		case lim.recent > 0:
			lim.recent--
		default:
			return s[:textcut.PrefixEnd(s, summaryV2Target-1)]
		}
	}
}

// controlNote is the note of a rollout_summary_files bullet: what the user
// did to the memory (Codex leaves the note slot free).
func controlNote(s Selected) string {
	var out string
	if s.UserAsserted {
		out += ", user-asserted: written by the user"
	}
	if s.Pinned {
		out += ", pinned by the user"
	}
	return out
}

// assertedMark tags a summary line whose memory the user wrote.
func assertedMark(s Selected) string {
	if s.UserAsserted {
		return " " + memmodel.UserAssertedMarker
	}
	return ""
}

func pointerLine(m memmodel.Memory, sessions int) string {
	return fmt.Sprintf("- %s — %s%s; thread_id=%s%s%s\n", m.File, strings.TrimRight(textcut.Words(m.Desc, 160), "."), assertedMark(m.Sel), m.Sel.ThreadID, m.StaleNote(), memmodel.SeenIn(sessions))
}

// renderSummaryV2With writes the v2 summary within lim; mems are the
// folded memories and sessions how many each stands for.
func renderSummaryV2With(all, mems []memmodel.Memory, sessions map[string]int, prefs, tips []string, recent map[string]bool, lim v2Limits) string {
	gs := groupByCwd(mems)
	var sb strings.Builder
	sb.WriteString("v1\n\n## User Profile\n\n")
	sb.WriteString(profileOf(all, memmodel.Current(all)) + "\n\n")
	sb.WriteString("## User preferences\n\n")
	memmodel.WriteList(&sb, prefs[:lim.prefs], "none recorded yet")
	sb.WriteString("\n## General Tips\n\n")
	memmodel.WriteList(&sb, tips[:lim.tips], "none recorded yet")
	sb.WriteString("\n## What's in Memory\n")
	if len(mems) == 0 {
		sb.WriteString("\n- " + emptyIndex(all, "nothing yet", memdir.RolloutSummariesDir+"/") + "\n")
		return sb.String()
	}
	// Recent pointers are kept newest first across all scopes.
	keepRecent := map[string]bool{}
	n := 0
	for _, m := range mems {
		if recent[m.Day] && n < lim.recent {
			keepRecent[m.Sel.ThreadID] = true
			n++
		}
	}
	for _, g := range gs {
		day := ""
		header := false
		for _, m := range g.mems {
			if !keepRecent[m.Sel.ThreadID] {
				continue
			}
			if !header {
				fmt.Fprintf(&sb, "\n### %s\n", g.name)
				header = true
			}
			if m.Day != day {
				day = m.Day
				fmt.Fprintf(&sb, "\n#### %s\n\n", day)
			}
			sb.WriteString(pointerLine(m, sessions[m.Sel.ThreadID]))
		}
	}
	keepOld := map[string]bool{}
	n = 0
	for _, m := range mems {
		if !recent[m.Day] && n < lim.older {
			keepOld[m.Sel.ThreadID] = true
			n++
		}
	}
	if len(keepOld) > 0 {
		sb.WriteString("\n### Older Memory Topics\n")
		for _, g := range gs {
			header := false
			for _, m := range g.mems {
				if !keepOld[m.Sel.ThreadID] {
					continue
				}
				if !header {
					fmt.Fprintf(&sb, "\n#### %s\n\n", g.name)
					header = true
				}
				sb.WriteString(pointerLine(m, sessions[m.Sel.ThreadID]))
			}
		}
	}
	return sb.String()
}
