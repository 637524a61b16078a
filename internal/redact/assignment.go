package redact

import (
	"unicode"
	"unicode/utf8"
)

// assignmentAhead reports whether the key starting at p can be one a value is
// assigned to: past the key's letters, then whitespace, quotes and backslashes,
// comes ':' or '='. It is what every match of an assignment rule holds, whatever
// its expression: the key (a keyword, maybe "_key") is letters, '_' and '-', and
// the expression allows only whitespace, quotes and backslashes between it and the
// ':' or '='; the key's letters end where they do, since the character after a
// key is never one of them. A key letter is an ASCII letter, or a rune that (?i)
// folds to one (the KELVIN SIGN of k, the LONG S of s).
// TestAssignmentAheadHoldsForEveryMatch checks it against the expressions.
func assignmentAhead(u []byte, p int) bool {
	i := p
	for i < len(u) {
		r, size := utf8.DecodeRune(u[i:])
		if !keyLetter(r) {
			break
		}
		i += size
	}
	for i < len(u) {
		r, size := utf8.DecodeRune(u[i:])
		switch {
		case r == ':' || r == '=':
			return true
		case r == '"' || r == '\'' || r == '\\' || isWS(r):
			i += size
		default:
			return false
		}
	}
	return false
}

func keyLetter(r rune) bool {
	if r < utf8.RuneSelf {
		return r == '_' || r == '-' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < utf8.RuneSelf && ('a' <= f && f <= 'z' || 'A' <= f && f <= 'Z') {
			return true
		}
	}
	return false
}

// isWS is the class ws of the expressions: Unicode White_Space.
func isWS(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', 0x85, 0x2028, 0x2029:
		return true
	}
	return unicode.Is(unicode.Zs, r)
}
