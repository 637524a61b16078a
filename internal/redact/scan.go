package redact

import (
	"unicode"
	"unicode/utf8"
)

// The scanner is the prefilter: one pass over the text that finds every anchor literal of
// every rule, so a rule's regular expression only runs where it can possibly match. It
// keys a 64 Ki table on each pair of adjacent bytes; pairs that start no anchor (nearly
// all of them) cost one table load. Case-insensitive anchors are entered under every ASCII
// case variant of their first two bytes and then compared with an ASCII fold.

// exoticBit marks lines containing U+212A KELVIN SIGN or U+017F LONG S (see rule.exotic).
const exoticBit = 63

// hit is one anchor occurrence.
type hit struct {
	pos int   // byte offset of the anchor's first byte
	a   int32 // index into scanner.anchors
}

type anchor struct {
	lit    []byte // lower-cased when fold
	fold   bool
	before boundary
	bit    uint64 // 1 << rule index (or exoticBit)
	rule   int    // rule index, -1 for the exotic marker
}

type scanner struct {
	tab     []uint16 // bigram -> group index + 1
	groups  [][]int32
	anchors []anchor
}

func newScanner(rules []*rule) *scanner {
	s := &scanner{tab: make([]uint16, 1<<16)}
	add := func(a anchor) {
		idx := int32(len(s.anchors))
		s.anchors = append(s.anchors, a)
		for _, b0 := range caseVariants(a.lit[0], a.fold) {
			for _, b1 := range caseVariants(a.lit[1], a.fold) {
				k := uint16(b0)<<8 | uint16(b1)
				if s.tab[k] == 0 {
					s.groups = append(s.groups, nil)
					s.tab[k] = uint16(len(s.groups))
				}
				g := s.tab[k] - 1
				s.groups[g] = append(s.groups[g], idx)
			}
		}
	}
	for i, r := range rules {
		for _, lit := range r.anchors {
			b := []byte(lit)
			if r.fold {
				b = []byte(asciiLower(lit))
			}
			if len(b) < 2 {
				panic("redact: anchor shorter than two bytes: " + lit)
			}
			add(anchor{lit: b, fold: r.fold, before: r.before, bit: 1 << uint(i), rule: i})
		}
	}
	for _, lit := range []string{"\u212a", "\u017f"} {
		add(anchor{lit: []byte(lit), bit: 1 << exoticBit, rule: -1})
	}
	return s
}

func caseVariants(c byte, fold bool) []byte {
	if fold && 'a' <= c && c <= 'z' {
		return []byte{c, c - 'a' + 'A'}
	}
	return []byte{c}
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// scan appends every anchor hit in b, in position order, to hits.
func (s *scanner) scan(b []byte, hits []hit) []hit {
	if len(b) < 2 {
		return hits
	}
	tab := s.tab[:1<<16]
	x := uint16(b[0])
	for i := 1; i < len(b); i++ {
		x = x<<8 | uint16(b[i])
		if g := tab[x]; g != 0 {
			hits = s.verify(b, i-1, g-1, hits)
		}
	}
	return hits
}

func (s *scanner) verify(b []byte, p int, g uint16, hits []hit) []hit {
	for _, ai := range s.groups[g] {
		a := &s.anchors[ai]
		n := len(a.lit)
		if len(b)-p < n {
			continue
		}
		if a.fold {
			if !equalFoldASCII(b[p:p+n], a.lit) {
				continue
			}
		} else if string(b[p:p+n]) != string(a.lit) {
			continue
		}
		if !roughBefore(a.before, b, p) {
			continue
		}
		hits = append(hits, hit{pos: p, a: ai})
	}
	return hits
}

// roughBefore is the cheap, conservative form of boundaryOK: it may accept a position
// the exact check later rejects, never the reverse.
func roughBefore(k boundary, b []byte, p int) bool {
	switch k {
	case wordBefore:
		return p == 0 || !isASCIIWord(b[p-1])
	case alnumBefore:
		return p == 0 || !isASCIIAlnum(b[p-1])
	case queryBefore:
		return p > 0 && (b[p-1] == '?' || b[p-1] == '&')
	}
	return true
}

// boundaryOK is the exact check of a rule's "before" condition at p.
func boundaryOK(k boundary, b []byte, p int) bool {
	if k == wordBefore {
		if p == 0 {
			return true
		}
		r, _ := utf8.DecodeLastRune(b[:p])
		return !isWordRune(r)
	}
	return roughBefore(k, b, p)
}

// wordEndOK reports whether a word boundary follows a match ending in a word character.
func wordEndOK(b []byte, e int) bool {
	if e >= len(b) {
		return true
	}
	r, _ := utf8.DecodeRune(b[e:])
	return !isWordRune(r)
}

func equalFoldASCII(b, lower []byte) bool {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

func isASCIIAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isASCIIWord(c byte) bool { return c == '_' || isASCIIAlnum(c) }

// isWordRune follows Rust regex's Unicode \w (Alphabetic, marks, decimal digits,
// connector punctuation, joiners), which decides Codex's \b.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return isASCIIWord(byte(r))
	}
	return unicode.IsLetter(r) || unicode.IsMark(r) || unicode.Is(unicode.Nd, r) ||
		unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Pc, r) ||
		unicode.Is(unicode.Other_Alphabetic, r) || r == 0x200c || r == 0x200d
}

// isSpaceRune is Unicode White_Space, Rust's \s.
func isSpaceRune(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', 0x85, 0x2028, 0x2029:
		return true
	}
	return r > 0x7f && unicode.Is(unicode.Zs, r) || r == ' '
}
