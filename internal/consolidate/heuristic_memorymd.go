package consolidate

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/internal/memmodel"
	"github.com/memctl/memctl/internal/rawmemory"
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
	mems   []memmodel.Memory
	latest int64
}

func groupByCwd(mems []memmodel.Memory) []group {
	idx := map[string]int{}
	var gs []group
	for _, m := range mems { // mems are newest first, so groups come out by recency
		id := m.Cwd
		if m.Sel.ProjectKey != "" {
			id = "\x00" + m.Sel.ProjectKey
		}
		i, ok := idx[id]
		if !ok {
			i = len(gs)
			idx[id] = i
			g := group{cwd: m.Cwd, latest: m.Sel.SourceUpdatedAt, name: m.Cwd}
			if m.Sel.ProjectKey != "" {
				g.key, g.name = m.Sel.ProjectKey, memmodel.FirstNonEmpty(m.Sel.ProjectName, m.Sel.ProjectKey)
			}
			gs = append(gs, g)
		}
		gs[i].mems = append(gs[i].mems, m)
		if !contains(gs[i].cwds, m.Cwd) {
			gs[i].cwds = append(gs[i].cwds, m.Cwd)
		}
	}
	return gs
}

func groupName(cwd string) string {
	if cwd == memmodel.UnknownCwd {
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

// add records item, stated in task (0: none) of the session thread.
func (b *bulletSet) add(item string, task int, thread string) {
	k := memmodel.NormKey(item)
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
		line := "- " + memmodel.WholeItem(b.text[k], maxBulletBytes) + memmodel.SeenIn(len(b.sessions[k]))
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

// writeTaskList writes a list of a task's section, if it has items.
func writeTaskList(sb *strings.Builder, heading string, items []string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(sb, "\n### %s\n\n", heading)
	for _, it := range items {
		fmt.Fprintf(sb, "- %s\n", memmodel.WholeItem(it, maxBulletBytes))
	}
}

// userMessages is what a task's user_messages list keeps of the user's
// messages: each once, in order, without the request the heading already
// gives whole, without a follow-up of one short word ("yes", "ok", "p"),
// which says nothing without the question it answered, and without the
// stand-in of an image the user sent ("[image omitted]"), which says
// nothing at all.
func userMessages(asked []string, title string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range asked {
		label := rawmemory.StepAsked
		if strings.HasPrefix(s, rawmemory.StepFollowUp) {
			label = rawmemory.StepFollowUp
		}
		words := strings.Trim(strings.TrimPrefix(s, label), "“” ")
		if bare := strings.TrimSpace(strings.ReplaceAll(words, memmodel.ImageOmitted, "")); bare != words && strings.HasPrefix(s, label+"“") {
			words, s = bare, label+"“"+bare+"”"
		}
		switch said := memmodel.NormKey(words); {
		case said == "", s == rawmemory.StepAsked+"“"+title+"”", seen[said]:
		case label == rawmemory.StepFollowUp && memmodel.Assent(said):
		default:
			seen[said] = true
			out = append(out, s)
		}
	}
	return out
}

// blockLists are the lists under a task group's tasks, and the facts they
// were sorted by.
type blockLists struct {
	prefs, know, fails, doubt, old *bulletSet
	facts                          memmodel.Facts
}

// add lists a task's statements as task n's.
func (b blockLists) add(m memmodel.Memory, t rawmemory.Task, n int) {
	id := m.Sel.ThreadID
	for _, p := range t.Prefs {
		b.prefs.add(p, n, id)
	}
	if m.Stale != nil {
		// Kept for the record, apart: what it says may no longer hold.
		for _, k := range append(append([]string(nil), t.Knowledge...), t.Failures...) {
			b.doubt.add(k, n, id)
		}
		return
	}
	for _, k := range t.Knowledge {
		sortFact(b.facts, m, k, n, b.know, b.old)
	}
	for _, f := range t.Failures {
		sortFact(b.facts, m, f, n, b.fails, b.old)
	}
}

// taskSection is what MEMORY.md heads a task by and quotes of its user.
type taskSection struct {
	heading string
	msgs    []string
	refs    int
}

type taskSections []taskSection

// sectionsOf heads each task of a memory and quotes its messages; a
// template is named once in the session, at its first use.
func sectionsOf(m memmodel.Memory) taskSections {
	templates, named := sessionTemplates(m.Asked), map[string]bool{}
	secs := make(taskSections, len(m.Tasks))
	for i, t := range m.Tasks {
		title := memmodel.FirstNonEmpty(t.Task, t.Title, m.Desc)
		heading := textcut.Words(title, maxItemBytes)
		if i < len(m.Asked) {
			heading = memmodel.FirstNonEmpty(templates.title(m.Asked[i]), heading)
			secs[i].msgs = userMessages(templates.byOwnPart(userMessages(m.Asked[i], title), named), "")
		}
		if outcome := memmodel.FirstNonEmpty(t.Outcome, m.Outcome); outcome != "" {
			heading += ", " + outcome
		}
		secs[i].heading, secs[i].refs = heading, len(t.Refs)
	}
	return secs
}

// alike reports a task that repeats the heading of the one before and has
// nothing of its own to show under it (no message, no reference): a
// heading said again tells nothing, so it is said once, with a count.
func (s taskSection) alike(before taskSection) bool {
	return s.heading == before.heading && len(s.msgs) == 0 && s.refs == 0
}

// alikeAfter counts the tasks after the i-th that are alike to it.
func (secs taskSections) alikeAfter(i int) int {
	k := 0
	for i+k+1 < len(secs) && secs[i+k+1].alike(secs[i+k]) {
		k++
	}
	return k
}

// renderMemoryMD builds the v1 handbook: one task group per working
// directory, newest first.
func renderMemoryMD(mems []memmodel.Memory, notes []memmodel.Note) string {
	var sb strings.Builder
	sb.WriteString("# Memory\n\nThe handbook of past work, grouped by project. memory_summary.md is the index; rollout_summaries/ holds the details.\n")
	if len(mems) == 0 && len(notes) == 0 {
		sb.WriteString("\nNo sessions have been consolidated yet.\n")
	}
	for _, g := range groupByCwd(mems) {
		if g.key != "" {
			fmt.Fprintf(&sb, "\n# Task Group: %s\n", g.name)
			fmt.Fprintf(&sb, "scope: %d session(s) of work in project %s, in %s, latest %s\n", len(g.mems), g.name, strings.Join(g.cwds, ", "), g.mems[0].Day)
			fmt.Fprintf(&sb, "applies_to: project=%s; cwd=%s; reuse_rule=reuse for work in this project after checking that the code still matches\n", g.key, strings.Join(g.cwds, ", "))
		} else {
			fmt.Fprintf(&sb, "\n# Task Group: %s\n", groupName(g.cwd))
			fmt.Fprintf(&sb, "scope: %d session(s) of work in %s, latest %s\n", len(g.mems), g.cwd, g.mems[0].Day)
			fmt.Fprintf(&sb, "applies_to: cwd=%s; reuse_rule=reuse for work under this directory after checking that the code still matches\n", g.cwd)
		}
		lists := blockLists{prefs: newBulletSet(), know: newBulletSet(), fails: newBulletSet(), doubt: newBulletSet(), old: newBulletSet(), facts: memmodel.Facts{}}
		n := 0
		for _, m := range g.mems {
			secs := sectionsOf(m)
			first := n + 1 // the session's first task
			for i, t := range m.Tasks {
				if i > 0 && secs[i].alike(secs[i-1]) {
					// Said under the task before: its statements are that one's.
					lists.add(m, t, n)
					continue
				}
				n++
				heading := secs[i].heading
				if k := secs.alikeAfter(i); k > 0 {
					heading += fmt.Sprintf(" (%d tasks alike)", k+1)
				}
				fmt.Fprintf(&sb, "\n## Task %d: %s\n\n", n, heading)
				sb.WriteString("### rollout_summary_files\n\n")
				if i > 0 {
					// The session's file, place and keywords are its first
					// task's: said once.
					fmt.Fprintf(&sb, "- %s (the session of Task %d)\n", m.File, first)
				} else {
					fmt.Fprintf(&sb, "- %s (cwd=%s, rollout_path=%s, updated_at=%s, thread_id=%s", m.File, m.Cwd, m.Sel.RolloutPath, formatRFC3339(m.Sel.SourceUpdatedAt), m.Sel.ThreadID)
					if br := sessionBranch(m.Sel); br != "" {
						fmt.Fprintf(&sb, ", git_branch=%s", br)
					}
					sb.WriteString(controlNote(m.Sel))
					sb.WriteString(")\n")
					if m.Stale != nil {
						fmt.Fprintf(&sb, "\nstale_evidence: %s\n", m.Stale.Note())
					}
					sb.WriteString("\n### keywords\n\n")
					fmt.Fprintf(&sb, "- %s\n", strings.Join(m.Keywords, ", "))
				}
				// What the user asked, in their words, and the files the
				// task changed, its commits and what it read: what a later
				// session greps for.
				writeTaskList(&sb, "user_messages", secs[i].msgs)
				writeTaskList(&sb, "references", t.Refs)
				lists.add(m, t, n)
			}
		}
		lists.prefs.write(&sb, "User preferences", maxBlockBullets)
		lists.know.write(&sb, "Reusable knowledge", maxBlockBullets)
		lists.fails.write(&sb, "Failures and how to do differently", maxBlockBullets)
		lists.doubt.write(&sb, "Possibly stale (what these rest on changed since; verify before reuse)", maxBlockBullets)
		lists.old.write(&sb, "Superseded (a later session says otherwise; kept as history)", maxBlockBullets)
	}
	if len(notes) > 0 {
		sb.WriteString("\n# Ad-hoc Notes\n\nNotes written on purpose under extensions/ad_hoc/notes/; they take precedence over older session memory.\n\n")
		for _, n := range notes {
			fmt.Fprintf(&sb, "- %s %s (%s)\n", n.Marker(), n.Text, n.File)
		}
	}
	return sb.String()
}
