package consolidate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/lazyre"
	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memmodel"
	"github.com/memctl/memctl/internal/project"
	"github.com/memctl/memctl/internal/rawmemory"
	"github.com/memctl/memctl/internal/store"
	"github.com/memctl/memctl/internal/textcut"
)

// The project layer (docs/projects.md) is what `memctl summary` injects:
// the personal layer plus the summary of the session's own project. It is
// built by memctl from the store's record of which project each raw
// memory came from, after every consolidation and whatever the mode, so
// that no model decides what one project may learn of another.

// Size bounds of the project layer: the personal layer, the project's
// summary and the pointers to other projects together stay inside the
// 2,500-token injection budget (about 10,000 bytes).
const (
	personalTarget   = 2400
	projectTarget    = 6400
	maxPersonalItems = 10
	maxProjectPrefs  = 12
	maxProjectTips   = 12
	maxProjectRecent = 15
	maxProjectOlder  = 20
)

// generalRe finds a preference or tip the user stated for every project.
var generalRe = lazyre.New(`(?i)\b(in|across|for) (all|every|each) (of )?(my )?(projects?|repos|repositories|codebases?)\b|\b(in|for) every (project|repo|repository|codebase)\b|\beverywhere\b|\bglobally\b|\bas a (general )?rule\b|\bI (always|never)\b|\bin general\b`)

// scopedItem is one preference or tip and the projects it was seen in.
type scopedItem struct {
	text     string
	projects map[string]bool
	general  bool
	count    int
	// counts is count by project: a project's summary ranks by how often
	// its own sessions said it, not by another project saying the same.
	counts map[string]int
	order  int
}

type itemSet struct {
	byKey map[string]*scopedItem
	n     int
}

func newItemSet() *itemSet { return &itemSet{byKey: map[string]*scopedItem{}} }

func (s *itemSet) add(text, projectKey string) {
	k := memmodel.NormKey(text)
	if k == "" {
		return
	}
	it, ok := s.byKey[k]
	if !ok {
		it = &scopedItem{text: text, projects: map[string]bool{}, counts: map[string]int{}, order: s.n}
		s.n++
		s.byKey[k] = it
	}
	it.count++
	it.counts[projectKey]++
	if projectKey != "" {
		it.projects[projectKey] = true
	}
	if generalRe().MatchString(text) {
		it.general = true
	}
}

// personal reports whether an item belongs to the personal layer: stated
// as general, or met in two different repositories.
func (it *scopedItem) personal() bool { return it.general || repositories(it.projects) > 1 }

// repositories counts the different repositories among project keys. A
// key that names a repository (its remote, its root commit, a
// [[projects]] entry) counts once; every project known only by a folder
// path counts as one together, because memctl cannot tell whether two
// such folders (a clone and a worktree whose folders are gone, say) are
// one repository, and a lesson of one repository must not be taken for
// a rule of every project.
func repositories(keys map[string]bool) int {
	n, paths := 0, 0
	for k := range keys {
		if project.IsPathKey(k) {
			paths = 1
			continue
		}
		n++
	}
	return n + paths
}

// ranked returns the items kept by keep, most frequent first, then the
// fixes before the other tips, then in order of first appearance (newest
// memory first). A fix records a failure and what overcame it, the
// mistake a later session must not repeat; a passing check is routine.
// Ranked by recency alone, a run of sessions that each passed a check
// would push an older fix out of a project's dozen tips, and `memctl eval`
// would count the mistake repeated as a ranking miss.
//
// With project set, an item's frequency is its count in that project.
func (s *itemSet) ranked(keep func(*scopedItem) bool, project string) []string {
	var items []*scopedItem
	for _, it := range s.byKey {
		if keep(it) {
			items = append(items, it)
		}
	}
	count := func(it *scopedItem) int {
		if project != "" {
			return it.counts[project]
		}
		return it.count
	}
	sort.Slice(items, func(i, j int) bool {
		if ci, cj := count(items[i]), count(items[j]); ci != cj {
			return ci > cj
		}
		if fi, fj := isFix(items[i].text), isFix(items[j].text); fi != fj {
			return fi
		}
		return items[i].order < items[j].order
	})
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = memmodel.WholeItem(it.text, memmodel.MaxSummaryItem)
	}
	return out
}

// isFix reports an offline memory's fix ("Fix: `make deploy` failed …
// and passed with … added").
func isFix(item string) bool { return rawmemory.Tagged(item) == rawmemory.TagFix }

// projectGroup is the memories of one project.
type projectGroup struct {
	id    project.Identity
	dir   string
	mems  []memmodel.Memory
	roots []string
}

// groupByProject groups memories by project key, the project with the
// newest memory first; memories of threads with no key are grouped by
// their folder, under a path key, as the scan would have keyed them.
func groupByProject(mems []memmodel.Memory) []*projectGroup {
	idx := map[string]*projectGroup{}
	var out []*projectGroup
	for _, m := range mems {
		id := m.Project()
		g, ok := idx[id.Key]
		if !ok {
			g = &projectGroup{id: id, dir: project.DirName(id)}
			idx[id.Key] = g
			out = append(out, g)
		}
		g.mems = append(g.mems, m)
		root := m.Root()
		if root != "" && !contains(g.roots, root) {
			g.roots = append(g.roots, root)
		}
	}
	for _, g := range out {
		sort.Strings(g.roots)
	}
	return out
}

// placeNotes finds each project note its project, returning the groups
// with one added for every project that has notes and no memory yet. A
// note is keyed by what its project was called when it was written: a
// repository's folder before its first commit, its root commit before it
// had a remote. Such a note goes to the project its folder or its history
// is part of now (notes is changed in place), or it would vanish when the
// repository grows. A project with notes and no consolidated memory gets
// a summary of its own, so a note written in a repository is injected
// there from the next consolidation on, before any session of it is.
func placeNotes(notes []memmodel.Note, groups []*projectGroup) []*projectGroup {
	byKey := map[string]*projectGroup{}
	for _, g := range groups {
		byKey[g.id.Key] = g
	}
	var r *project.Resolver // made only for a note no project holds
	for i := range notes {
		n := &notes[i]
		if n.Project == "" || byKey[n.Project] != nil {
			continue
		}
		if g := grownInto(n.Project, groups, &r); g != nil {
			n.Project = g.id.Key
			continue
		}
		id := project.Printable(project.Identity{Key: n.Project, Name: project.NameOfKey(n.Project)})
		g := &projectGroup{id: id, dir: project.DirName(id)}
		byKey[n.Project] = g
		groups = append(groups, g)
	}
	return groups
}

// grownInto is the project that holds what the weak key of a note (a
// path or a root commit) has become: the project whose sessions ran in
// that folder, or whose repository's history starts at that commit and
// has a remote now (project.Resolver.Upgrade asks git, once per folder).
func grownInto(key string, groups []*projectGroup, r **project.Resolver) *projectGroup {
	dir, isPath := strings.CutPrefix(key, "path:")
	if !isPath && !project.IsRootKey(key) {
		return nil
	}
	for _, g := range groups {
		if project.IsPathKey(g.id.Key) {
			continue // a path never replaces a path or a root commit
		}
		for _, root := range g.roots {
			if isPath {
				if root == dir {
					return g
				}
				continue
			}
			if *r == nil {
				*r = project.NewResolver(nil)
			}
			if up, ok := (*r).Upgrade(root, "", key); ok && up.Key == g.id.Key {
				return g
			}
		}
	}
	return nil
}

// latest is the day of the project's newest session, or of its newest
// note when it has notes only (a note file's name starts with its day).
func (g *projectGroup) latest(notes []memmodel.Note) string {
	if len(g.mems) > 0 {
		return g.mems[0].Day
	}
	day := ""
	for _, n := range notes {
		base := path.Base(n.File)
		if n.Project == g.id.Key && len(base) >= 10 && base[:10] > day {
			if _, err := time.Parse(time.DateOnly, base[:10]); err == nil {
				day = base[:10]
			}
		}
	}
	return day
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// tipsOf are the memory's items a summary may state as tips: for
// memctl's offline memories only checks and fixes, for a model's every
// learning and failure (as summaryLists does).
func tipsOf(m memmodel.Memory, t rawmemory.Task) []string {
	if m.Offline {
		return memmodel.TipItems(t.Knowledge)
	}
	return append(append([]string{}, t.Knowledge...), t.Failures...)
}

// projectLayer is the rendered layer: files by path relative to the
// memory folder.
type projectLayer map[string][]byte

// buildProjectLayer renders the index, the personal layer and a summary
// per project.
func buildProjectLayer(all []memmodel.Memory, notes []memmodel.Note) (projectLayer, error) {
	// A memory whose evidence is all gone leaves the layer; a stale one
	// keeps its preferences but not its tips (docs/stale.md). A newer fact
	// about the same command replaces an older one, dated.
	mems := memmodel.Current(all)
	groups := groupByProject(mems)
	prefs, tips := newItemSet(), newItemSet()
	latest, checked := memmodel.Facts{}, memmodel.Facts{}
	for _, m := range mems {
		key := m.Project().Key
		for _, t := range m.Tasks {
			for _, p := range t.Prefs {
				prefs.add(p, key)
			}
			if m.Stale != nil {
				continue
			}
			for _, k := range tipsOf(m, t) {
				if m.Offline && memmodel.SubjectOf(k) != "" {
					if latest.Claim(m, k, 0) != "" || checked.CheckedAgain(m, k) {
						continue
					}
					k += " (as of " + m.Day + ")"
				}
				tips.add(k, key)
			}
		}
	}
	notes = append([]memmodel.Note(nil), notes...)
	groups = placeNotes(notes, groups)
	layer := projectLayer{}
	layer[memdir.PersonalFile] = []byte(renderPersonal(prefs, tips, notes, groups))
	ix := project.Index{Version: project.IndexVersion, Projects: []project.IndexEntry{}, Empty: len(mems) == 0 && len(notes) == 0}
	for _, g := range groups {
		files := make([]string, 0, len(g.mems))
		for _, m := range g.mems {
			files = append(files, m.File)
		}
		sort.Strings(files)
		ix.Projects = append(ix.Projects, project.IndexEntry{
			Key: g.id.Key, Name: g.id.Name, Dir: g.dir, Roots: nonNilStrings(g.roots),
			Sessions: len(g.mems), Latest: g.latest(notes), Files: files,
		})
		layer[memdir.ProjectsDir+"/"+g.dir+"/"+memdir.ProjectSummaryFile] = []byte(renderProjectSummary(g, prefs, tips, notes))
	}
	b, err := json.MarshalIndent(ix, "", "  ")
	if err != nil {
		return nil, err
	}
	layer[memdir.ProjectIndexFile] = append(b, '\n')
	return layer, nil
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// renderPersonal writes the personal layer, shrinking its lists until it
// fits personalTarget bytes.
func renderPersonal(prefs, tips *itemSet, notes []memmodel.Note, groups []*projectGroup) string {
	p := prefs.ranked((*scopedItem).personal, "")
	t := tips.ranked((*scopedItem).personal, "")
	var notePrefs, noteTips []string
	for _, n := range notes {
		if n.Project != "" {
			continue
		}
		if n.Pref {
			notePrefs = append(notePrefs, memmodel.NoteMarker+" "+n.Text)
		} else {
			noteTips = append(noteTips, memmodel.NoteMarker+" "+n.Text)
		}
	}
	p = append(notePrefs, p...)
	t = append(noteTips, t...)
	np, nt := min(len(p), maxPersonalItems), min(len(t), maxPersonalItems)
	for {
		var sb strings.Builder
		sb.WriteString("## Personal layer\n\n")
		sb.WriteString("Preferences and tips that hold in every project: stated as general by the user, or seen in two different repositories.\n")
		sb.WriteString("\n### Preferences\n\n")
		memmodel.WriteList(&sb, p[:np], memdir.NoneRecorded)
		sb.WriteString("\n### Tips\n\n")
		memmodel.WriteList(&sb, t[:nt], memdir.NoneRecorded)
		s := sb.String()
		switch {
		case len(s) <= personalTarget:
			return s
		case nt > np && nt > 0:
			nt--
		case np > 0:
			np--
		default:
			return s[:textcut.PrefixEnd(s, personalTarget)]
		}
	}
}

// projectLimits is how much of each list a project's summary shows;
// shrinking them is how the summary is made to fit projectTarget.
type projectLimits struct{ prefs, tips, recent, older int }

// renderProjectSummary writes one project's summary: what its own
// sessions taught, not what belongs to the personal layer.
func renderProjectSummary(g *projectGroup, prefs, tips *itemSet, notes []memmodel.Note) string {
	own := func(it *scopedItem) bool { return !it.personal() && it.projects[g.id.Key] }
	p := prefs.ranked(own, g.id.Key)
	t := tips.ranked(own, g.id.Key)
	for _, n := range notes {
		if n.Project != g.id.Key {
			continue
		}
		if n.Pref {
			p = append([]string{memmodel.NoteMarker + " " + n.Text}, p...)
		} else {
			t = append([]string{memmodel.NoteMarker + " " + n.Text}, t...)
		}
	}
	recent := memmodel.RecentDays(g.mems, memmodel.RecentMemoryDays)
	rec, old := memmodel.RepeatsMerged(g.mems, recent, true), memmodel.RepeatsMerged(g.mems, recent, false)
	lim := projectLimits{prefs: min(len(p), maxProjectPrefs), tips: min(len(t), maxProjectTips),
		recent: min(len(rec), maxProjectRecent), older: min(len(old), maxProjectOlder)}
	for {
		s := renderProjectSummaryWith(g, p, t, rec, old, lim)
		if len(s) <= projectTarget {
			return s
		}
		switch {
		case lim.older > 0:
			lim.older--
		case lim.recent > 3:
			lim.recent--
		case lim.tips > 3:
			lim.tips--
		case lim.prefs > 3:
			lim.prefs--
		case lim.recent > 0:
			lim.recent--
		case lim.tips > 0:
			lim.tips--
		case lim.prefs > 0:
			lim.prefs--
		default:
			return s[:textcut.PrefixEnd(s, projectTarget)]
		}
	}
}

func renderProjectSummaryWith(g *projectGroup, prefs, tips []string, rec, old []memmodel.Entry, lim projectLimits) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "## Project: %s\n\n", g.id.Name)
	if len(g.mems) == 0 {
		fmt.Fprintf(&sb, "key: %s; no session consolidated yet", g.id.Key) // notes only
	} else {
		fmt.Fprintf(&sb, "key: %s; %d session(s), latest %s", g.id.Key, len(g.mems), g.mems[0].Day)
	}
	if len(g.roots) > 0 {
		// The folders are the transcripts' cwd, which may hold newlines.
		fmt.Fprintf(&sb, "; folders: %s", project.OneLine(strings.Join(g.roots, ", ")))
	}
	sb.WriteString("\n\n" + memdir.ProjectPrefsHeading + "\n\n")
	memmodel.WriteList(&sb, prefs[:lim.prefs], memdir.NoneRecorded)
	sb.WriteString("\n" + memdir.ProjectTipsHeading + "\n\n")
	memmodel.WriteList(&sb, tips[:lim.tips], memdir.NoneRecorded)
	sb.WriteString("\n### What's in memory for this project\n")
	day := ""
	for i, e := range rec {
		m := e.Memory
		if i == lim.recent {
			fmt.Fprintf(&sb, "- and %d more recent topics; search MEMORY.md\n", len(rec)-i)
			break
		}
		if m.Day != day {
			day = m.Day
			fmt.Fprintf(&sb, "\n#### %s\n\n", day)
		}
		fmt.Fprintf(&sb, "- %s: %s%s%s\n", textcut.Words(m.Topic, 120), strings.Join(m.Keywords, ", "), m.StaleNote(), memmodel.SeenIn(e.Sessions))
		fmt.Fprintf(&sb, "  - desc: %s (%s)\n", textcut.Words(m.Desc, memmodel.MaxSummaryItem), m.File)
		if l := m.IndexLearning(); l != "" && m.Stale == nil {
			fmt.Fprintf(&sb, "  - learnings: %s\n", memmodel.WholeItem(l, memmodel.MaxSummaryItem))
		}
	}
	if len(rec) == 0 {
		sb.WriteString("\n- no recent sessions\n")
	}
	if lim.older > 0 {
		sb.WriteString("\n#### Older topics\n\n")
		for i, e := range old {
			m := e.Memory
			if i == lim.older {
				fmt.Fprintf(&sb, "- and %d older topics; search MEMORY.md\n", len(old)-i)
				break
			}
			fmt.Fprintf(&sb, "- %s: %s (%s)%s%s\n", textcut.Words(m.Topic, 120), strings.Join(m.Keywords, ", "), m.File, m.StaleNote(), memmodel.SeenIn(e.Sessions))
		}
	}
	return sb.String()
}

// writeProjectLayer rebuilds the memory folder's projects/ from the
// selected raw memories and the ad hoc notes, the run's stale memories
// demoted or dropped: every file atomically, the project summaries before
// the personal layer and the index that lead to them. With prune, whatever
// the previous layer had that this one has not is removed after.
//
// A consolidation writes the layer twice: before the consolidator writes
// the summary, without pruning (so a summary never names a project whose
// files are not there yet, and the old summary's projects stay), and after
// it, pruning (undoing anything the consolidator changed there).
//
// It returns how many notes the folder holds: the layer holds the
// memmodel.MaxSummaryNotes best-ranked of them (marks).
func writeProjectLayer(root string, selected []Selected, redact func(string) string, stale map[string]memmodel.Stale, marks map[string]store.NoteMark, prune bool) (int, error) {
	if redact == nil {
		redact = func(s string) string { return s }
	}
	mems := memmodel.Parse(selected)
	memmodel.MarkStale(mems, stale)
	notes := memmodel.ReadNotes(root, redact)
	layer, err := buildProjectLayer(mems, memmodel.SummaryNotes(notes, marks))
	if err != nil {
		return 0, err
	}
	if err := memdir.EnsureDir(root, memdir.ProjectsDir); err != nil {
		return 0, err
	}
	rels := make([]string, 0, len(layer))
	for rel := range layer {
		rels = append(rels, rel)
	}
	// summary switches to the scoped view when it finds the index and then
	// reads the files it names: the index comes last (the concurrent soak
	// caught a first consolidation that published it before the personal
	// layer).
	sortForWrite(rels)
	for _, rel := range rels {
		data := layer[rel]
		dir := filepath.Dir(filepath.FromSlash(rel))
		if err := memdir.EnsureDir(root, filepath.ToSlash(dir)); err != nil {
			return 0, err
		}
		content := data
		if !strings.HasSuffix(rel, ".json") {
			content = []byte(redact(string(data)))
		}
		full := filepath.Join(root, filepath.FromSlash(rel))
		if old, err := os.ReadFile(full); err == nil && bytes.Equal(old, content) {
			if fi, err := os.Lstat(full); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm() == 0o600 {
				continue
			}
		}
		if err := putFile(full, content, 0o600); err != nil {
			return 0, err
		}
	}
	if !prune {
		return len(notes), nil
	}
	return len(notes), pruneProjectLayer(root, layer)
}

// pruneProjectLayer removes files and folders under projects/ that the
// new layer does not have (a project whose memories all aged out).
func pruneProjectLayer(root string, keep projectLayer) error {
	base := filepath.Join(root, memdir.ProjectsDir)
	var stale []string
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() || memdir.IsTemp(d.Name()) {
			return nil
		}
		if _, ok := keep[rel]; !ok {
			stale = append(stale, p)
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, p := range stale {
		if err := dropFile(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	entries, _ := os.ReadDir(base)
	for _, e := range entries {
		if e.IsDir() {
			_ = os.Remove(filepath.Join(base, e.Name())) // only when empty
		}
	}
	return nil
}
