package project

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// readIndex reads an index in the form memctl writes it (json.MarshalIndent
// of Index) without reflection: summary reads the index on every agent
// turn, and encoding/json's reflective decoding was the largest part of
// its work. It takes only what it can read exactly as json.Unmarshal would:
// the fields by their exact names, once each; strings without an escape,
// a control character or invalid UTF-8; integers without a fraction or an
// exponent; no null. Anything else, well-formed or not, returns ok false,
// and the caller decodes with encoding/json, which then gives the same
// index or the same error it always did.
func readIndex(b []byte) (ix Index, ok bool) {
	r := jsonReader{b: b}
	var seen fields
	ok = r.object(func(key string) bool {
		switch key {
		case "version":
			return seen.first(0) && r.int(&ix.Version)
		case "empty":
			return seen.first(1) && r.bool(&ix.Empty)
		case "projects":
			if !seen.first(2) {
				return false
			}
			// Room for every entry at once: an entry is large, and
			// growing the list copies them.
			ix.Projects = make([]IndexEntry, 0, bytes.Count(b, []byte(`"dir"`)))
			return r.array(func() bool {
				var e IndexEntry
				if !r.entry(&e) {
					return false
				}
				ix.Projects = append(ix.Projects, e)
				return true
			})
		}
		return false
	})
	r.space()
	return ix, ok && r.i == len(b)
}

// entry reads one project of the index.
func (r *jsonReader) entry(e *IndexEntry) bool {
	var seen fields
	return r.object(func(key string) bool {
		switch key {
		case "key":
			return seen.first(0) && r.string(&e.Key)
		case "name":
			return seen.first(1) && r.string(&e.Name)
		case "dir":
			return seen.first(2) && r.string(&e.Dir)
		case "latest":
			return seen.first(3) && r.string(&e.Latest)
		case "sessions":
			return seen.first(4) && r.int(&e.Sessions)
		case "roots":
			return seen.first(5) && r.strings(&e.Roots)
		case "files":
			return seen.first(6) && r.strings(&e.Files)
		}
		return false
	})
}

// fields are the fields of an object read so far, one bit each: a
// field given twice is left to encoding/json.
type fields uint8

// first reports whether field i is read for the first time, and marks it.
func (f *fields) first(i uint) bool {
	if *f&(1<<i) != 0 {
		return false
	}
	*f |= 1 << i
	return true
}

// jsonReader reads the plain subset of JSON readIndex takes.
type jsonReader struct {
	b []byte
	i int
}

func (r *jsonReader) space() {
	for r.i < len(r.b) && (r.b[r.i] == ' ' || r.b[r.i] == '\n' || r.b[r.i] == '\t' || r.b[r.i] == '\r') {
		r.i++
	}
}

// next skips white space and reports whether the next byte is c,
// consuming it if so.
func (r *jsonReader) next(c byte) bool {
	r.space()
	if r.i < len(r.b) && r.b[r.i] == c {
		r.i++
		return true
	}
	return false
}

// object reads {"key": value, …}, field reading each value.
func (r *jsonReader) object(field func(key string) bool) bool {
	if !r.next('{') {
		return false
	}
	if r.next('}') {
		return true
	}
	for {
		var key string
		if !r.string(&key) || !r.next(':') || !field(key) {
			return false
		}
		if r.next('}') {
			return true
		}
		if !r.next(',') {
			return false
		}
	}
}

// array reads [value, …], elem reading each value.
func (r *jsonReader) array(elem func() bool) bool {
	if !r.next('[') {
		return false
	}
	if r.next(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if r.next(']') {
			return true
		}
		if !r.next(',') {
			return false
		}
	}
}

func (r *jsonReader) strings(out *[]string) bool {
	*out = []string{}
	return r.array(func() bool {
		var s string
		if !r.string(&s) {
			return false
		}
		*out = append(*out, s)
		return true
	})
}

// string reads a string without escapes, control characters or invalid
// UTF-8 (which encoding/json would rewrite).
func (r *jsonReader) string(out *string) bool {
	if !r.next('"') {
		return false
	}
	start := r.i
	for r.i < len(r.b) {
		c := r.b[r.i]
		switch {
		case c == '"':
			s := r.b[start:r.i]
			r.i++
			if !utf8.Valid(s) {
				return false
			}
			*out = string(s)
			return true
		case c == '\\' || c < 0x20:
			return false
		}
		r.i++
	}
	return false
}

// int reads an integer as JSON writes one: an optional minus and digits,
// no leading zero.
func (r *jsonReader) int(out *int) bool {
	r.space()
	start := r.i
	if r.i < len(r.b) && r.b[r.i] == '-' {
		r.i++
	}
	digits := r.i
	for r.i < len(r.b) && '0' <= r.b[r.i] && r.b[r.i] <= '9' {
		r.i++
	}
	if r.i == digits || r.b[digits] == '0' && r.i-digits > 1 {
		return false
	}
	if r.i < len(r.b) && (r.b[r.i] == '.' || r.b[r.i] == 'e' || r.b[r.i] == 'E') {
		return false
	}
	n, err := strconv.ParseInt(string(r.b[start:r.i]), 10, strconv.IntSize)
	if err != nil {
		return false
	}
	*out = int(n)
	return true
}

func (r *jsonReader) bool(out *bool) bool {
	r.space()
	for _, lit := range []struct {
		text string
		v    bool
	}{{"true", true}, {"false", false}} {
		if len(r.b)-r.i >= len(lit.text) && string(r.b[r.i:r.i+len(lit.text)]) == lit.text {
			r.i += len(lit.text)
			*out = lit.v
			return true
		}
	}
	return false
}
