package extract

import (
	"unicode/utf8"

	"github.com/memctl/memctl/internal/textcut"
)

// SplitChunks cuts s into consecutive pieces of at most max bytes, each
// ending on a UTF-8 boundary, so that joining them gives s back exactly.
// A piece is only shorter than max when the next rune would not fit. When
// max is smaller than a rune (max < 4) a piece may hold one whole rune
// that exceeds it, because splitting a rune would corrupt the text.
// An empty s gives no pieces.
func SplitChunks(s string, max int) []string {
	if s == "" {
		return nil
	}
	if max <= 0 {
		return []string{s}
	}
	var out []string
	for len(s) > max {
		cut := textcut.PrefixEnd(s, max)
		if cut == 0 {
			// A single rune longer than max: keep it whole.
			_, n := utf8.DecodeRuneInString(s)
			cut = n
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return append(out, s)
}
