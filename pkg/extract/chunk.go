package extract

import (
	"strconv"
	"unicode/utf8"
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
		cut := runeBoundary(s, max)
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

// runeBoundary returns the largest i <= n that does not fall inside a
// valid multi-byte rune of s. Stray bytes of invalid UTF-8 count as one
// byte each, so invalid input is still cut as late as possible.
func runeBoundary(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for p := n - 1; p >= 0 && p >= n-(utf8.UTFMax-1); p-- {
		if utf8.RuneStart(s[p]) {
			r, size := utf8.DecodeRuneInString(s[p:])
			if r != utf8.RuneError || size > 1 {
				if p+size > n {
					return p
				}
			}
			break
		}
	}
	return n
}

// truncateMiddle keeps s when it fits in max bytes; otherwise it keeps the
// longest rune-aligned head of at most max/2 bytes and the tail that starts
// at or after byte len(s)-(max-max/2), with "…N chars truncated…" between
// them, N being the number of characters removed (codex-memories.md 8.2).
func truncateMiddle(s string, max int) string {
	if len(s) <= max {
		return s
	}
	if max < 0 {
		max = 0
	}
	left := max / 2
	right := max - left
	head := runeBoundary(s, left)
	tail := len(s) - right
	if b := runeBoundary(s, tail); b != tail {
		// tail falls inside a rune: start after it.
		_, size := utf8.DecodeRuneInString(s[b:])
		tail = b + size
	}
	if tail < head {
		tail = head
	}
	removed := utf8.RuneCountInString(s[head:tail])
	return s[:head] + "…" + strconv.Itoa(removed) + " chars truncated…" + s[tail:]
}
