package heuristic

import (
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/memctl/memctl/internal/program"
)

// Files. A change counts only when the call that made it succeeded (the
// readers report no change of a failed, rejected or interrupted call) and
// nothing later undid it: a restore from git (git checkout -- f, git
// restore f, git stash, git reset --hard), an edit that puts the replaced
// text back, or the deletion of a file the task created.

// fileRec is one file a task changed.
type fileRec struct {
	path    string // absolute when the cwd is known
	ops     []string
	lastOp  string
	touches int
	order   int
	first   int  // the task's change count after its first change
	created bool // the task created it
	edits   []edit
	whole   int    // changes without their text (writes, patches): no edit undoes them
	undone  string // how the change was thrown away, "" while it stands
	stashed bool
	deleted bool // its latest change deleted it
}

type edit struct{ old, new string }

// undoneTemp marks a file the task created and deleted again.
const undoneTemp = "created and deleted again"

type files struct {
	m       map[string]*fileRec
	changes int
}

func normalizeOp(op string) string {
	switch strings.ToLower(op) {
	case "add", "create", "created", "new":
		return "add"
	case "delete", "deleted", "remove", "removed":
		return "delete"
	case "write":
		return "write"
	}
	return "update"
}

// change records one change of file p; nil past the cap.
func (fs *files) change(p, op, old, nw string) *fileRec {
	op = normalizeOp(op)
	f := fs.m[p]
	if f == nil {
		if len(fs.m) >= maxTrackedFiles {
			return nil
		}
		f = &fileRec{path: p, order: len(fs.m)}
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
	f.lastOp, f.deleted = op, op == "delete"
	if !slices.Contains(f.ops, op) {
		f.ops = append(f.ops, op)
	}
	wasUndone := f.undone != ""
	f.undone, f.stashed = "", false
	switch {
	case op == "delete" && f.created:
		f.undone, f.edits, f.whole = undoneTemp, nil, 0
	case op == "update" && (old != "" || nw != ""):
		i := slices.IndexFunc(f.edits, func(e edit) bool { return e.old == nw && e.new == old })
		if i >= 0 && !wasUndone {
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

// revert applies a restore to the task's files and returns those it
// undid; names are the files the command named, absolute.
func (fs *files) revert(r program.Restore, names []string) []string {
	var out []string
	for _, f := range fs.sorted() {
		switch {
		case r.Unstash && f.stashed:
			f.undone, f.stashed = "", false
		case f.undone != "" || f.created:
			// untracked files survive a restore from git
		case r.All || slices.ContainsFunc(names, func(n string) bool { return n == f.path || strings.HasSuffix(f.path, "/"+strings.TrimPrefix(n, "./")) }):
			f.undone, f.stashed, f.deleted = "restored from git", r.All, false
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

// live lists the files whose change stands; undone those thrown away.
func (fs *files) live() []*fileRec {
	return slices.DeleteFunc(fs.sorted(), func(f *fileRec) bool { return f.undone != "" })
}

func (fs *files) undone() []*fileRec {
	return slices.DeleteFunc(fs.sorted(), func(f *fileRec) bool { return f.undone == "" || f.undone == undoneTemp })
}

// goneLater lists the files a task created that a later task deleted:
// across the session nothing of them stands.
func goneLater(tasks []*task) map[string]bool {
	gone, created := map[string]bool{}, map[string]bool{}
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

// changedBefore names the standing changes made before a call ran: a
// check verifies those, not a file first changed after it.
func (x *Extractor) changedBefore(t *task, c *call) []string {
	var names []string
	for _, f := range t.files.live() {
		if c.changesBefore > 0 && f.first <= c.changesBefore {
			names = append(names, x.relPath(f.path))
		}
	}
	return names
}

// baseNames lists the base names of paths.
func baseNames(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = path.Base(p)
	}
	return out
}
