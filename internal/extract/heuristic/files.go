package heuristic

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/memctl/memctl/internal/program"
)

// Files: a change counts when its call succeeded and nothing later undid it (docs/extractor.md, "Runs, failures …").

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
	inPlace []string // the lines that edited in place files they do not name
	floor   bool     // files changed under names not known: a folder moved (moveFolder), or inPlace
}

// change records one change of file p (p "": op is a line that changed files it does not name); nil past the cap.
func (fs *files) change(p, op, old, nw string) *fileRec {
	if p == "" {
		fs.changes, fs.inPlace, fs.floor = fs.changes+1, appendNew(fs.inPlace, op), true
		return nil
	}
	moved, found := strings.CutPrefix(op, "moved to ")
	op = cmp.Or(map[string]string{"add": "add", "create": "add", "created": "add", "new": "add", "write": "write",
		"delete": "delete", "deleted": "delete", "remove": "delete", "removed": "delete"}[strings.ToLower(op)],
		when(found, "moved to "+code(moved)), "update")
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
	fs.changes, f.touches = fs.changes+1, f.touches+1
	f.ops = appendNew(f.ops, op)
	wasUndone := f.undone != ""
	f.undone, f.stashed = "", false
	switch i := slices.Index(f.edits, [2]string{nw, old}); {
	case found && f.created: // a file the session made lives on under its new name, no deletion
		delete(fs.m, p)
		return nil
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
	fs.inPlace, fs.floor = map[bool][]string{false: fs.inPlace}[r.All], fs.floor && !r.All // all changes thrown away
	for _, f := range fs.sorted() {
		switch {
		case r.Unstash && f.stashed:
			f.undone, f.stashed = "", false
		case f.undone != "":
		case f.created && r.Untracked || !f.created && r.All || slices.ContainsFunc(r.Files, f.named):
			f.undone, f.stashed = cmp.Or(when(f.created, undoneTemp), "restored from git"), r.All
			out = append(out, f.path)
		}
	}
	return out
}

// named reports a path that names the file: the file's own, or its tail ("./scripts/x.sh").
func (f *fileRec) named(n string) bool {
	return n != "" && (n == f.path || strings.HasSuffix(f.path, "/"+strings.TrimPrefix(n, "./")))
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

// moveFolder moves along the files any task changed under folder p (op "moved to …"); those the session made live
// on under names not guessed, so t's count of files changed becomes a floor. It reports whether p held any.
func moveFolder(tasks []*task, t *task, p, op string) (held bool) {
	for _, u := range tasks {
		for _, g := range u.files.sorted() {
			if strings.HasPrefix(g.path, p+"/") {
				u.files.change(g.path, op, "", "")
				held, t.files.floor = true, true
			}
		}
	}
	return held
}

// goneAgain marks the files the session created that f, only deleted, takes (in an earlier task, under it), and f.
func goneAgain(tasks []*task, f *fileRec) {
	for _, t := range tasks {
		for _, g := range t.files.m {
			if g != f && g.created && slices.Equal(f.ops, []string{"delete"}) &&
				strings.HasPrefix(g.path+"/", f.path+"/") {
				g.undone, f.undone = undoneTemp, undoneTemp
			}
		}
	}
}
