package redact

import "fmt"

// Finding says which rule would redact a text, and where.
type Finding struct {
	// Rule is the built-in rule's name (see Rules), or
	// "extra_patterns[N]" for a pattern of the config.
	Rule string
	// Line is the 1-based line where the first redaction starts.
	Line int
}

// Find reports the first secret r would redact in s, for callers that
// must refuse a text whole rather than redact it (a team memory that is
// committed to a repository): ok is false when s is clean. It costs one
// redaction of s when s is clean, which is the common case, and one per
// rule otherwise.
func (r *Redactor) Find(s string) (f Finding, ok bool) {
	red := r.String(s)
	if red == s {
		return Finding{}, false
	}
	f.Line = lineOfFirstDifference(s, red)
	for _, ru := range r.rules {
		one := build([]*rule{ru}, r.escapes)
		if one.String(s) != s {
			f.Rule = ru.name
			return f, true
		}
	}
	for i, re := range r.extras {
		if re.MatchString(s) {
			f.Rule = fmt.Sprintf("extra_patterns[%d]", i)
			return f, true
		}
	}
	f.Rule = "redaction" // rules that only fire together; the text is refused all the same
	return f, true
}

func lineOfFirstDifference(a, b string) int {
	line := 1
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			break
		}
		if a[i] == '\n' {
			line++
		}
	}
	return line
}
