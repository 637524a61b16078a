package redact

import (
	"bytes"
	"unicode/utf8"
)

// The engine works line by line so that huge inputs stream in bounded memory. A line is
// processed in three steps:
//
//  1. waiting: a line holding an opening <private> tag waits for the line with the
//     closing tag, and a line ending in Codex's assignment keyword and separator
//     ("password:") waits for the next line, because Codex's \s* reaches across the
//     newline. The waiting lines are then processed as one unit. Waiting is bounded
//     (maxJoinBytes, maxJoinLines); an opening tag never closed stays as text.
//  2. structure: closed <private> spans are replaced, and private key blocks spread
//     over lines are removed through a small state machine that needs no buffering;
//  3. rules, in order, each on the output of the previous one.
//
// Lines without any anchor hit and outside any state are copied through untouched,
// which is what makes the redactor fast on ordinary text.

const (
	maxJoinLines = 64
	maxJoinBytes = 256 << 10
)

type engine struct {
	r       *Redactor
	out     []byte
	hits    []hit
	uhits   []hit
	changed bool

	inPEM  bool
	owedNL bool // the newline of a BEGIN line, owed if the block turns out not to be one

	join      []byte
	joinN     int
	waitClose bool // the waiting unit holds an unclosed <private> tag
}

func (e *engine) busy() bool { return e.inPEM || len(e.join) > 0 }

// block processes b, which holds whole lines (only the last may lack its newline).
func (e *engine) block(b []byte) {
	hits := e.r.sc.scan(b, e.hits[:0])
	e.hits = hits
	pos, h := 0, 0
	for pos < len(b) {
		if !e.busy() {
			if h == len(hits) {
				e.out = append(e.out, b[pos:]...)
				return
			}
			ls := pos + bytes.LastIndexByte(b[pos:hits[h].pos], '\n') + 1
			e.out = append(e.out, b[pos:ls]...)
			pos = ls
		}
		le := bytes.IndexByte(b[pos:], '\n')
		if le < 0 {
			le = len(b)
		} else {
			le += pos + 1
		}
		h2 := h
		for h2 < len(hits) && hits[h2].pos < le {
			hits[h2].pos -= pos
			h2++
		}
		e.line(b[pos:le], hits[h:h2])
		pos, h = le, h2
	}
}

// line handles one line with its hits (relative to the line).
func (e *engine) line(l []byte, hits []hit) {
	if len(e.join) > 0 {
		e.join = append(e.join, l...)
		e.joinN++
		// Waiting for a closing tag: only a line that holds one can end the wait, so
		// skip re-examining the whole unit (which would be quadratic in its length).
		if e.waitClose && len(e.join) < maxJoinBytes &&
			(maskOf(e.r.sc, hits)&e.r.privMask == 0 || indexTagStart(l, true) < 0) {
			return
		}
		if !e.process(e.join, nil, false, e.joinN) {
			e.join, e.joinN = e.join[:0], 0
		}
		return
	}
	if e.process(l, hits, true, 1) {
		e.join = append(e.join[:0], l...)
		e.joinN = 1
	}
}

// finish flushes state at the end of the input.
func (e *engine) finish() {
	if len(e.join) > 0 {
		e.process(e.join, nil, false, 0)
		e.join, e.joinN = e.join[:0], 0
	}
	if e.inPEM && e.owedNL {
		e.out = append(e.out, '\n')
	}
	e.inPEM, e.owedNL = false, false
}

// process redacts unit u (lines lines long) and appends the result to e.out. It
// returns true, doing nothing, when u must wait for more lines: it ends in an open
// assignment, or holds a <private> tag whose closing tag has not come yet. lines == 0
// means no more lines will come.
func (e *engine) process(u []byte, hits []hit, known bool, lines int) bool {
	r := e.r
	if !known {
		hits = r.sc.scan(u, e.uhits[:0])
		e.uhits = hits
	}
	mask := maskOf(r.sc, hits)
	more := lines > 0 && len(u) < maxJoinBytes
	e.waitClose = false
	if more && mask&r.privMask != 0 && !e.inPEM && unclosedPrivate(u) {
		e.waitClose = true
		return true
	}
	if e.inPEM || mask&r.structMask != 0 {
		nu, changed := e.structure(u, mask)
		if changed {
			e.changed = true
			if len(nu) == 0 {
				return false
			}
			u = nu
			hits = r.sc.scan(u, nil)
			mask = maskOf(r.sc, hits)
			more = false
		}
	}
	if more && lines < maxJoinLines && mask&(r.assignMask|1<<exoticBit) != 0 && openAssignment(u, r.escapes) {
		return true
	}
	u = r.applyRules(u, hits, mask, &e.changed)
	e.out = append(e.out, u...)
	return false
}

// unclosedPrivate reports whether the last opening <private> tag in u has no closing tag
// after it.
func unclosedPrivate(u []byte) bool {
	o, n := lastIndexTag(u, false)
	if o < 0 {
		return false
	}
	return indexTagStart(u[o+n:], true) < 0
}

func maskOf(s *scanner, hits []hit) uint64 {
	var m uint64
	for _, h := range hits {
		m |= s.anchors[h.a].bit
	}
	return m
}

// structure replaces closed <private> spans and private key blocks in u and updates
// the PEM state. An opening tag without a closing tag stays as text: by the time
// structure runs, the engine has already waited (up to maxJoinBytes) for the close.
// It returns the remaining text and whether anything changed.
func (e *engine) structure(u []byte, mask uint64) ([]byte, bool) {
	r := e.r
	var out []byte
	changed := false
	i := 0
	for {
		if e.inPEM {
			if i == len(u) {
				return out, true
			}
			le := lineEnd(u, i)
			if m := pemEndRe().FindIndex(u[i:le]); m != nil {
				i += m[1]
				e.inPEM, e.owedNL = false, false
				changed = true
				continue
			}
			if isPEMBody(u[i:le]) {
				i = le
				continue
			}
			// Not key material after all: the block was cut short. Give back the newline.
			e.inPEM = false
			if e.owedNL {
				out = append(out, '\n')
				e.owedNL = false
			}
			changed = true
			continue
		}
		o, on, cn := -1, 0, 0
		if mask&r.privMask != 0 {
			o, on = indexTag(u[i:], false)
			if o >= 0 {
				var c int
				c, cn = indexTag(u[i+o+on:], true)
				if c < 0 {
					o = -1
				} else {
					cn += c
				}
			}
		}
		p, pend := -1, -1
		if mask&r.pemMask != 0 {
			p, pend = openPEM(u[i:])
		}
		switch {
		case o >= 0 && (p < 0 || o < p):
			out = append(out, u[i:i+o]...)
			out = append(out, Token...)
			i += o + on + cn
			changed = true
		case p >= 0:
			out = append(out, u[i:i+p]...)
			out = append(out, Token...)
			le := lineEnd(u, i+pend)
			e.inPEM = true
			e.owedNL = le > 0 && u[le-1] == '\n'
			i = le
			changed = true
		default:
			if !changed {
				return u, false
			}
			return append(out, u[i:]...), true
		}
	}
}

// openPEM finds the first BEGIN armour line whose key material continues on the next
// lines: no END marker after it on its line, and nothing but key material up to the
// newline. It returns the marker's start and end.
func openPEM(u []byte) (start, end int) {
	for _, m := range pemBeginRe().FindAllIndex(u, -1) {
		rest := u[m[1]:lineEnd(u, m[1])]
		if !pemEndRe().Match(rest) && isPEMBody(rest) {
			return m[0], m[1]
		}
	}
	return -1, -1
}

// lineEnd returns the index just past the newline ending the line that holds i, or len(u).
func lineEnd(u []byte, i int) int {
	if j := bytes.IndexByte(u[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(u)
}

// isPEMBody reports whether a line could be inside a private key block: base64, blank,
// or an RFC 1421/4880 header such as "Proc-Type: 4,ENCRYPTED" or "Version: GnuPG".
func isPEMBody(l []byte) bool {
	l = bytes.TrimSpace(l)
	body := true
	for _, c := range l {
		if !(isASCIIAlnum(c) || c == '+' || c == '/' || c == '=') {
			body = false
			break
		}
	}
	if body {
		return true
	}
	// Header: a token of letters, digits and '-', then ": ".
	colon := bytes.Index(l, []byte(": "))
	if colon <= 0 {
		return false
	}
	for _, c := range l[:colon] {
		if !(isASCIIAlnum(c) || c == '-') {
			return false
		}
	}
	return true
}

// openAssignment reports whether u ends in Codex's assignment keyword followed only by
// whitespace and at most one ':' or '=', so the value may come on the next line.
func openAssignment(u []byte, esc bool) bool {
	n := trimSpaceRight(u, len(u))
	if n > 0 && (u[n-1] == ':' || u[n-1] == '=') {
		n = trimSpaceRight(u, n-1)
	}
	// Every keyword ends in "ey", "en", "et" or "rd", letters (?i) folds
	// only to their ASCII cases; most lines fail here, before any regexp
	// is compiled or run.
	if n < 2 {
		return false
	}
	switch string([]byte{u[n-2] | 0x20, u[n-1] | 0x20}) {
	case "ey", "en", "et", "rd":
	default:
		return false
	}
	from := max(0, n-32)
	loc := assignKeyRe().FindIndex(u[from:n])
	if loc == nil {
		return false
	}
	return boundaryOK(wordBefore, u, from+loc[0], esc)
}

func trimSpaceRight(u []byte, n int) int {
	for n > 0 {
		r, w := utf8.DecodeLastRune(u[:n])
		if !isSpaceRune(r) {
			break
		}
		n -= w
	}
	return n
}

// applyRules runs every rule with a hit (or an exotic line) over u, in order.
func (r *Redactor) applyRules(u []byte, hits []hit, mask uint64, changed *bool) []byte {
	for ri, ru := range r.rules {
		if !ru.hasRegexp() {
			continue
		}
		bit := uint64(1) << uint(ri)
		exotic := ru.exotic && mask&(1<<exoticBit) != 0
		if mask&bit == 0 && !exotic {
			continue
		}
		var nu []byte
		var ok bool
		switch {
		case exotic:
			nu, ok = ru.scanAll(u, r.escapes)
		case ru.kind == kindLine:
			nu, ok = ru.scanLines(u, hits, ri, r.sc, r.escapes)
		default:
			nu, ok = ru.anchored(u, hits, ri, r.sc, r.escapes)
		}
		if ok {
			*changed = true
			u = nu
			hits = r.sc.scan(u, nil)
			mask = maskOf(r.sc, hits)
		}
	}
	return u
}

// anchored tries the rule at each of its hits, left to right. Every match starts at an
// anchor, so this finds the same matches as a left-to-right scan of the whole line.
func (ru *rule) anchored(u []byte, hits []hit, ri int, sc *scanner, esc bool) ([]byte, bool) {
	var out []byte
	last, prev, n := 0, -1, 0
	for _, h := range hits {
		if sc.anchors[h.a].rule != ri || h.pos < last || h.pos == prev {
			continue
		}
		prev = h.pos
		if !boundaryOK(ru.before, u, h.pos, esc) || ru.assignment && !assignmentAhead(u, h.pos) {
			continue
		}
		loc := ru.are().FindSubmatchIndex(u[h.pos:])
		if loc == nil {
			continue
		}
		for k := range loc {
			if loc[k] >= 0 {
				loc[k] += h.pos
			}
		}
		if ru.wordAfter && !wordEndOK(u, loc[1]) || ru.settle != nil && !ru.settle(u, loc, esc) {
			continue
		}
		repl, ok := ru.replacement(u, loc)
		if !ok {
			continue
		}
		out = append(out, u[last:loc[0]]...)
		out = append(out, repl...)
		last = loc[1]
		n++
	}
	if n == 0 {
		return u, false
	}
	return append(out, u[last:]...), true
}

// scanLines runs scanAll on each physical line of u that holds one of the rule's
// anchors, so a context word in one line of a joined unit does not cost a scan of all.
func (ru *rule) scanLines(u []byte, hits []hit, ri int, sc *scanner, esc bool) ([]byte, bool) {
	var out []byte
	last, n := 0, 0
	for _, h := range hits {
		if sc.anchors[h.a].rule != ri || h.pos < last {
			continue
		}
		ls := bytes.LastIndexByte(u[:h.pos], '\n') + 1
		le := bytes.IndexByte(u[h.pos:], '\n')
		if le < 0 {
			le = len(u)
		} else {
			le += h.pos + 1
		}
		if ru.need != "" && !containsFoldASCII(u[ls:le], ru.need) {
			out = append(out, u[last:le]...)
			last = le
			continue
		}
		if nl, ok := ru.scanAll(u[ls:le], esc); ok {
			out = append(out, u[last:ls]...)
			out = append(out, nl...)
			n++
		} else {
			out = append(out, u[last:le]...)
		}
		last = le
	}
	if n == 0 {
		return u, false
	}
	return append(out, u[last:]...), true
}

// scanAll replaces every match of the rule in u, searching left to right like a
// regexp ReplaceAll but with the Unicode boundary checks done in code (esc: see
// boundaryOK).
func (ru *rule) scanAll(u []byte, esc bool) ([]byte, bool) {
	var out []byte
	last, pos, n := 0, 0, 0
	for pos <= len(u) {
		loc := ru.re().FindSubmatchIndex(u[pos:])
		if loc == nil {
			break
		}
		for k := range loc {
			if loc[k] >= 0 {
				loc[k] += pos
			}
		}
		var repl []byte
		ok := boundaryOK(ru.before, u, loc[0], esc) && (!ru.wordAfter || wordEndOK(u, loc[1])) &&
			(ru.settle == nil || ru.settle(u, loc, esc))
		if ok {
			repl, ok = ru.replacement(u, loc)
		}
		if !ok || loc[1] == loc[0] {
			_, w := utf8.DecodeRune(u[loc[0]:])
			pos = loc[0] + max(w, 1)
			continue
		}
		out = append(out, u[last:loc[0]]...)
		out = append(out, repl...)
		last, pos = loc[1], loc[1]
		n++
	}
	if n == 0 {
		return u, false
	}
	return append(out, u[last:]...), true
}

// replacement builds the text that replaces match loc, or reports false when the
// matched value is a placeholder that should stay.
func (ru *rule) replacement(u []byte, loc []int) ([]byte, bool) {
	if ru.tmpl != "" {
		return ru.re().Expand(nil, []byte(ru.tmpl), u, loc), true
	}
	s, e := loc[2*ru.group], loc[2*ru.group+1]
	if s < 0 {
		s, e = loc[0], loc[1]
	}
	if ru.keepPlaceholders && isPlaceholder(u[s:e]) {
		return nil, false
	}
	out := make([]byte, 0, (s-loc[0])+len(Token)+(loc[1]-e))
	out = append(out, u[loc[0]:s]...)
	out = append(out, Token...)
	return append(out, u[e:loc[1]]...), true
}

// containsFoldASCII reports whether b contains lit (lower-case ASCII letters),
// ignoring ASCII case.
func containsFoldASCII(b []byte, lit string) bool { return indexWordFold(b, lit) >= 0 }
