package redact

import "bytes"

// <private> and </private> reach the redactor raw or JSON-escaped, and a transcript
// nests JSON: tool-call arguments are a JSON document in a JSON string, which Phase 1
// serialises once more, and a model request once again. Each level doubles the
// backslashes of an escape, so the tags are found by their name, "private", and then
// checked around it: '<' or a \u003c escape behind one or more backslashes before it,
// '>' or a \u003e escape behind as many backslashes after it, and for a closing tag a
// '/' (itself possibly escaped as \/) in between. That covers every depth in one
// check instead of one literal per depth.

// privateAnchors gate the structural step: every form of either tag contains one.
var privateAnchors = []string{"<private", "u003cprivate", "/private"}

// indexTag returns the start and length of the first opening tag in b (a closing tag
// when closing), or -1.
func indexTag(b []byte, closing bool) (int, int) {
	for off := 0; off < len(b); {
		i := indexWordFold(b[off:], "private")
		if i < 0 {
			return -1, 0
		}
		if s, e, ok := tagAt(b, off+i, closing); ok {
			return s, e - s
		}
		off += i + 1
	}
	return -1, 0
}

func indexTagStart(b []byte, closing bool) int {
	i, _ := indexTag(b, closing)
	return i
}

// lastIndexTag is indexTag for the last tag.
func lastIndexTag(b []byte, closing bool) (int, int) {
	best, n := -1, 0
	for off := 0; off < len(b); {
		i := indexWordFold(b[off:], "private")
		if i < 0 {
			break
		}
		if s, e, ok := tagAt(b, off+i, closing); ok {
			best, n = s, e-s
		}
		off += i + 1
	}
	return best, n
}

// tagAt reports whether the word "private" at p names a tag of the kind asked for,
// and where that tag starts and ends.
func tagAt(b []byte, p int, closing bool) (start, end int, ok bool) {
	q := p
	if closing {
		if q == 0 || b[q-1] != '/' {
			return 0, 0, false
		}
		q--
		for q > 0 && b[q-1] == '\\' {
			q--
		}
	}
	depth := 0 // backslashes before u003c; 0 for a raw '<'
	switch {
	case q > 0 && b[q-1] == '<':
		start = q - 1
	case q >= 5 && equalFoldASCII(b[q-5:q], []byte("u003c")):
		start = q - 5
		for start > 0 && b[start-1] == '\\' {
			start--
			depth++
		}
		if depth == 0 {
			return 0, 0, false
		}
	default:
		return 0, 0, false
	}
	e := p + len("private")
	if depth == 0 {
		if e < len(b) && b[e] == '>' {
			return start, e + 1, true
		}
		return 0, 0, false
	}
	j := e
	for j < len(b) && b[j] == '\\' {
		j++
	}
	if j-e != depth || len(b)-j < 5 || !equalFoldASCII(b[j:j+5], []byte("u003e")) {
		return 0, 0, false
	}
	return start, j + 5, true
}

// indexWordFold finds lit (lower-case ASCII letters) in b, ignoring ASCII case, in
// one pass: the next upper- and lower-case candidates for its first letter are each
// searched for only once they are used up.
func indexWordFold(b []byte, lit string) int {
	lo, up := lit[0], lit[0]-'a'+'A'
	next := func(from int, c byte) int {
		if j := bytes.IndexByte(b[from:], c); j >= 0 {
			return from + j
		}
		return len(b)
	}
	il, iu := next(0, lo), next(0, up)
	for {
		i := min(il, iu)
		if i+len(lit) > len(b) {
			return -1
		}
		if equalFoldASCII(b[i:i+len(lit)], []byte(lit)) {
			return i
		}
		if i == il {
			il = next(i+1, lo)
		} else {
			iu = next(i+1, up)
		}
	}
}
