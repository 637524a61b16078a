package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// BackupDir is the folder, beside the databases, that holds the backup of
// each one.
const BackupDir = "backups"

// BackupInterval is how old the backup may grow before the next
// consolidation replaces it: a day's work at most is lost to a damaged
// file, at the cost of one copy of the database a day.
const BackupInterval = 24 * time.Hour

// BackupPath is where the backup of the database at dbPath is kept:
// <home>/backups/<its file name>.
func BackupPath(dbPath string) string {
	return filepath.Join(filepath.Dir(dbPath), BackupDir, filepath.Base(dbPath))
}

// Backup describes the backup of a database.
type Backup struct {
	Path    string    `json:"path"`
	ModTime time.Time `json:"written_at"`
}

// StatBackup returns the backup of the database at dbPath; ok is false
// when there is none.
func StatBackup(dbPath string) (Backup, bool) {
	p := BackupPath(dbPath)
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return Backup{}, false
	}
	return Backup{Path: p, ModTime: fi.ModTime().UTC()}, true
}

// RefreshBackup replaces the backup of the database when it is older
// than maxAge or missing, and reports whether it wrote one. The copy is
// VACUUM INTO a temporary file beside the backup, renamed over it once
// complete: a consistent snapshot (other processes may keep writing), and
// never a half-written backup. A database that cannot be read whole
// (a corrupt page) fails here and the previous backup stays. A store
// opened read-only makes none.
func (s *Store) RefreshBackup(ctx context.Context, maxAge time.Duration) (bool, error) {
	if s.readOnly != nil {
		return false, nil
	}
	// The backup's modification time is the store clock's time of the
	// copy (the wall clock but in tests), and its age is measured on it.
	if b, ok := StatBackup(s.path); ok && s.now().Sub(b.ModTime) < maxAge {
		return false, nil
	}
	dir := filepath.Dir(BackupPath(s.path))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, fmt.Errorf("back up %s: %w", s.path, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(s.path)+".new-*")
	if err != nil {
		return false, fmt.Errorf("back up %s: %w", s.path, err)
	}
	tmp := f.Name()
	f.Close()
	defer func() {
		_ = os.Remove(tmp) // gone after the rename
		_ = os.Remove(tmp + "-journal")
	}()
	if _, err := s.db.ExecContext(ctx, "VACUUM INTO ?", tmp); err != nil {
		return false, fmt.Errorf("back up %s: %w", s.path, s.damaged(s.diskFull(err)))
	}
	now := s.now()
	if err := os.Chtimes(tmp, now, now); err != nil {
		return false, fmt.Errorf("back up %s: %w", s.path, err)
	}
	if err := os.Rename(tmp, BackupPath(s.path)); err != nil {
		return false, fmt.Errorf("back up %s: %w", s.path, err)
	}
	return true, nil
}

// dropBackup deletes the backup once memory was forgotten or cleared: the
// copy still holds the text, and a forget means gone. The consolidation
// the forget asks for makes a new one without it.
func (s *Store) dropBackup() error {
	p := BackupPath(s.path)
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("forgotten, but the backup %s still holds the text and cannot be removed: %w", p, err)
	}
	return nil
}
