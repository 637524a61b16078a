package consolidate

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/memctl/memctl/internal/memdir"
)

// String renders a change as its status line, "A path".
func (c Change) String() string { return string(c.Status) + " " + c.Path }

// Snapshot returns the memory folder as git would record it: every regular
// file (mode 100755 when any exec bit is set, else 100644) and every
// symlink (mode 120000, content = target), sorted by path. Entries named
// .git, the root's phase2_workspace_diff.md and its evidence index are
// skipped, since none belongs to the baseline; empty directories do not
// appear.
func Snapshot(root string) ([]BaselineFile, error) {
	var files []BaselineFile
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == root {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.Name() == memdir.GitDir {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if rel == memdir.DiffFile || rel == memdir.EvidenceIndexFile || memdir.IsTemp(d.Name()) {
			return nil
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			files = append(files, BaselineFile{Path: rel, Mode: modeSymlink, Content: []byte(target)})
		case d.Type().IsRegular():
			fi, err := d.Info()
			if err != nil {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			mode := modeRegular
			if fi.Mode().Perm()&0o111 != 0 {
				mode = modeExecutable
			}
			files = append(files, BaselineFile{Path: rel, Mode: mode, Content: data})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", root, err)
	}
	sortFiles(files)
	return files, nil
}

func sortFiles(files []BaselineFile) {
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
}

// diffSnapshots compares the baseline with the current files: 'A' for a new path,
// 'D' for a vanished one, 'M' when the content or the mode differs.
// The result is sorted by path.
func diffSnapshots(base, cur []BaselineFile) []Change {
	old := indexFiles(base)
	now := indexFiles(cur)
	var out []Change
	for p, c := range now {
		b, ok := old[p]
		switch {
		case !ok:
			out = append(out, Change{Status: 'A', Path: p})
		case b.Mode != c.Mode || !bytes.Equal(b.Content, c.Content):
			out = append(out, Change{Status: 'M', Path: p})
		}
	}
	for p := range old {
		if _, ok := now[p]; !ok {
			out = append(out, Change{Status: 'D', Path: p})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func indexFiles(files []BaselineFile) map[string]BaselineFile {
	m := make(map[string]BaselineFile, len(files))
	for _, f := range files {
		m[f.Path] = f
	}
	return m
}
