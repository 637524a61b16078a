package memfs

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// NotesDir is where ad hoc notes live, relative to the memory folder.
const NotesDir = "extensions/ad_hoc/notes"

// Note filename limits (codex-memories.md section 10).
const (
	maxNoteFilenameBytes = 128
	timestampPrefixLen   = 20 // "YYYY-MM-DDTHH-MM-SS-"
	maxSlugBytes         = 80
	noteTimeLayout       = "2006-01-02T15-04-05"
)

// ValidateNoteFilename checks a note filename:
// "<YYYY-MM-DDTHH-MM-SS>-<slug>.md", at most 128 bytes, where the slug is
// 1 to 80 characters of [a-z0-9-] and does not start with "-". Only the
// shape of the timestamp is checked, not that it is a real date.
func ValidateNoteFilename(name string) error {
	if len(name) > maxNoteFilenameBytes {
		return invalidFilename(name, "must be at most 128 bytes")
	}
	stem, ok := strings.CutSuffix(name, ".md")
	if !ok {
		return invalidFilename(name, "must end with .md")
	}
	if len(stem) < timestampPrefixLen+1 {
		return invalidFilename(name, "must look like YYYY-MM-DDTHH-MM-SS-slug.md")
	}
	for i := range timestampPrefixLen {
		c := stem[i]
		var ok bool
		switch i {
		case 4, 7, 13, 16, 19:
			ok = c == '-'
		case 10:
			ok = c == 'T'
		default:
			ok = c >= '0' && c <= '9'
		}
		if !ok {
			return invalidFilename(name, "must start with a UTC timestamp YYYY-MM-DDTHH-MM-SS followed by '-'")
		}
	}
	if err := checkSlug(stem[timestampPrefixLen:]); err != "" {
		return invalidFilename(name, err)
	}
	return nil
}

// checkSlug returns why slug is not acceptable, or "".
func checkSlug(slug string) string {
	if slug == "" || len(slug) > maxSlugBytes {
		return "must have a slug of 1 to 80 characters"
	}
	for i := 0; i < len(slug); i++ {
		c := slug[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' && i > 0) {
			return "slug must be lowercase letters, digits and '-', not starting with '-'"
		}
	}
	return ""
}

// NoteFilename builds "<YYYY-MM-DDTHH-MM-SS>-<slug>.md" from now in UTC.
// The slug must already follow the rules; it is checked, not rewritten.
func NoteFilename(now time.Time, slug string) (string, error) {
	if why := checkSlug(slug); why != "" {
		return "", &Error{Kind: ErrInvalidFilename, Subject: "slug", Value: slug, Reason: strings.TrimPrefix(why, "slug ")}
	}
	name := now.UTC().Format(noteTimeLayout) + "-" + slug + ".md"
	return name, ValidateNoteFilename(name)
}

// AddNote writes note verbatim as <root>/extensions/ad_hoc/notes/<filename>
// and returns its path relative to root. The folders are created one at a
// time and each must be a real directory (a symlink or a file in the way is
// ErrInvalidPath). An existing note is never replaced (ErrAlreadyExists),
// and a note is either fully written or absent.
func AddNote(root, filename, note string) (string, error) {
	if err := ValidateNoteFilename(filename); err != nil {
		return "", err
	}
	if strings.TrimSpace(note) == "" {
		return "", ErrEmptyNote
	}
	if err := os.MkdirAll(filepath.Dir(root), 0o700); err != nil {
		return "", fmt.Errorf("memories: %w", err)
	}
	dir, rel := root, ""
	if err := ensureDir(dir, "."); err != nil {
		return "", err
	}
	for _, name := range strings.Split(NotesDir, "/") {
		dir, rel = filepath.Join(dir, name), joinRel(rel, name)
		if err := ensureDir(dir, rel); err != nil {
			return "", err
		}
	}
	if err := writeExclusive(filepath.Join(dir, filename), []byte(note)); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return "", &Error{Kind: ErrAlreadyExists, Subject: "note", Value: joinRel(rel, filename), Reason: "already exists"}
		}
		return "", fmt.Errorf("memories: write note: %w", err)
	}
	return joinRel(rel, filename), nil
}

// ensureDir creates dir if missing and checks that it is a real directory.
func ensureDir(dir, rel string) error {
	err := os.Mkdir(dir, 0o700)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("memories: %w", err)
	}
	info, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("memories: %w", err)
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		return invalidPath(rel, "must not be a symlink")
	}
	if !info.IsDir() {
		return invalidPath(rel, "must be a directory")
	}
	return nil
}

// writeExclusive creates path with data, failing with fs.ErrExist when
// anything (even a dangling symlink) is there. The data goes to a hidden
// temporary file first and is hard-linked into place, so readers never see
// a half-written note; where hard links are unavailable it falls back to
// an O_EXCL create.
func writeExclusive(path string, data []byte) error {
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(filepath.Dir(path), ".tmp-"+hex.EncodeToString(rnd[:]))
	if err := writeNew(tmp, data); err != nil {
		return err
	}
	defer os.Remove(tmp)
	err := os.Link(tmp, path)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	return writeNew(path, data)
}

func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
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
