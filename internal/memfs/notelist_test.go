package memfs

import (
	"strings"
	"testing"
	"time"
)

func TestSlugOfIsAlwaysAValidSlug(t *testing.T) {
	for text, want := range map[string]string{
		"Prefer pnpm over npm in every repo":               "prefer-pnpm-over-npm-in-every-repo",
		"  --- !!! ":                                       "note",
		"Ünïcode only: ☃":                                  "n-code-only",
		strings.Repeat("supercalifragilistic ", 5):         "supercalifragilistic",
		strings.Repeat("x", 90):                            strings.Repeat("x", 40),
		"[REDACTED_SECRET] opens the registry for CI jobs": "redacted-secret-opens-the-registry-for",
	} {
		got := SlugOf(text)
		if got != want {
			t.Errorf("SlugOf(%q) = %q, want %q", text, got, want)
		}
		if _, err := NoteFilename(time.Unix(0, 0), got); err != nil {
			t.Errorf("SlugOf(%q) = %q is no valid slug: %v", text, got, err)
		}
	}
}
