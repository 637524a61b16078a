package memfs

import (
	"os"
	"path/filepath"
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
