package heuristic

import (
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/memctl/memctl/internal/program"
	"github.com/memctl/memctl/internal/sessions"
)

// A change counts only when the call that made it succeeded (the session
// readers report no change of a failed, rejected or interrupted call) and
// nothing later in the session undid it: a restore from git (git checkout
// -- f, git restore f, git stash, git reset --hard), an edit that puts the
// replaced text back, or the deletion of a file the task created.

// fileRec is one file a task changed.
type fileRec struct {
	path    string // absolute when the cwd is known
	ops     []string
	touches int
	order   int
	// first is the number of the change event that first touched the file
	// (files.changes after it), to tell which checks ran after it.
	first   int
	created bool   // the task created the file
	edits   []edit // in-place edits still in effect, oldest first
	whole   int    // changes without their text (writes, patches): no edit can undo them
	// undone says how the change was thrown away ("" while it stands).
	undone  string
	stashed bool
	deleted bool // its latest change deleted it
}

type edit struct{ old, new string }

// undoneTemp marks a file the task created and deleted again.
const undoneTemp = "created and deleted again"

type files struct {
	m       map[string]*fileRec
	order   int
	changes int // change events counted so far
}

func newFiles() files { return files{m: map[string]*fileRec{}} }

func normalizeOp(op string) string {
	switch strings.ToLower(op) {
	case "add", "create", "created", "new":
		return "add"
	case "delete", "deleted", "remove", "removed":
		return "delete"
	case "write":
		return "write"
	default:
		return "update"
	}
}

// change records one change of file p; it returns the record, nil past the
// cap.
func (fs *files) change(p, op, old, nw string) *fileRec {
	op = normalizeOp(op)
	f := fs.m[p]
	if f == nil {
		if len(fs.m) >= maxTrackedFiles {
			return nil
		}
		fs.order++
		f = &fileRec{path: p, order: fs.order}
		fs.m[p] = f
		if op == "write" {
			op = "add"
		}
		f.created = op == "add"
	} else if op == "write" {
		op = "update"
	}
	fs.changes++
	if f.first == 0 {
		f.first = fs.changes
	}
	f.touches++
	f.deleted = op == "delete"
	if !slices.Contains(f.ops, op) {
		f.ops = append(f.ops, op)
	}
	wasUndone := f.undone != ""
	f.undone, f.stashed = "", false
	switch {
	case op == "delete" && f.created:
		f.undone = undoneTemp
		f.edits, f.whole = nil, 0
	case op == "update" && (old != "" || nw != ""):
		if i := inverseEdit(f.edits, old, nw); i >= 0 && !wasUndone {
			f.edits = slices.Delete(f.edits, i, i+1)
			if len(f.edits) == 0 && f.whole == 0 && !f.created {
				f.undone = "edited back to its original text"
			}
		} else {
			f.edits = append(f.edits, edit{old, nw})
		}
	default:
		f.whole++
	}
	return f
}

// inverseEdit finds the latest edit that the edit old → nw undoes.
func inverseEdit(edits []edit, old, nw string) int {
	for i := len(edits) - 1; i >= 0; i-- {
		if edits[i].old == nw && edits[i].new == old {
			return i
		}
	}
	return -1
}

// revert applies a restore to the task's files and returns the files it
// undid. names are the files the command named, absolute.
func (fs *files) revert(r program.Restore, names []string) []string {
	var out []string
	for _, f := range fs.sorted() {
		switch {
		case r.Unstash && f.stashed:
			f.undone, f.stashed = "", false
		case f.undone != "" || f.created:
			// untracked files survive a restore from git
		case r.All:
			f.undone = "restored from git"
			f.stashed, f.deleted = true, false
			out = append(out, f.path)
		case slices.ContainsFunc(names, func(n string) bool { return n == f.path || strings.HasSuffix(f.path, "/"+strings.TrimPrefix(n, "./")) }):
			f.undone = "restored from git"
			f.deleted = false
			out = append(out, f.path)
		}
	}
	return out
}

// sorted lists the files by how often they changed, then first change.
func (fs *files) sorted() []*fileRec {
	out := make([]*fileRec, 0, len(fs.m))
	for _, f := range fs.m {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].touches != out[j].touches {
			return out[i].touches > out[j].touches
		}
		return out[i].order < out[j].order
	})
	return out
}

// live lists the files whose change stands at the end of the task.
func (fs *files) live() []*fileRec {
	var out []*fileRec
	for _, f := range fs.sorted() {
		if f.undone == "" {
			out = append(out, f)
		}
	}
	return out
}

// goneLater lists the files a task created that a later task deleted:
// across the session nothing of them stands, in either task.
func goneLater(tasks []*task) map[string]bool {
	gone := map[string]bool{}
	created := map[string]bool{}
	for _, t := range tasks {
		for _, f := range t.files.live() {
			switch {
			case f.created:
				created[f.path] = true
				delete(gone, f.path)
			case created[f.path] && slices.Equal(f.ops, []string{"delete"}):
				gone[f.path] = true
			}
		}
	}
	return gone
}

// fileNames reads the session's files by base name, as the agent's
// sentences name them. deleted are the files the session left deleted
// (the latest task to touch a file decides) when no other file of that
// name was read or stands: what the agent said about them describes
// something that is no longer there. A name of no extension may be a
// folder (rm -rf build) or a binary, so it never counts. existed are the
// files the session read or changed: whatever was said about one being
// missing, it was there.
func (x *Extractor) fileNames() (deleted, existed map[string]bool) {
	final := map[string]bool{} // path → deleted at the end
	var touched []string       // paths read or changed
	for _, t := range x.tasks {
		for p, f := range t.files.m {
			final[x.relPath(p)] = f.deleted
			touched = append(touched, x.relPath(p))
		}
		touched = append(touched, t.reads...)
	}
	deleted, existed = map[string]bool{}, map[string]bool{}
	for p, gone := range final {
		if name := path.Base(p); gone && path.Ext(name) != "" {
			deleted[name] = true
		}
	}
	for _, p := range touched {
		existed[path.Base(p)] = true
		if !final[p] {
			delete(deleted, path.Base(p)) // a file of that name stands
		}
	}
	return deleted, existed
}

// undone lists the files whose changes were thrown away.
func (fs *files) undoneFiles() []*fileRec {
	var out []*fileRec
	for _, f := range fs.sorted() {
		if f.undone != "" {
			out = append(out, f)
		}
	}
	return out
}

func (fs *files) editedAny(names []string) bool {
	for _, f := range fs.m {
		if f.undone == "" && slices.Contains(names, path.Base(f.path)) {
			return true
		}
	}
	return false
}

// fileChange handles a file_change event.
func (x *Extractor) fileChange(e sessions.Event) {
	t := x.current()
	if t == nil || e.FilePath == "" {
		return
	}
	if e.CallID != "" && x.dropped[e.CallID] {
		return
	}
	if sessions.TouchesMemory(e.FilePath) || inGitDir(e.FilePath) {
		return
	}
	// The readers and the tool input may spell one path absolute or
	// relative: a change is known by call and base name.
	key := e.CallID + "\x00" + path.Base(e.FilePath)
	if e.CallID != "" && x.seenChange[key] {
		return
	}
	x.markChange(key)
	x.changeFile(t, e.FilePath, e.FileOp, e.Old, e.New)
}

// inGitDir reports a path inside a .git folder: git's own bookkeeping
// (a stale index.lock), never part of the work.
func inGitDir(p string) bool {
	return strings.HasPrefix(p, ".git/") || strings.Contains(p, "/.git/")
}

func (x *Extractor) changeFile(t *task, p, op, old, nw string) {
	if inGitDir(p) || x.scratch(p) {
		return
	}
	p = x.absPath(p)
	f := t.files.change(p, op, old, nw)
	if f == nil {
		return
	}
	base := path.Base(p)
	x.kw.add(strings.ToLower(base), 2)
	t.addWords(append([]string{strings.ToLower(base)}, topicWords(nameParts(p))...))
	rel := x.relPath(p)
	for _, fam := range t.families {
		if fam.fails > 0 && len(fam.edited) < maxEditedPerFailure && !slices.Contains(fam.edited, rel) {
			fam.edited = append(fam.edited, rel)
		}
	}
	if f.undone != "" {
		t.steps.add(step{kind: stepUndone, files: []string{rel}, text: f.undone})
		return
	}
	op = normalizeOp(op)
	if op == "write" {
		op = "update"
		if f.touches == 1 {
			op = "add"
		}
	}
	t.steps.add(step{kind: stepFiles, op: op, files: []string{rel}})
}
