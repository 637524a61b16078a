package heuristic

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/memctl/memctl/internal/program"
)

// Files. A change counts only when the call that made it succeeded and
// nothing later undid it (docs/extractor.md, "Runs, failures and fixes").

// fileRec is one file a task changed: edits, those in effect (old, new); whole, changes without their text.
type fileRec struct {
	path, undone          string
	ops                   []string
	touches, order, whole int
	created, stashed      bool
	edits                 [][2]string
}

const undoneTemp = "created and deleted again"

type files struct {
	m       map[string]*fileRec
	changes int
}

// change records one change of file p; nil past the cap.
func (fs *files) change(p, op, old, nw string) *fileRec {
	op = cmp.Or(map[string]string{"add": "add", "create": "add", "created": "add", "new": "add", "write": "write",
		"delete": "delete", "deleted": "delete", "remove": "delete", "removed": "delete"}[strings.ToLower(op)],
		"update")
	f := fs.m[p]
	if f == nil {
		if len(fs.m) >= maxTrackedFiles {
			return nil
		}
		f = &fileRec{path: p, order: len(fs.m), created: op == "add" || op == "write"}
		fs.m[p] = f
	}
	if op == "write" { // a whole-file write creates the file or replaces it
		op = map[bool]string{true: "add", false: "update"}[f.touches == 0]
	}
	fs.changes++
	f.touches++
	f.ops = appendNew(f.ops, op)
	wasUndone := f.undone != ""
	f.undone, f.stashed = "", false
	switch i := slices.Index(f.edits, [2]string{nw, old}); {
	case op == "delete" && f.created:
		f.undone, f.edits, f.whole = undoneTemp, nil, 0
	case op != "update" || old == "" && nw == "":
		f.whole++
	case i >= 0 && !wasUndone:
		if f.edits = slices.Delete(f.edits, i, i+1); len(f.edits) == 0 && f.whole == 0 && !f.created {
			f.undone = "edited back to its original text"
		}
	default:
		f.edits = append(f.edits, [2]string{old, nw})
	}
	return f
}

// revert applies a restore (its files absolute) to the task's files and returns those it undid. A file the task
// created is gone when the restore names it or takes what no commit holds; one taking all changes leaves it.
func (fs *files) revert(r program.Restore) []string {
	var out []string
	for _, f := range fs.sorted() {
		switch {
		case r.Unstash && f.stashed:
			f.undone, f.stashed = "", false
		case f.undone != "":
		case f.created && r.Untracked || !f.created && r.All || slices.ContainsFunc(r.Files, func(n string) bool {
			return n == f.path || strings.HasSuffix(f.path, "/"+strings.TrimPrefix(n, "./"))
		}):
			f.undone, f.stashed = cmp.Or(when(f.created, undoneTemp), "restored from git"), r.All
			out = append(out, f.path)
		}
	}
	return out
}

// sorted lists the files by how often, then how early, they changed; live: those that stand; undone: thrown away.
func (fs *files) sorted() []*fileRec {
	byTouches := func(a, b *fileRec) int { return cmp.Or(b.touches-a.touches, a.order-b.order) }
	return slices.SortedFunc(maps.Values(fs.m), byTouches)
}

func (fs *files) live() []*fileRec {
	return slices.DeleteFunc(fs.sorted(), func(f *fileRec) bool { return f.undone != "" })
}

func (fs *files) undone() []*fileRec {
	return slices.DeleteFunc(fs.sorted(), func(f *fileRec) bool { return f.undone == "" || f.undone == undoneTemp })
}

// goneLater lists the files a task created that a later task deleted: nothing of them stands.
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
