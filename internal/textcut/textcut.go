// Package textcut is the one place memctl cuts text to a budget. Every cut
// falls on a UTF-8 boundary and says that it happened:
//
//   - Middle and MiddleTokens keep the head and the tail and put
//     "…K chars truncated…" or "…K tokens truncated…" between them, Codex's
//     two flavours of truncation (codex-memories.md 8.2), for text a model
//     or an agent reads whole: transcripts, raw memories, the summary.
//   - Line, LineRunes, Head and Words keep the beginning and end with an
//     ellipsis, for one-line previews, table cells, bullets and error
//     excerpts.
//
// Tokens are estimated, never counted: memctl, like Codex, runs no
// tokenizer, and a token is BytesPerToken bytes.
package textcut

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// BytesPerToken is the fixed ratio behind every token estimate.
const BytesPerToken = 4

// ApproxTokens estimates the token count of s as ceil(bytes/4).
func ApproxTokens(s string) int {
	return (len(s) + BytesPerToken - 1) / BytesPerToken
}

// Middle keeps s when it fits in maxBytes; otherwise it keeps the longest
// head of at most maxBytes/2 bytes and the tail that starts at or after
// byte len(s)-(maxBytes-maxBytes/2), with "…K chars truncated…" between
// them, K being the number of characters removed. A negative budget acts as
// zero: only the marker remains. An empty s stays empty.
func Middle(s string, maxBytes int) string {
	if s == "" || len(s) <= maxBytes {
		return s
	}
	maxBytes = max(maxBytes, 0)
	pre, suf := split(s, maxBytes)
	removed := utf8.RuneCountInString(s[pre:suf])
	return s[:pre] + "…" + strconv.Itoa(removed) + " chars truncated…" + s[suf:]
}

// MiddleTokens cuts s to about maxTokens tokens the way Middle cuts bytes,
// with a budget of maxTokens·4 bytes and "…K tokens truncated…" between
// head and tail, where K = ceil((len(s) − budget)/4): it counts from the
// overflow, not from what the split really drops, as Codex does. An empty
// s stays empty; with maxTokens <= 0 only the marker remains, with
// K = ceil(len(s)/4).
func MiddleTokens(s string, maxTokens int) string {
	if s == "" {
		return ""
	}
	if maxTokens <= 0 {
		return TokenMarker(len(s))
	}
	budget := maxTokens * BytesPerToken
	if len(s) <= budget {
		return s
	}
	pre, suf := split(s, budget)
	return s[:pre] + TokenMarker(len(s)-budget) + s[suf:]
}

// TokenMarker is the marker MiddleTokens puts where excessBytes bytes were
// cut: "…K tokens truncated…" with K = ceil(excessBytes/4). Streaming
// writers that keep the head and tail themselves use it to write the same
// text.
func TokenMarker(excessBytes int) string {
	return "…" + strconv.Itoa((excessBytes+BytesPerToken-1)/BytesPerToken) + " tokens truncated…"
}

// split returns where the head of a budget-byte middle cut ends and where
// its tail starts: the head is at most budget/2 bytes, the tail starts at
// or after len(s)-(budget-budget/2), and the tail never starts before the
// head ends.
func split(s string, budget int) (pre, suf int) {
	left := budget / 2
	pre = PrefixEnd(s, left)
	suf = max(SuffixStart(s, len(s)-(budget-left)), pre)
	return pre, suf
}

// PrefixEnd returns the largest i <= n at which s can be cut without
// splitting a valid multi-byte character. Stray bytes of invalid UTF-8 count
// as one byte each, so invalid input is still cut as late as possible.
func PrefixEnd(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	if n <= 0 {
		return 0
	}
	for p := n - 1; p >= 0 && p >= n-(utf8.UTFMax-1); p-- {
		if utf8.RuneStart(s[p]) {
			r, size := utf8.DecodeRuneInString(s[p:])
			if (r != utf8.RuneError || size > 1) && p+size > n {
				return p
			}
			break
		}
	}
	return n
}

// SuffixStart returns the smallest i >= n at which a tail of s can start:
// the first byte at or after n that is not a continuation byte.
func SuffixStart(s string, n int) int {
	if n <= 0 {
		return 0
	}
	for n < len(s) && !utf8.RuneStart(s[n]) {
		n++
	}
	return min(n, len(s))
}

// redactedMarker is what the redactor leaves in place of a secret; a cut
// never splits it, so a reader still sees that a secret was there.
const redactedMarker = "[REDACTED_SECRET]"

// Line folds s to one line (every run of white space becomes one space)
// and cuts it to at most maxBytes bytes, ending in "…" when cut.
func Line(s string, maxBytes int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= maxBytes {
		return s
	}
	return endCut(s, PrefixEnd(s, max(maxBytes-len("…"), 0)))
}

// LineRunes is Line with the limit counted in characters, not bytes: for
// table cells and previews on a terminal.
func LineRunes(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut := 0
	for range n - 1 {
		_, size := utf8.DecodeRuneInString(s[cut:])
		cut += size
	}
	return endCut(s, cut)
}

// endCut keeps s[:cut], moved back so no redaction marker is split and
// without trailing spaces, and appends "…".
func endCut(s string, cut int) string {
	if i := strings.LastIndex(s[:cut], "["); i >= 0 && strings.HasPrefix(s[i:], redactedMarker) && i+len(redactedMarker) > cut {
		cut = i
	}
	return strings.TrimRight(s[:cut], " ") + "…"
}

// Head cuts s to at most n bytes and appends "…" when it cut (the result
// may so exceed n by the ellipsis): for excerpts quoted in error messages.
func Head(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:PrefixEnd(s, max(n, 0))] + "…"
}

// Words cuts s to at most n bytes ending in "...", at the last space when
// that keeps more than half, without trailing punctuation: for bullets in
// rendered memory files.
func Words(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := PrefixEnd(s, max(n-len("..."), 0))
	if sp := strings.LastIndexByte(s[:cut], ' '); sp > n/2 {
		cut = sp
	}
	return strings.TrimRight(s[:cut], " ,;:") + "..."
}

// Sentences splits s into its sentences, each folded to one line: a
// sentence ends at ".", "!" or "?" followed by white space and a word
// that does not start in lower case, and at a line break, so "hello.py",
// "v1.2", "e.g. this" and "go test ./... passes" stay whole, as does code
// between backquotes ("`go test ./... -run X`"). Empty ones are left out.
func Sentences(s string) []string {
	var out []string
	add := func(seg string) {
		if seg = strings.Join(strings.Fields(seg), " "); seg != "" {
			out = append(out, seg)
		}
	}
	start, code := 0, false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '`':
			code = !code
		case '\n':
			add(s[start:i])
			start, code = i+1, false
		case '.', '!', '?':
			if next := strings.TrimLeft(s[i+1:], " \t"); !code && i+1 < len(s) && (s[i+1] == ' ' || s[i+1] == '\n' || s[i+1] == '\t') &&
				(next == "" || next[0] < 'a' || next[0] > 'z') {
				add(s[start : i+1])
				start = i + 1
			}
		}
	}
	add(s[start:])
	return out
}

// WholeSentences shortens s to at most n bytes by dropping whole
// sentences from its end, never by cutting one: it keeps the first
// sentence, whatever its length, and the ones after it while they fit.
// For bullets whose words are quoted (the user's, the agent's answer),
// where a cut sentence would say something else.
func WholeSentences(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	var b strings.Builder
	for i, sen := range Sentences(s) {
		if i > 0 && b.Len()+1+len(sen) > n {
			break
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(sen)
	}
	return b.String()
}
