package redact

import (
	"bytes"
	"math"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/radix"
)

// The scanner is the prefilter: one pass over the text that finds every anchor literal of
// every rule, so a rule's regular expression only runs where it can possibly match. It
// keys a 64 Ki table of bytes on each pair of adjacent bytes; pairs that key no anchor (nearly
// all of them) cost one table load. An anchor is keyed on the first of its pairs that
// is not among the commonest pairs of transcript text (see commonPairs), so "secret"
// is looked for where "cr" occurs rather than at every "se". Case-insensitive anchors
// are entered under every ASCII case variant of their key pair and then compared with
// an ASCII fold.

// exoticBit marks lines containing U+212A KELVIN SIGN or U+017F LONG S (see rule.exotic).
const exoticBit = 63

// hit is one anchor occurrence.
type hit struct {
	pos int   // byte offset of the anchor's first byte
	a   int32 // index into scanner.anchors
}

type anchor struct {
	lit    []byte // lower-cased when fold
	key    int    // offset in lit of the pair the table is keyed on
	fold   bool
	before boundary
	bit    uint64 // 1 << rule index (or exoticBit)
	rule   int    // rule index, -1 for the exotic marker
}

type scanner struct {
	tab     []uint8 // bigram -> group index + 1 (the built-in anchors make about 100 groups)
	groups  [][]int32
	anchors []anchor
}

// builtinScanner is newScanner(builtinRules()), compiled into the program
// (scanner_builtin.go, written by TestBuiltinScannerIsGenerated): no
// process builds or writes its 64 KB table, and only the pages a text's
// byte pairs look up are read.
func builtinScanner() *scanner {
	return &scanner{tab: builtinScanTab[:], groups: builtinScanGroups, anchors: builtinScanAnchors}
}

//go:generate env MEMCTL_UPDATE=1 go test -run ^TestBuiltinScannerIsGenerated$ .

func newScanner(rules []*rule) *scanner {
	n, size := 2, 0 // the exotic markers
	for _, r := range rules {
		n += len(r.anchors)
		for _, lit := range r.anchors {
			size += len(lit)
		}
	}
	// A byte per pair keeps the table at 64 KB, half the pages a first
	// build touches; summary builds it on every agent turn.
	s := &scanner{tab: make([]uint8, 1<<16), anchors: make([]anchor, 0, n)}
	// Each anchor is entered under every case variant of its key pair. The
	// entries are gathered first and the groups cut from one array after,
	// so building the table allocates a few slices, not hundreds: summary
	// builds it on every agent turn.
	type entry struct {
		key uint16
		idx int32
		pos int32 // the entry's place in entries
	}
	entries := make([]entry, 0, 4*n)
	add := func(a anchor) {
		idx := int32(len(s.anchors))
		a.key = keyOffset(a.lit)
		s.anchors = append(s.anchors, a)
		for _, b0 := range caseVariants(a.lit[a.key], a.fold) {
			for _, b1 := range caseVariants(a.lit[a.key+1], a.fold) {
				entries = append(entries, entry{uint16(b0)<<8 | uint16(b1), idx, int32(len(entries))})
			}
		}
	}
	// The literals share one array: some 150 of them, copied once.
	lits := make([]byte, 0, size)
	for i, r := range rules {
		for _, lit := range r.anchors {
			at := len(lits)
			lits = append(lits, lit...)
			b := lits[at:len(lits):len(lits)]
			if r.fold {
				for j, c := range b {
					b[j] = lowerASCII(c)
				}
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
	// Groups are numbered in the order their key first occurs, and hold
	// their anchors in the order they were added. The table itself is only
	// written: reading a fresh page before its first write costs a second
	// fault and a flush of every CPU's TLB, which was most of the build.
	// So the entries are grouped by a stable radix sort on their key, not
	// by looking keys up in a map.
	sorted := radix.SortStable(entries, func(e entry) uint16 { return e.key })
	// runAt[p] is 1 + the start in sorted of the key whose first entry was
	// entries[p], so the keys are met in the order they first occur.
	runAt := make([]int32, len(sorted))
	keys := 0
	for k := range sorted {
		if k == 0 || sorted[k].key != sorted[k-1].key {
			runAt[sorted[k].pos] = int32(k) + 1
			keys++
		}
	}
	if keys > math.MaxUint8 {
		panic("redact: more anchor groups than the scanner's table holds")
	}
	s.groups = make([][]int32, 0, keys)
	all := make([]int32, 0, len(sorted))
	for _, k := range runAt {
		if k == 0 {
			continue
		}
		key, from := sorted[k-1].key, len(all)
		for _, e := range sorted[k-1:] {
			if e.key != key {
				break
			}
			all = append(all, e.idx)
		}
		s.groups = append(s.groups, all[from:len(all):len(all)])
		s.tab[key] = uint8(len(s.groups))
	}
	return s
}

// commonPairs are the commonest pairs of bytes in transcript text, case folded,
// space and line breaks left out: the 100 commonest of the benchmark corpus (real
// session lines and Go source), measured once. A pair among them would send the
// scanner to verify its anchors at nearly every word.
const commonPairs = `\n co on in en te de es re \" er nt st ": se ns ti od or ", at al le ut pe s/ ts \t an ` +
	`io ," ro n\ it to th me ex ss ge :" ng ta nd nc em pr ed fi as pl ll ar he ke ou et ec ri ag ca pa ` +
	`ct t\ li ma mi tr il ie un ea \\ gi ur ok om lo ac id mp`

// keyOffset picks the pair of lit the table is keyed on: the first that is not
// common, or the first pair when every one is.
func keyOffset(lit []byte) int {
	common := commonPairSet()
	for i := 0; i+1 < len(lit); i++ {
		p := uint16(lowerASCII(lit[i]))<<8 | uint16(lowerASCII(lit[i+1]))
		if common[p/64]&(1<<(p%64)) == 0 {
			return i
		}
	}
	return 0
}

// commonPairSet holds commonPairs as a bit set of byte pairs: building the scanner
// asks it about every pair of every anchor.
var commonPairSet = sync.OnceValue(func() *[1 << 16 / 64]uint64 {
	var set [1 << 16 / 64]uint64
	for j := 0; j+1 < len(commonPairs); j += 3 {
		p := uint16(commonPairs[j])<<8 | uint16(commonPairs[j+1])
		set[p/64] |= 1 << (p % 64)
	}
	return &set
})

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func caseVariants(c byte, fold bool) []byte {
	if fold && 'a' <= c && c <= 'z' {
		return []byte{c, c - 'a' + 'A'}
	}
	return []byte{c}
}

// scan appends every anchor hit in b, in position order, to hits.
func (s *scanner) scan(b []byte, hits []hit) []hit {
	if len(b) < 2 {
		return hits
	}
	from := len(hits)
	tab := s.tab[:1<<16]
	x := uint16(b[0])
	for i := 1; i < len(b); i++ {
		x = x<<8 | uint16(b[i])
		if g := tab[x]; g != 0 {
			hits = s.verify(b, i-1, g-1, hits, from)
		}
	}
	return hits
}

// verify appends the anchors of group g whose key pair starts at k in b.
// An anchor keyed past its first byte is found after hits that start
// later, so it is moved back into position order (hits before from are
// another scan's).
func (s *scanner) verify(b []byte, k int, g uint8, hits []hit, from int) []hit {
	for _, ai := range s.groups[g] {
		a := &s.anchors[ai]
		n := len(a.lit)
		p := k - a.key
		if p < 0 || len(b)-p < n {
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
		for j := len(hits) - 1; j > from && hits[j-1].pos > p; j-- {
			hits[j-1], hits[j] = hits[j], hits[j-1]
		}
	}
	return hits
}

// roughBefore is the cheap, conservative form of boundaryOK: it may accept a position
// the exact check later rejects, never the reverse. It lets every escape sequence
// through (see escapedBefore), whether or not the redactor reads them.
func roughBefore(k boundary, b []byte, p int) bool {
	if p == 0 {
		return k != queryBefore
	}
	switch k {
	case wordBefore:
		return !isASCIIWord(b[p-1]) || mayEndEscape(b, p)
	case alnumBefore:
		return !isASCIIAlnum(b[p-1]) || p < len(b) && !isASCIIAlnum(b[p]) || mayEndEscape(b, p)
	case identBefore:
		return !isASCIIAlnum(b[p-1]) || p < len(b) && !isASCIIAlnum(b[p]) || camelHump(b, p) || mayEndEscape(b, p)
	case queryBefore:
		return b[p-1] == '?' || b[p-1] == '&' || b[p-1] == '6' || b[p-1] == ';'
	}
	return true
}

// boundaryOK is the exact check of a rule's "before" condition at p. With esc, an
// escape sequence ending at p counts as the character it stands for (see
// escapedBefore); without, the text is read as it is, as Codex reads it.
func boundaryOK(k boundary, b []byte, p int, esc bool) bool {
	if p == 0 {
		return k != queryBefore
	}
	switch k {
	case wordBefore:
		if r, _ := utf8.DecodeLastRune(b[:p]); !isWordRune(r) {
			return true
		}
		if esc {
			if r, ok := escapedBefore(b, p); ok {
				return !isWordRune(r)
			}
		}
		return false
	case alnumBefore, identBefore:
		// An anchor that starts with punctuation ("_pwd") carries its own boundary.
		if !isASCIIAlnum(b[p-1]) || p < len(b) && !isASCIIAlnum(b[p]) || k == identBefore && camelHump(b, p) {
			return true
		}
		if esc {
			if r, ok := escapedBefore(b, p); ok {
				return r >= utf8.RuneSelf || !isASCIIAlnum(byte(r))
			}
		}
		return false
	case queryBefore:
		c := rune(b[p-1])
		if esc {
			if r, ok := escapedBefore(b, p); ok {
				c = r
			}
		}
		return c == '?' || c == '&'
	}
	return true
}

// The boundary before a secret is often not a character but an escape for one. A
// transcript is JSON, so a tool output's line breaks and tabs arrive as \n and \t
// (\\n when the JSON sits inside another JSON string, as tool-call arguments do) and
// '&', '<', '>' as \u0026, \u003c, \u003e; a URL writes a line break as %0A; captured
// terminal output puts colour codes (ESC [ 32 m) right before a value. Read as text,
// each ends in a letter or a digit and glues itself to the secret, so a rule that
// wants a word boundary there would miss every secret that starts a line of tool
// output.

// escapedBefore returns the character that an escape sequence ending just before p
// stands for: a backslash escape of a control character (\n, \t, \r, \f, \b, \v,
// however many backslashes precede it), a \uXXXX or \xXX escape, a URL's %XX, an
// ANSI CSI sequence such as ESC[0m (raw or escaped; it stands for ESC) or the HTML
// entity &amp;.
func escapedBefore(b []byte, p int) (rune, bool) {
	if p >= 2 && b[p-2] == '\\' {
		switch b[p-1] {
		case 'n':
			return '\n', true
		case 't':
			return '\t', true
		case 'r':
			return '\r', true
		case 'f':
			return '\f', true
		case 'b':
			return '\b', true
		case 'v':
			return '\v', true
		}
	}
	if p >= 6 && b[p-6] == '\\' && b[p-5] == 'u' {
		if v, ok := hexValue(b[p-4 : p]); ok {
			return rune(v), true
		}
	}
	if p >= 4 && b[p-4] == '\\' && b[p-3] == 'x' {
		if v, ok := hexValue(b[p-2 : p]); ok {
			return rune(v), true
		}
	}
	if p >= 3 && b[p-3] == '%' {
		if v, ok := hexValue(b[p-2 : p]); ok {
			return rune(v), true
		}
	}
	if p >= 5 && string(b[p-5:p]) == "&amp;" {
		return '&', true
	}
	if csiEndsAt(b, p) {
		return 0x1b, true
	}
	return 0, false
}

// mayEndEscape is the scanner's quick test for escapedBefore: true for every p
// where an escape could end, and for few others.
func mayEndEscape(b []byte, p int) bool {
	c := b[p-1]
	switch {
	case p >= 2 && b[p-2] == '\\':
		return true
	case isHexDigit(c) && (p >= 6 && b[p-6] == '\\' || p >= 4 && b[p-4] == '\\' || p >= 3 && b[p-3] == '%'):
		return true
	}
	return isASCIILetter(c) && csiEndsAt(b, p)
}

// csiEndsAt reports whether an ANSI control sequence (ESC '[' parameters, a final
// letter) ends just before p. ESC may be the raw byte or written as \u001b, \x1b,
// \033 or \e.
func csiEndsAt(b []byte, p int) bool {
	if !isASCIILetter(b[p-1]) {
		return false
	}
	i := p - 2
	for i >= 0 && p-i < 24 && ('0' <= b[i] && b[i] <= '9' || b[i] == ';' || b[i] == '?') {
		i--
	}
	if i < 0 || b[i] != '[' {
		return false
	}
	esc := b[:i]
	if len(esc) > 0 && esc[len(esc)-1] == 0x1b {
		return true
	}
	for _, form := range []string{`\u001b`, `\u001B`, `\x1b`, `\x1B`, `\033`, `\e`} {
		if bytes.HasSuffix(esc, []byte(form)) {
			return true
		}
	}
	return false
}

func hexValue(h []byte) (uint32, bool) {
	var v uint32
	for _, c := range h {
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		v = v<<4 | uint32(d)
	}
	return v, true
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// camelHump reports whether p starts a word of a camelCase name: an
// upper-case letter after a lower-case letter or a digit.
func camelHump(b []byte, p int) bool {
	if p == 0 || p >= len(b) || b[p] < 'A' || b[p] > 'Z' {
		return false
	}
	c := b[p-1]
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
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
