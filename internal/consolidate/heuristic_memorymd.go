package consolidate

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/internal/textcut"
)

// MEMORY.md of the offline consolidator: one task group per project,
// its tasks, and their bullets without duplicates.

// group is the memories of one project (of one working directory for
// memories whose thread has no project key yet).
type group struct {
	cwd    string // the newest memory's folder
	key    string // the project key; "" when grouped by folder
	name   string // what headings call the group
	cwds   []string
	mems   []memory
	latest int64
}

func groupByCwd(mems []memory) []group {
	idx := map[string]int{}
	var gs []group
	for _, m := range mems { // mems are newest first, so groups come out by recency
		id := m.cwd
		if m.sel.ProjectKey != "" {
			id = "\x00" + m.sel.ProjectKey
		}
		i, ok := idx[id]
		if !ok {
			i = len(gs)
			idx[id] = i
			g := group{cwd: m.cwd, latest: m.sel.SourceUpdatedAt, name: m.cwd}
			if m.sel.ProjectKey != "" {
				g.key, g.name = m.sel.ProjectKey, firstNonEmpty(m.sel.ProjectName, m.sel.ProjectKey)
			}
			gs = append(gs, g)
		}
		gs[i].mems = append(gs[i].mems, m)
		if !contains(gs[i].cwds, m.cwd) {
			gs[i].cwds = append(gs[i].cwds, m.cwd)
		}
	}
	return gs
}

func groupName(cwd string) string {
	if cwd == unknownCwd {
		return "no recorded working directory"
	}
	base := filepath.Base(filepath.FromSlash(cwd))
	if base == "." || base == "/" || base == "" {
		return cwd
	}
	return base + " (" + cwd + ")"
}

// bulletSet collects bullets without duplicates, remembering which tasks
// and how many sessions stated each one: the same memory from N sessions
// is one bullet that says so, not N bullets.
type bulletSet struct {
	order    []string
	refs     map[string][]int
	text     map[string]string
	sessions map[string][]string
}

func newBulletSet() *bulletSet {
	return &bulletSet{refs: map[string][]int{}, text: map[string]string{}, sessions: map[string][]string{}}
}

func normKey(s string) string {
	return strings.ToLower(strings.Trim(cleanItem(s), " .;:-"))
}

// add records item, stated in task (0: none) of the session thread.
func (b *bulletSet) add(item string, task int, thread string) {
	k := normKey(item)
	if k == "" {
		return
	}
	if _, ok := b.text[k]; !ok {
		b.order = append(b.order, k)
		b.text[k] = item
	}
	if thread != "" && !contains(b.sessions[k], thread) {
		b.sessions[k] = append(b.sessions[k], thread)
	}
	if task > 0 {
		refs := b.refs[k]
		if len(refs) == 0 || refs[len(refs)-1] != task {
			b.refs[k] = append(refs, task)
		}
	}
}

func (b *bulletSet) write(sb *strings.Builder, heading string, limit int) {
	if len(b.order) == 0 {
		return
	}
	fmt.Fprintf(sb, "\n## %s\n\n", heading)
	for i, k := range b.order {
		if i == limit {
			break
		}
		line := "- " + wholeItem(b.text[k], maxItemBytes) + seenIn(len(b.sessions[k]))
		if refs := b.refs[k]; len(refs) > 0 {
			parts := make([]string, len(refs))
			for j, r := range refs {
				parts[j] = fmt.Sprintf("Task %d", r)
			}
			line += " [" + strings.Join(parts, ", ") + "]"
		}
		sb.WriteString(line + "\n")
	}
}

// seenIn is the note on a memory several sessions stated: " (seen in N
// sessions)", or nothing for one.
func seenIn(sessions int) string {
	if sessions < 2 {
		return ""
	}
	return fmt.Sprintf(" (seen in %d sessions)", sessions)
}

// renderMemoryMD builds the v1 handbook: one task group per working
// directory, newest first.
func renderMemoryMD(mems []memory, notes []note) string {
	var sb strings.Builder
	sb.WriteString("# Memory\n\nThe handbook of past work, grouped by project. memory_summary.md is the index; rollout_summaries/ holds the details.\n")
	if len(mems) == 0 && len(notes) == 0 {
		sb.WriteString("\nNo sessions have been consolidated yet.\n")
	}
	for _, g := range groupByCwd(mems) {
		if g.key != "" {
			fmt.Fprintf(&sb, "\n# Task Group: %s\n", g.name)
			fmt.Fprintf(&sb, "scope: %d session(s) of work in project %s, in %s, latest %s\n", len(g.mems), g.name, strings.Join(g.cwds, ", "), g.mems[0].day)
			fmt.Fprintf(&sb, "applies_to: project=%s; cwd=%s; reuse_rule=reuse for work in this project after checking that the code still matches\n", g.key, strings.Join(g.cwds, ", "))
		} else {
			fmt.Fprintf(&sb, "\n# Task Group: %s\n", groupName(g.cwd))
			fmt.Fprintf(&sb, "scope: %d session(s) of work in %s, latest %s\n", len(g.mems), g.cwd, g.mems[0].day)
			fmt.Fprintf(&sb, "applies_to: cwd=%s; reuse_rule=reuse for work under this directory after checking that the code still matches\n", g.cwd)
		}
		prefs, know, fails, doubt, old := newBulletSet(), newBulletSet(), newBulletSet(), newBulletSet(), newBulletSet()
		facts := newerFacts{}
		n := 0
		for _, m := range g.mems {
			for _, t := range m.tasks {
				n++
				title := firstNonEmpty(t.Task, t.Title, m.desc)
				outcome := firstNonEmpty(t.Outcome, m.outcome)
				heading := textcut.Words(title, maxItemBytes)
				if outcome != "" {
					heading += ", " + outcome
				}
				fmt.Fprintf(&sb, "\n## Task %d: %s\n\n", n, heading)
				sb.WriteString("### rollout_summary_files\n\n")
				fmt.Fprintf(&sb, "- %s (cwd=%s, rollout_path=%s, updated_at=%s, thread_id=%s", m.file, m.cwd, m.sel.RolloutPath, formatRFC3339(m.sel.SourceUpdatedAt), m.sel.ThreadID)
				if m.sel.GitBranch != "" {
					fmt.Fprintf(&sb, ", git_branch=%s", m.sel.GitBranch)
				}
				sb.WriteString(controlNote(m.sel))
				sb.WriteString(")\n")
				if m.stale != nil {
					fmt.Fprintf(&sb, "\nstale_evidence: %s\n", m.stale.Note())
				}
				sb.WriteString("\n### keywords\n\n")
				fmt.Fprintf(&sb, "- %s\n", strings.Join(m.keywords, ", "))
				id := m.sel.ThreadID
				for _, p := range t.Prefs {
					prefs.add(p, n, id)
				}
				if m.stale != nil {
					// Kept for the record, apart: what it says may no longer hold.
					for _, k := range append(append([]string(nil), t.Knowledge...), t.Failures...) {
						doubt.add(k, n, id)
					}
					continue
				}
				for _, k := range t.Knowledge {
					facts.sort(m, k, n, know, old)
				}
				for _, f := range t.Failures {
					facts.sort(m, f, n, fails, old)
				}
			}
		}
		prefs.write(&sb, "User preferences", maxBlockBullets)
		know.write(&sb, "Reusable knowledge", maxBlockBullets)
		fails.write(&sb, "Failures and how to do differently", maxBlockBullets)
		doubt.write(&sb, "Possibly stale (what these rest on changed since; verify before reuse)", maxBlockBullets)
		old.write(&sb, "Superseded (a later session says otherwise; kept as history)", maxBlockBullets)
	}
	if len(notes) > 0 {
		sb.WriteString("\n# Ad-hoc Notes\n\nNotes written on purpose under extensions/ad_hoc/notes/; they take precedence over older session memory.\n\n")
		for _, n := range notes {
			fmt.Fprintf(&sb, "- %s %s (%s)\n", n.marker(), n.text, n.file)
		}
	}
	return sb.String()
}
