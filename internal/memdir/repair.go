package memdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/owner"
)

// ErrSymlinkedRoot is returned (wrapped in a *DirError) when a memory
// folder itself is a symbolic link: memctl would otherwise write, and later
// delete, files somewhere else.
var ErrSymlinkedRoot = errors.New("memory root is a symbolic link")

// DirError reports a path that must be a real directory and is not: a
// symbolic link or something else. Errors about the root itself (Rel ".")
// that are links also match ErrSymlinkedRoot.
type DirError struct {
	Path    string // on disk
	Rel     string // relative to the memory folder, "/"-separated; "." is the folder
	Symlink bool   // a symbolic link, else not a directory
}

func (e *DirError) Error() string {
	switch {
	case e.Rel == "." && e.Symlink:
		return fmt.Sprintf("%v: %s", ErrSymlinkedRoot, e.Path)
	case e.Rel == ".":
		return fmt.Sprintf("memory root %s is not a directory", e.Path)
	case e.Symlink:
		return e.Path + " is a symbolic link"
	}
	return e.Path + " is not a directory"
}

// Is lets errors.Is(err, ErrSymlinkedRoot) find a linked root.
func (e *DirError) Is(target error) bool {
	return target == ErrSymlinkedRoot && e.Rel == "." && e.Symlink
}

// staleTempAge is how old a temporary file must be before it is taken for
// abandoned when its name does not say whether its writer is alive (one
// written by an older memctl, or on another host): a live writer renames
// its file within moments.
const staleTempAge = time.Hour

// Repair makes root usable for Phase 2, as Codex's ensure_layout does: it
// creates root (mode 0700, parents too), refuses a root that is a symbolic
// link before writing anything, removes every symbolic link inside root
// without following it, deletes abandoned temporary files
// (RemoveAbandonedTemps), creates rollout_summaries/ and extensions/ad_hoc/, and writes
// instructions as extensions/ad_hoc/instructions.md unless a file is there
// already (a user's edited copy is never overwritten). Every directory on
// those paths must be a real directory; a linked one has been removed by
// the sweep and is recreated.
//
// now is the caller's clock; abandoned files are judged by their
// modification time against it, so a clock pinned with MEMCTL_NOW moves
// that judgement too.
func Repair(root string, instructions []byte, now time.Time) error {
	if err := EnsureRoot(root); err != nil {
		return err
	}
	if _, err := RemoveSymlinks(root); err != nil {
		return err
	}
	RemoveAbandonedTemps(root, now)
	for _, dir := range []string{RolloutSummariesDir, AdHocDir} {
		if err := EnsureDir(root, dir); err != nil {
			return err
		}
	}
	err := CreateNew(filepath.Join(root, filepath.FromSlash(AdHocInstructionsFile)), instructions, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	return err
}

// EnsureRoot creates the memory folder root (0700, with its parents) when it
// is missing and checks that it is a real directory (a *DirError if not).
func EnsureRoot(root string) error {
	fi, err := os.Lstat(root)
	switch {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		return &DirError{Path: root, Rel: ".", Symlink: true}
	case err == nil && !fi.IsDir():
		return &DirError{Path: root, Rel: "."}
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(root, 0o700); err != nil {
			return fmt.Errorf("create memory root: %w", err)
		}
		// Check again: something may have raced the create.
		if fi, err := os.Lstat(root); err != nil || !fi.IsDir() {
			return &DirError{Path: root, Rel: ".", Symlink: err == nil && fi.Mode()&fs.ModeSymlink != 0}
		}
		return nil
	default:
		return fmt.Errorf("memory root: %w", err)
	}
}

// EnsureDir creates root/rel one component at a time (mode 0700), each a
// real directory. A symbolic link or a file on the way is a *DirError:
// callers sweep links first, so one appearing here means something raced
// them (or, for a note, that the folder was tampered with).
func EnsureDir(root, rel string) error {
	cur, done := root, ""
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if part == "" || part == "." || part == ".." {
			return fmt.Errorf("invalid directory %q", rel)
		}
		cur = filepath.Join(cur, part)
		if done == "" {
			done = part
		} else {
			done += "/" + part
		}
		if err := os.Mkdir(cur, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("create %s: %w", cur, err)
		}
		fi, err := os.Lstat(cur)
		switch {
		case err != nil:
			return err
		case fi.Mode()&fs.ModeSymlink != 0:
			return &DirError{Path: cur, Rel: done, Symlink: true}
		case !fi.IsDir():
			return &DirError{Path: cur, Rel: done}
		}
	}
	return nil
}

// RemoveSymlinks deletes every symbolic link under root (root itself
// excluded), never following one, and returns how many it removed.
func RemoveSymlinks(root string) (int, error) {
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if p != root && d.Type()&fs.ModeSymlink != 0 {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("remove symlink %s: %w", p, err)
			}
			n++
		}
		return nil
	})
	return n, err
}

// RemoveAbandonedTemps deletes the temporary files under root that a
// writer left behind: those whose writer, named in the file name, has
// exited on this host, and any that is more than an hour older than now
// (now is the caller's clock, so a clock pinned with MEMCTL_NOW moves that
// judgement too). A live writer's file is left alone. It returns how many
// it deleted; it never fails (a file it cannot delete is left for later).
func RemoveAbandonedTemps(root string, now time.Time) int {
	cutoff := now.Add(-staleTempAge)
	n := 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() || !IsTemp(d.Name()) {
			return nil
		}
		gone := owner.TempGone(strings.TrimPrefix(d.Name(), tempPrefix))
		if !gone {
			fi, err := d.Info()
			gone = err == nil && fi.ModTime().Before(cutoff)
		}
		if gone && os.Remove(p) == nil {
			n++
		}
		return nil
	})
	return n
}

// Size sums the sizes of the regular files under root, ignoring symbolic
// links and anything inside a .git directory, as Codex reports it.
func Size(root string) (int64, error) {
	var total int64
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == GitDir && p != root {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			total += fi.Size()
		}
		return nil
	})
	return total, err
}
