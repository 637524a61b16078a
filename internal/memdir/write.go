package memdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/internal/owner"
)

// Every write into a memory folder goes to a temporary file next to its
// target and is then renamed (or hard-linked) into place, so a reader or a
// crash never sees half a file. A writer killed in between leaves its
// temporary file behind: Snapshot-style walks skip it (IsTemp), and the
// next command that writes the folder deletes it (RemoveAbandonedTemps).
// The name carries the writer's host and pid (owner.TempTag), so a file
// whose writer has exited goes at once, not an hour later.
const (
	tempPrefix = ".memctl-tmp-"
	// oldNoteTempPrefix is what notes were written through before every
	// writer shared tempPrefix; a folder may still hold one.
	oldNoteTempPrefix = ".tmp-"
)

// IsTemp reports whether a file name is an in-flight (or abandoned) atomic
// write, which is never part of the folder's content.
func IsTemp(name string) bool {
	return strings.HasPrefix(name, tempPrefix) || strings.HasPrefix(name, oldNoteTempPrefix)
}

// WriteAtomic replaces path with data so that readers see either the old or
// the new content, never a mix: a temporary file in the same directory is
// written, synced and renamed over path. It refuses to write when path's
// parent directory is a symbolic link, since the file would land outside
// the folder memctl checked.
func WriteAtomic(path string, data []byte, perm os.FileMode) error {
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

// CreateNew writes path only if nothing is there yet, not even a dangling
// symbolic link; otherwise it returns an error that matches fs.ErrExist and
// leaves what is there alone. The content goes to a temporary file first
// and is hard-linked into place, so the file is never seen half-written;
// where hard links are unavailable it falls back to an O_EXCL create.
func CreateNew(path string, data []byte, perm os.FileMode) error {
	if _, err := os.Lstat(path); err == nil {
		return &fs.PathError{Op: "create", Path: path, Err: fs.ErrExist}
	}
	tmp, err := writeTemp(filepath.Dir(path), data, perm)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	err = os.Link(tmp, path)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	// Some filesystems have no hard links; O_EXCL still never overwrites.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

func writeTemp(dir string, data []byte, perm os.FileMode) (string, error) {
	f, err := os.CreateTemp(dir, tempPrefix+owner.TempTag()+"-*")
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
