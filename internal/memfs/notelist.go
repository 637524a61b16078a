package memfs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/memctl/memctl/internal/memdir"
)

// maxDerivedSlugBytes bounds a slug made from a note's text: long enough
// to tell notes apart in a listing, short enough to read.
const maxDerivedSlugBytes = 40

// SlugOf makes a note's slug from its text when none is given: its first
// words in lowercase letters and digits joined by '-', at most 40 bytes,
// "note" when the text has no such word. It always passes checkSlug.
func SlugOf(text string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if b.Len() > 0 && b.Len()+1+len(w) > maxDerivedSlugBytes {
			break
		}
		if b.Len() > 0 {
			b.WriteByte('-')
		}
		b.WriteString(w)
	}
	s := b.String()
	if len(s) > maxDerivedSlugBytes {
		s = strings.TrimRight(s[:maxDerivedSlugBytes], "-")
	}
	if s == "" {
		return "note"
	}
	return s
}

// NoteNames lists the ad hoc notes of the memory folder root, oldest
// first (their names start with their UTC time). Files whose name is not
// a note's are left out; a missing folder has none.
func NoteNames(root string) ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(memdir.NotesDir)))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if e.Type().IsRegular() && ValidateNoteFilename(e.Name()) == nil {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// ErrNoteNotFound is returned by FindNote when no note answers to the name.
var ErrNoteNotFound = errors.New("no such note")

// FindNote returns the note of root that arg names: its file name (a
// path to it is cut to the name), else the one note whose name holds arg
// (its slug, say). Several matches are an error listing them.
func FindNote(root, arg string) (string, error) {
	arg = filepath.Base(filepath.FromSlash(strings.TrimSpace(arg)))
	names, err := NoteNames(root)
	if err != nil {
		return "", err
	}
	var match []string
	for _, n := range names {
		if n == arg {
			return n, nil
		}
		if arg != "" && strings.Contains(n, arg) {
			match = append(match, n)
		}
	}
	switch len(match) {
	case 0:
		return "", fmt.Errorf("%w: %q under %s", ErrNoteNotFound, arg, memdir.NotesDir)
	case 1:
		return match[0], nil
	}
	return "", fmt.Errorf("%q names %d notes: %s", arg, len(match), strings.Join(match, ", "))
}

// RemoveNote deletes the note called name from the memory folder root.
func RemoveNote(root, name string) error {
	if err := ValidateNoteFilename(name); err != nil {
		return err
	}
	p := filepath.Join(root, filepath.FromSlash(memdir.NotesDir), name)
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return invalidPath(memdir.NotesDir+"/"+name, "must be a regular file")
	}
	return os.Remove(p)
}
