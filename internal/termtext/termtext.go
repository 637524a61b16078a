// Package termtext makes text memctl did not write safe to print.
//
// Transcripts, and the memories and files made from them, can hold bytes
// a terminal obeys: ESC starts a sequence that moves the cursor, clears
// the screen, retitles the window or writes a hyperlink (CSI, OSC), C1
// controls do the same in one character, carriage return and backspace
// overwrite what was printed, and the Unicode bidi overrides reorder
// what a reader sees. memctl prints such text in threads, memories,
// search, status, history, review and doctor; Escape writes those
// characters as visible escapes first.
package termtext

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Escape returns s with its control characters written as visible
// escapes: \x1b for a C0 control, \u009b for a C1 control, \u202e for a
// bidi control, \xff for a byte that is not UTF-8. Newline and tab stay.
//
// For a terminal (terminal true) every one of them is escaped. For plain
// output (a pipe, a file) only the C0 controls other than newline and
// tab are: they corrupt a line-oriented reader, while the rest is text a
// script may want as it is. A backslash is left alone, so the escaped
// form reads as written but does not round-trip.
func Escape(s string, terminal bool) string {
	if clean(s, terminal) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			if terminal {
				fmt.Fprintf(&b, `\x%02x`, s[i])
			} else {
				b.WriteByte(s[i])
			}
		case r < 0x20 && r != '\n' && r != '\t', terminal && r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case terminal && (isC1(r) || isBidi(r)):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// clean reports, cheaply, that Escape has nothing to do: most text is
// printable ASCII.
func clean(s string, terminal bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\n' && c != '\t' {
			return false
		}
		if terminal && c >= 0x7f {
			return cleanUnicode(s[i:])
		}
	}
	return true
}

func cleanUnicode(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || isC1(r) || isBidi(r) {
			return false
		}
		i += size
	}
	return true
}

func isC1(r rune) bool { return r >= 0x80 && r <= 0x9f }

// isBidi: the marks, embeddings, overrides and isolates that change the
// order text is shown in (the "Trojan Source" characters).
func isBidi(r rune) bool {
	switch {
	case r == 0x061c, r == 0x200e, r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e:
		return true
	case r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// JSON returns a JSON document with its C1 and bidi controls written as
// \u escapes. encoding/json already escapes the C0 controls and replaces
// bytes that are not UTF-8, and these characters can only stand inside
// strings, so the document means the same to a JSON reader.
func JSON(doc []byte) []byte {
	if cleanJSON(doc) {
		return doc
	}
	out := make([]byte, 0, len(doc)+32)
	for i := 0; i < len(doc); {
		r, size := utf8.DecodeRune(doc[i:])
		if isC1(r) || isBidi(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, doc[i:i+size]...)
		}
		i += size
	}
	return out
}

// MarshalJSON is the document every memctl --json prints: v indented by
// two spaces, <, > and & as they are, one line break at the end, and its
// controls escaped by JSON.
func MarshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return JSON(buf.Bytes()), nil
}

func cleanJSON(doc []byte) bool {
	for i := 0; i < len(doc); i++ {
		if doc[i] >= 0x80 {
			for j := i; j < len(doc); {
				r, size := utf8.DecodeRune(doc[j:])
				if isC1(r) || isBidi(r) {
					return false
				}
				j += size
			}
			return true
		}
	}
	return true
}
