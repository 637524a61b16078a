// Package reset implements `memctl clear`: it empties the memory state of
// every version's database and the contents of every memory folder, keeping
// the folders themselves and the threads' memory modes (Codex section 11).
//
// A memory root that is a symlink is refused before anything is touched,
// and symlinks inside a root are unlinked, never followed.
package reset

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/reviewdir"
)

// ErrSymlinkRoot is returned when a memory root is a symbolic link.
var ErrSymlinkRoot = errors.New("refusing to clear symlinked memory root")

// Database is one version's store, as clear needs it.
type Database interface {
	Clear(ctx context.Context) error
}

// Target is one database to clear: its path, and how to open it when it
// exists (v1 is always cleared, v2 only when its file exists).
type Target struct {
	Path   string
	Always bool
	Open   func(ctx context.Context) (Database, func() error, error)
}

// Result lists what was (or would be) cleared.
type Result struct {
	ClearedDatabases []string `json:"cleared_databases"`
	ClearedFolders   []string `json:"cleared_folders"`
	// Entries lists the folder entries removed (or, with DryRun, that would be).
	Entries []string `json:"entries"`
	DryRun  bool     `json:"dry_run,omitempty"`
}

// CheckRoots refuses symlinked memory roots under home.
func CheckRoots(home string) error {
	for _, name := range memdir.Folders {
		p := filepath.Join(home, name)
		fi, err := os.Lstat(p)
		if err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("%w %s: the link and its target are left untouched", ErrSymlinkRoot, p)
		}
		if err == nil && !fi.IsDir() {
			return fmt.Errorf("memory root %s is not a directory", p)
		}
	}
	return nil
}

// Clear empties the databases and folders. Nothing is touched when a root
// is a symlink.
func Clear(ctx context.Context, home string, dbs []Target, dryRun bool) (Result, error) {
	res := Result{ClearedDatabases: []string{}, ClearedFolders: []string{}, Entries: []string{}, DryRun: dryRun}
	if err := CheckRoots(home); err != nil {
		return res, err
	}
	for _, t := range dbs {
		if _, err := os.Stat(t.Path); err != nil && !t.Always {
			continue
		}
		res.ClearedDatabases = append(res.ClearedDatabases, t.Path)
		if dryRun {
			continue
		}
		db, closeFn, err := t.Open(ctx)
		if err != nil {
			return res, err
		}
		err = db.Clear(ctx)
		// Clear committed or failed already; closing cannot change that.
		_ = closeFn()
		if err != nil {
			return res, fmt.Errorf("clear %s: %w", t.Path, err)
		}
	}
	for _, name := range memdir.Folders {
		root := filepath.Join(home, name)
		entries, err := os.ReadDir(root)
		if errors.Is(err, os.ErrNotExist) {
			if !dryRun {
				if err := os.MkdirAll(root, 0o700); err != nil {
					return res, err
				}
			}
			res.ClearedFolders = append(res.ClearedFolders, root)
			continue
		}
		if err != nil {
			return res, err
		}
		names := make([]string, 0, len(entries))
		for _, e := range entries {
			names = append(names, e.Name())
		}
		sort.Strings(names)
		for _, n := range names {
			p := filepath.Join(root, n)
			res.Entries = append(res.Entries, p)
			if dryRun {
				continue
			}
			// RemoveAll unlinks symlinks without following them.
			if err := os.RemoveAll(p); err != nil {
				return res, fmt.Errorf("clear %s: %w", p, err)
			}
		}
		res.ClearedFolders = append(res.ClearedFolders, root)
	}
	// The staging folder holds only working copies of runs (a pending
	// review's output lives in the database), the review folder the held
	// memory and the approvals of team files: each goes whole.
	for _, name := range []string{memdir.StagingFolder, reviewdir.Folder} {
		p := filepath.Join(home, name)
		if _, err := os.Lstat(p); err == nil {
			res.Entries = append(res.Entries, p)
			if !dryRun {
				if err := os.RemoveAll(p); err != nil {
					return res, fmt.Errorf("clear %s: %w", p, err)
				}
			}
		}
	}
	return res, nil
}
