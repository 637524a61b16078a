package inject

import (
	"strconv"
	"unicode/utf8"
)

// bytesPerToken is the fixed ratio behind every token estimate: memctl, like
// Codex, never runs a tokenizer on the hot path.
const bytesPerToken = 4

// ApproxTokens estimates the token count of s as ceil(bytes/4).
func ApproxTokens(s string) int {
	return (len(s) + bytesPerToken - 1) / bytesPerToken
}

// TruncateTokens cuts s to about maxTokens tokens (4 bytes each) by keeping
// its head and its tail and putting "…K tokens truncated…" in between, where
// K = ceil((len(s) − 4·maxTokens)/4). Cuts fall on UTF-8 boundaries. An
// empty s stays empty; with maxTokens <= 0 only the marker remains, with
// K = ceil(len(s)/4). The bool reports whether anything was cut.
func TruncateTokens(s string, maxTokens int) (string, bool) {
	if s == "" {
		return "", false
	}
	if maxTokens <= 0 {
		return tokenMarker(ApproxTokens(s)), true
	}
	budget := maxTokens * bytesPerToken
	if len(s) <= budget {
		return s, false
	}
	// K counts from the overflow, not from what the split really drops:
	// that is the reference behaviour and tests pin it.
	removed := (len(s) - budget + bytesPerToken - 1) / bytesPerToken
	prefix, suffix := split(s, budget)
	return prefix + tokenMarker(removed) + suffix, true
}

// TruncateBytes cuts s to about maxBytes bytes with the same head/tail
// split as TruncateTokens, marking the gap with "…K chars truncated…" where
// K is the number of characters actually removed. The bool reports whether
// anything was cut.
func TruncateBytes(s string, maxBytes int) (string, bool) {
	if s == "" {
		return "", false
	}
	if maxBytes <= 0 {
		return charMarker(utf8.RuneCountInString(s)), true
	}
	if len(s) <= maxBytes {
		return s, false
	}
	prefix, suffix := split(s, maxBytes)
	removed := utf8.RuneCountInString(s[len(prefix) : len(s)-len(suffix)])
	return prefix + charMarker(removed) + suffix, true
}

// split returns the longest char-aligned prefix of at most budget/2 bytes
// and the shortest char-aligned suffix that starts at or after
// len(s) − (budget − budget/2), never overlapping the prefix.
func split(s string, budget int) (prefix, suffix string) {
	left := budget / 2
	right := budget - left
	end := min(left, len(s))
	for end > 0 && end < len(s) && !utf8.RuneStart(s[end]) {
		end--
	}
	start := len(s) - right
	if start < end {
		start = end
	}
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return s[:end], s[start:]
}

func tokenMarker(k int) string { return "…" + strconv.Itoa(k) + " tokens truncated…" }

func charMarker(k int) string { return "…" + strconv.Itoa(k) + " chars truncated…" }
