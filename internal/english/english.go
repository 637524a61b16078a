// Package english writes counts the way a sentence needs them: "1 raw
// memory", "3 raw memories", "0 threads". Messages built with a fixed
// plural ("1 raw memories") read as a bug to the person at the terminal.
package english

import (
	"strconv"
	"strings"
)

// Count writes n followed by one when n is 1 and by many otherwise.
func Count(n int, one, many string) string {
	return strconv.Itoa(n) + " " + Noun(n, one, many)
}

// Noun picks one when n is 1 and many otherwise, for sentences where the
// number is written apart from its noun.
func Noun(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// List joins items as a sentence does: "a", "a and b", "a, b and c".
func List(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
