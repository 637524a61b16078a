package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"
)

// A tiny non-recursive JSON scanner. The readers use it to find the few
// top-level fields they dispatch on without decoding (and allocating) a
// whole line: most bytes of a transcript are tool output that only needs
// to be skipped or copied. Nesting depth is a counter, so a line of
// 100,000 '[' costs no stack.

var ErrBadJSON = errors.New("malformed JSON")

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index just past the string starting at b[i]=='"'.
func skipString(b []byte, i int) (int, error) {
	i++
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return 0, ErrBadJSON
		}
		end := i + j
		k := end - 1
		for k >= i && b[k] == '\\' {
			k--
		}
		if (end-1-k)%2 == 0 {
			return end + 1, nil
		}
		i = end + 1
	}
}

// skipValue returns the index just past the JSON value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	i = skipSpace(b, i)
	if i >= len(b) {
		return 0, ErrBadJSON
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				var err error
				if i, err = skipString(b, i); err != nil {
					return 0, err
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
			i++
		}
		return 0, ErrBadJSON
	default:
		j := i
		for j < len(b) {
			c := b[j]
			if c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				break
			}
			j++
		}
		if j == i {
			return 0, ErrBadJSON
		}
		return j, nil
	}
}

// eachField calls fn for every key/value of the JSON object b (raw value
// bytes). fn returns false to stop early.
func EachField(b []byte, fn func(key string, val []byte) bool) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return ErrBadJSON
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return ErrBadJSON
		}
		ke, err := skipString(b, i)
		if err != nil {
			return err
		}
		key := RawString(b[i:ke])
		i = skipSpace(b, ke)
		if i >= len(b) || b[i] != ':' {
			return ErrBadJSON
		}
		vs := skipSpace(b, i+1)
		ve, err := skipValue(b, vs)
		if err != nil {
			return err
		}
		if !fn(key, b[vs:ve]) {
			return nil
		}
		i = skipSpace(b, ve)
		if i >= len(b) {
			return ErrBadJSON
		}
		if b[i] == '}' {
			return nil
		}
		if b[i] != ',' {
			return ErrBadJSON
		}
		i = skipSpace(b, i+1)
	}
}

// eachElem calls fn for every element of the JSON array b.
func EachElem(b []byte, fn func(val []byte) bool) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return ErrBadJSON
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return nil
	}
	for {
		ve, err := skipValue(b, i)
		if err != nil {
			return err
		}
		if !fn(b[i:ve]) {
			return nil
		}
		i = skipSpace(b, ve)
		if i >= len(b) {
			return ErrBadJSON
		}
		if b[i] == ']' {
			return nil
		}
		if b[i] != ',' {
			return ErrBadJSON
		}
		i = skipSpace(b, i+1)
	}
}

// field returns the raw value of key in object b, nil when absent.
func Field(b []byte, key string) []byte {
	var out []byte
	_ = EachField(b, func(k string, v []byte) bool {
		if k == key {
			out = v
			return false
		}
		return true
	})
	return out
}

// rawString decodes a raw JSON string value; non-strings give "".
func RawString(v []byte) string {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return ""
	}
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return string(bytes.ToValidUTF8(inner, []byte("\uFFFD")))
	}
	return s
}

// fieldString is rawString(field(b, key)).
func FieldString(b []byte, key string) string { return RawString(Field(b, key)) }

// rawInt decodes a JSON integer; ok is false for anything else.
func RawInt(v []byte) (int, bool) {
	n, err := strconv.Atoi(string(v))
	if err != nil {
		if f, ferr := strconv.ParseFloat(string(v), 64); ferr == nil && f == float64(int(f)) {
			return int(f), true
		}
		return 0, false
	}
	return n, true
}

// isNull reports a missing or JSON-null value.
func IsNull(v []byte) bool { return len(v) == 0 || string(v) == "null" }
