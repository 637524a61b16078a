package consolidate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/memctl/memctl/templates"
)

// ErrSymlinkedRoot is returned by PrepareLayout (and so by Run, with status
// failed_prepare_workspace) when the memory root is a symbolic link: memctl
// would otherwise write, and later delete, files somewhere else.
var ErrSymlinkedRoot = errors.New("memory root is a symbolic link")

// adHocInstructionsTemplate is the template seeded into
// extensions/ad_hoc/instructions.md.
const adHocInstructionsTemplate = "ad_hoc_instructions.md"

// PrepareLayout makes root usable for Phase 2, as Codex's ensure_layout
// does: it creates root (mode 0700, parents too), refuses a root that is a
// symlink before writing anything, removes every symlink inside root
// without following it, creates rollout_summaries/ and seeds
// extensions/ad_hoc/instructions.md unless it already exists (a user's
// edited copy is never overwritten). Every directory on those paths must be
// a real directory; a symlinked one has been removed by the sweep and is
// recreated.
func PrepareLayout(root, templateDir string) error {
	if fi, err := os.Lstat(root); err == nil {
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%w: %s", ErrSymlinkedRoot, root)
		}
		if !fi.IsDir() {
			return fmt.Errorf("memory root %s is not a directory", root)
		}
	} else if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(root, 0o700); err != nil {
			return fmt.Errorf("create memory root: %w", err)
		}
	} else {
		return fmt.Errorf("memory root: %w", err)
	}
	if _, err := removeSymlinks(root); err != nil {
		return err
	}
	removeStaleTemps(root, time.Now().Add(-staleTempAge))
	if err := ensureRealDir(root, RolloutSummariesDir); err != nil {
		return err
	}
	if err := ensureRealDir(root, ExtensionsDir+"/ad_hoc"); err != nil {
		return err
	}
	text, err := templates.Get(adHocInstructionsTemplate, templateDir)
	if err != nil {
		return err
	}
	return writeFileExclusive(filepath.Join(root, ExtensionsDir, "ad_hoc", "instructions.md"), []byte(text), 0o600)
}

// ensureRealDir creates root/rel one component at a time, each a real
// directory. A symlink on the way is an error: callers sweep symlinks first,
// so one appearing here means something raced us.
func ensureRealDir(root, rel string) error {
	cur := root
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if part == "" || part == "." || part == ".." {
			return fmt.Errorf("invalid directory %q", rel)
		}
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		switch {
		case err == nil && fi.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("%s is a symbolic link", cur)
		case err == nil && !fi.IsDir():
			return fmt.Errorf("%s is not a directory", cur)
		case err == nil:
		case errors.Is(err, fs.ErrNotExist):
			if err := os.Mkdir(cur, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("create %s: %w", cur, err)
			}
		default:
			return err
		}
	}
	return nil
}

// removeSymlinks deletes every symlink under root (root itself excluded),
// never following one, and returns how many it removed.
func removeSymlinks(root string) (int, error) {
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

// writeFileExclusive writes path only if nothing is there yet. The content
// goes to a temp file first and is hard-linked into place, so the file is
// never seen half-written and an existing file is never replaced.
func writeFileExclusive(path string, data []byte, perm os.FileMode) error {
	if _, err := os.Lstat(path); err == nil {
		return nil
	}
	dir := filepath.Dir(path)
	tmp, err := writeTemp(dir, data, perm)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil
		}
		// Some filesystems have no hard links; O_EXCL still never overwrites.
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if err != nil {
			if errors.Is(err, fs.ErrExist) {
				return nil
			}
			return err
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	return nil
}

// Temporary files are written next to their target and renamed over it.
// A writer killed in between leaves one behind: it never enters a
// snapshot, and layout preparation deletes it once it is clearly abandoned
// (a live writer renames its file within moments).
const (
	writeTempPrefix = ".memctl-tmp-"
	noteTempPrefix  = ".tmp-" // memfs.AddNote's, written without the Phase 2 lock
	staleTempAge    = time.Hour
)

// isWriteTemp reports whether a file name is an in-flight atomic write.
func isWriteTemp(name string) bool {
	return strings.HasPrefix(name, writeTempPrefix) || strings.HasPrefix(name, noteTempPrefix)
}

// removeStaleTemps deletes abandoned temporary files older than cutoff.
func removeStaleTemps(root string, cutoff time.Time) {
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() || !isWriteTemp(d.Name()) {
			return nil
		}
		if fi, err := d.Info(); err == nil && fi.ModTime().Before(cutoff) {
			_ = os.Remove(p)
		}
		return nil
	})
}

func writeTemp(dir string, data []byte, perm os.FileMode) (string, error) {
	f, err := os.CreateTemp(dir, writeTempPrefix+"*")
	if err != nil {
		return "", err
	}
	name := f.Name()
	fail := func(err error) (string, error) {
		f.Close()
		os.Remove(name)
		return "", err
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Chmod(perm); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}

// WriteFileAtomic replaces path with data so that readers see either the
// old or the new content, never a mix: a temp file in the same directory is
// written, synced and renamed over path. It refuses to write when path's
// parent directory is a symlink, since the file would land outside the
// folder memctl checked.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("write %s: parent directory is a symbolic link", path)
	}
	if !fi.IsDir() {
		return fmt.Errorf("write %s: parent is not a directory", path)
	}
	tmp, err := writeTemp(dir, data, perm)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	// Persist the rename itself; not every platform can sync a directory,
	// and the data is already safe, so an error here is not fatal.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// StorageSize sums the sizes of the regular files under root, ignoring
// symlinks and anything inside a .git directory, as Codex reports it.
func StorageSize(root string) (int64, error) {
	var total int64
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" && p != root {
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
