package memfs

import (
	"strings"
	"testing"
	"time"
)

// FuzzNoteNames checks that a note name accepted by the validator can never
// leave the notes folder, and that NoteFilename only builds valid names.
func FuzzNoteNames(f *testing.F) {
	f.Add("2026-04-06T11-59-59-prefer-pnpm.md", "prefer-pnpm")
	f.Add("../../etc/passwd", "../x")
	f.Add("2026-04-06T11-59-59-a/b.md", "A_B")
	f.Add("2026-04-06T11-59-59-.md", "")
	f.Fuzz(func(t *testing.T, name, slug string) {
		if ValidateNoteFilename(name) == nil {
			if strings.ContainsAny(name, `/\`) || strings.Contains(name, "..") || !strings.HasSuffix(name, ".md") || len(name) > 128 {
				t.Fatalf("accepted unsafe note name %q", name)
			}
		}
		if n, err := NoteFilename(time.Date(2026, 4, 6, 11, 59, 59, 0, time.UTC), slug); err == nil {
			if err := ValidateNoteFilename(n); err != nil {
				t.Fatalf("NoteFilename(%q) built an invalid name %q: %v", slug, n, err)
			}
		}
	})
}
