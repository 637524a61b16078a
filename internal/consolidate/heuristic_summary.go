package consolidate

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/rawmemory"
	"github.com/memctl/memctl/internal/textcut"
)

// memory_summary.md of the offline consolidator: the user profile, the
// preference and tip lists, and the index of what is in memory (v1) or
// the pointers to rollout summaries (v2).

func userProfile(mems []memory, gs []group) string {
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
	fmt.Fprintf(&sb, " Most recent work (%s): %s.", mems[0].day, strings.TrimRight(textcut.Words(mems[0].desc, maxSummaryItem), "."))
	return sb.String()
}

// rankedItems dedupes items gathered across memories, most frequent first,
// then in order of first appearance (newest memory first).
func rankedItems(items []string, limit int) []string {
	count := map[string]int{}
	first := map[string]string{}
	var order []string
	for _, it := range items {
		k := normKey(it)
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
		out = append(out, wholeItem(first[k], maxSummaryItem))
	}
	return out
}

func summaryLists(mems []memory, notes []note) (prefs, tips []string) {
	// With several projects in memory, a tip like "`make test` is the
	// project's test command" is only useful when it says which project.
	projects := map[string]bool{}
	for _, m := range mems {
		projects[m.projectID().Key] = true
	}
	scope := func(m memory, items []string) []string {
		if len(projects) < 2 || m.cwd == "" {
			return items
		}
		name := "(" + path.Base(m.cwd) + ") "
		if m.sel.ProjectName != "" {
			name = "(" + m.sel.ProjectName + ") "
		}
		out := make([]string, len(items))
		for i, it := range items {
			out[i] = name + it
		}
		return out
	}
	var p, k []string
	latest := newerFacts{}
	for _, m := range mems {
		for _, t := range m.tasks {
			// Preferences are the user's words, about no file: a stale
			// memory keeps them. Its tips rest on what changed.
			p = append(p, scope(m, t.Prefs)...)
			if m.stale != nil {
				continue
			}
			if m.offline {
				for _, it := range tipItems(t.Knowledge) {
					if subjectOf(it) != "" {
						if latest.claim(m, it, 0) != "" {
							continue // a later session says otherwise
						}
						it += " (as of " + m.day + ")"
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
		if n.pref {
			prefs = append(prefs, noteMarker+" "+n.text)
		} else {
			tips = append(tips, noteMarker+" "+n.text)
		}
	}
	prefs = append(prefs, rankedItems(p, maxSummaryPrefs)...)
	tips = append(tips, rankedItems(k, maxSummaryTips)...)
	return prefs, tips
}

// tipItems keeps the facts a general tip may state: a check that verified the
// work, or a fix that made a failure pass. The agent's explanations stay in
// MEMORY.md, where they are read with their task.
func tipItems(knowledge []string) []string {
	var out []string
	for _, k := range knowledge {
		if tag := rawmemory.Tagged(k); tag == rawmemory.TagCheck || tag == rawmemory.TagFix {
			out = append(out, k)
		}
	}
	return out
}

func writeList(sb *strings.Builder, items []string, empty string) {
	if len(items) == 0 {
		sb.WriteString("- " + empty + "\n")
		return
	}
	for _, it := range items {
		sb.WriteString("- " + it + "\n")
	}
}

// recentDays returns the newest distinct memory days, newest first.
func recentDays(mems []memory, n int) map[string]bool {
	days := map[string]bool{}
	var order []string
	for _, m := range mems {
		if !days[m.day] {
			days[m.day] = true
			order = append(order, m.day)
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(order)))
	out := map[string]bool{}
	for i, d := range order {
		if i == n {
			break
		}
		out[d] = true
	}
	return out
}

func firstLearning(m memory) string {
	for _, t := range m.tasks {
		if len(t.Knowledge) > 0 {
			return t.Knowledge[0]
		}
	}
	for _, t := range m.tasks {
		if len(t.Failures) > 0 {
			return t.Failures[0]
		}
	}
	return ""
}

// profileOf is the user profile of the memories the summary shows, or of
// all of them when every one was dropped as stale: the user did that work.
func profileOf(all, shown []memory) string {
	if len(shown) == 0 {
		shown = all
	}
	return userProfile(shown, groupByCwd(shown))
}

// emptyIndex is what an empty "What's in Memory" says.
func emptyIndex(all []memory, none, keeper string) string {
	if len(all) > 0 {
		return "every memory rests on files or commands that are gone; " + keeper + " keeps them, marked stale"
	}
	return none
}

// renderSummaryV1 builds memory_summary.md for v1: profile, preferences,
// tips and an index of MEMORY.md by project and day.
func renderSummaryV1(all []memory, notes []note) string {
	prefs, tips := summaryLists(all, notes)
	mems := current(all)
	gs := groupByCwd(mems)
	later := supersessions(all)
	var sb strings.Builder
	sb.WriteString("v1\n\n## User Profile\n\n")
	sb.WriteString(profileOf(all, mems) + "\n\n")
	sb.WriteString("## User preferences\n\n")
	writeList(&sb, prefs, "none recorded yet")
	sb.WriteString("\n## General Tips\n\n")
	writeList(&sb, tips, "none recorded yet")
	sb.WriteString("\n## What's in Memory\n")
	if len(mems) == 0 {
		sb.WriteString("\n- " + emptyIndex(all, "nothing yet; MEMORY.md is empty", memdir.MemoryFile) + "\n")
		return sb.String()
	}
	recent := recentDays(mems, recentMemoryDays)
	for _, g := range gs {
		writeRecentTopics(&sb, g.name, repeatsMerged(g.mems, recent, true), later)
	}
	older := false
	for _, g := range gs {
		old := repeatsMerged(g.mems, recent, false)
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
			m := e.memory
			fmt.Fprintf(&sb, "- %s: %s%s%s\n", textcut.Words(m.topic, 120), strings.Join(m.keywords, ", "), m.staleNote(), seenIn(e.sessions))
		}
	}
	return sb.String()
}

// indexEntry is a memory of the summary's index with how many sessions
// of its project stated it word for word (it is the newest of them).
type indexEntry struct {
	memory
	sessions int
}

// repeatsMerged lists a project's memories of recent days (or, with
// recentOnes false, of older days), newest first, folded by foldRepeats.
func repeatsMerged(mems []memory, recent map[string]bool, recentOnes bool) []indexEntry {
	var some []memory
	for _, m := range mems {
		if recent[m.day] == recentOnes {
			some = append(some, m)
		}
	}
	return foldRepeats(some)
}

// foldRepeats merges each memory that repeats a newer one of its project
// (topic, keywords, description and first learning) into that newer
// entry's count: one line for N identical sessions, not N lines. A run of
// sessions that recited one answer would otherwise fill an index and push
// out the session that fixed the bug. mems is newest first, and so is
// the result.
func foldRepeats(mems []memory) []indexEntry {
	var out []indexEntry
	at := map[string]int{}
	for _, m := range mems {
		key := firstNonEmpty(m.sel.ProjectKey, m.cwd) + "\x00" + normKey(m.topic) + "\x00" + normKey(strings.Join(m.keywords, ",")) +
			"\x00" + normKey(m.desc) + "\x00" + normKey(firstLearning(m))
		if m.stale != nil || m.sel.Pinned || m.sel.UserAsserted {
			key = m.sel.ThreadID // stale or the user's own: a line of its own
		}
		if i, ok := at[key]; ok {
			out[i].sessions++
			continue
		}
		at[key] = len(out)
		out = append(out, indexEntry{memory: m, sessions: 1})
	}
	return out
}

// writeRecentTopics writes a project's recent memories into the v1
// index, by day, each with its description and first learning.
func writeRecentTopics(sb *strings.Builder, name string, rec []indexEntry, later map[string]string) {
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
		m := e.memory
		if m.day != day {
			day = m.day
			fmt.Fprintf(sb, "\n#### %s\n\n", day)
		}
		fmt.Fprintf(sb, "- %s: %s%s%s\n", textcut.Words(m.topic, 120), strings.Join(m.keywords, ", "), m.staleNote(), seenIn(e.sessions))
		fmt.Fprintf(sb, "  - desc: %s%s\n", textcut.Words(m.desc, maxSummaryItem), assertedMark(m.sel))
		if l := firstLearning(m); l != "" && m.stale == nil {
			note := ""
			if by := later[m.sel.ThreadID+"\x00"+l]; by != "" {
				note = " (" + by + ")"
			}
			fmt.Fprintf(sb, "  - learnings: %s%s\n", wholeItem(l, maxSummaryItem), note)
		}
	}
}

// v2Limits is how much of each list the v2 summary shows; shrinking them
// is how the summary is made to fit.
type v2Limits struct{ prefs, tips, recent, older int }

// renderSummaryV2 builds the compact v2 summary with direct pointers to
// rollout summaries, dropping the oldest pointers, then tips and
// preferences, until it fits summaryV2Target bytes.
func renderSummaryV2(all []memory, notes []note) string {
	prefs, tips := summaryLists(all, notes)
	folded := foldRepeats(current(all))
	mems := make([]memory, len(folded))
	sessions := map[string]int{}
	for i, e := range folded {
		mems[i] = e.memory
		sessions[e.sel.ThreadID] = e.sessions
	}
	recent := recentDays(mems, recentMemoryDays)
	nRecent, nOlder := 0, 0
	for _, m := range mems {
		if recent[m.day] {
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
		return " " + userAssertedMarker
	}
	return ""
}

func pointerLine(m memory, sessions int) string {
	return fmt.Sprintf("- %s — %s%s; thread_id=%s%s%s\n", m.file, strings.TrimRight(textcut.Words(m.desc, 160), "."), assertedMark(m.sel), m.sel.ThreadID, m.staleNote(), seenIn(sessions))
}

// renderSummaryV2With writes the v2 summary within lim; mems are the
// folded memories and sessions how many each stands for.
func renderSummaryV2With(all, mems []memory, sessions map[string]int, prefs, tips []string, recent map[string]bool, lim v2Limits) string {
	gs := groupByCwd(mems)
	var sb strings.Builder
	sb.WriteString("v1\n\n## User Profile\n\n")
	sb.WriteString(profileOf(all, current(all)) + "\n\n")
	sb.WriteString("## User preferences\n\n")
	writeList(&sb, prefs[:lim.prefs], "none recorded yet")
	sb.WriteString("\n## General Tips\n\n")
	writeList(&sb, tips[:lim.tips], "none recorded yet")
	sb.WriteString("\n## What's in Memory\n")
	if len(mems) == 0 {
		sb.WriteString("\n- " + emptyIndex(all, "nothing yet", memdir.RolloutSummariesDir+"/") + "\n")
		return sb.String()
	}
	// Recent pointers are kept newest first across all scopes.
	keepRecent := map[string]bool{}
	n := 0
	for _, m := range mems {
		if recent[m.day] && n < lim.recent {
			keepRecent[m.sel.ThreadID] = true
			n++
		}
	}
	for _, g := range gs {
		day := ""
		header := false
		for _, m := range g.mems {
			if !keepRecent[m.sel.ThreadID] {
				continue
			}
			if !header {
				fmt.Fprintf(&sb, "\n### %s\n", g.name)
				header = true
			}
			if m.day != day {
				day = m.day
				fmt.Fprintf(&sb, "\n#### %s\n\n", day)
			}
			sb.WriteString(pointerLine(m, sessions[m.sel.ThreadID]))
		}
	}
	keepOld := map[string]bool{}
	n = 0
	for _, m := range mems {
		if !recent[m.day] && n < lim.older {
			keepOld[m.sel.ThreadID] = true
			n++
		}
	}
	if len(keepOld) > 0 {
		sb.WriteString("\n### Older Memory Topics\n")
		for _, g := range gs {
			header := false
			for _, m := range g.mems {
				if !keepOld[m.sel.ThreadID] {
					continue
				}
				if !header {
					fmt.Fprintf(&sb, "\n#### %s\n\n", g.name)
					header = true
				}
				sb.WriteString(pointerLine(m, sessions[m.sel.ThreadID]))
			}
		}
	}
	return sb.String()
}
