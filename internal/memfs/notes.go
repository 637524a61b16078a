package memfs

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/quarantine"
)

// Note filename limits (codex-memories.md section 10).
const (
	maxNoteFilenameBytes = 128
	timestampPrefixLen   = 20 // "YYYY-MM-DDTHH-MM-SS-"
	maxSlugBytes         = 80
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
	name := now.UTC().Format(memdir.TimeLayout) + "-" + slug + ".md"
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
	// Every agent reads the notes (the next consolidation folds them into
	// memory): a note may not carry an order to them.
	for i, line := range strings.Split(note, "\n") {
		if r := quarantine.Strong(line); r != "" {
			return "", fmt.Errorf("%w: line %d reads like one (%s); say what is true instead", ErrInstructionShaped, i+1, r)
		}
	}
	if err := dirError(memdir.EnsureRoot(root)); err != nil {
		return "", err
	}
	// Every command that writes the folder first clears what a killed
	// writer left there.
	memdir.RemoveAbandonedTemps(root, time.Now())
	if err := dirError(memdir.EnsureDir(root, memdir.NotesDir)); err != nil {
		return "", err
	}
	rel := memdir.NotesDir + "/" + filename
	if err := memdir.CreateNew(filepath.Join(root, filepath.FromSlash(rel)), []byte(note), 0o600); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return "", &Error{Kind: ErrAlreadyExists, Subject: "note", Value: rel, Reason: "already exists"}
		}
		return "", fmt.Errorf("memories: write note: %w", err)
	}
	return rel, nil
}

// dirError turns memdir's complaint about a folder on the way to the notes
// into this package's request error (the root is reported as ".").
func dirError(err error) error {
	var de *memdir.DirError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &de) && de.Symlink:
		return invalidPath(de.Rel, "must not be a symlink")
	case errors.As(err, &de):
		return invalidPath(de.Rel, "must be a directory")
	}
	return fmt.Errorf("memories: %w", err)
}
