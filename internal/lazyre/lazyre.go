// Package lazyre compiles a regular expression, or builds a word set, the
// first time it is used.
// Every memctl command starts the same binary, and summary and cite run
// on every agent turn: a package's expressions must cost nothing until
// that package does its work. It is a leaf: it imports only the standard
// library.
package lazyre

import (
	"regexp"
	"strings"
	"sync"
)

// New returns a function that compiles pattern on its first call and
// returns the same *regexp.Regexp on every call; it panics then, as
// regexp.MustCompile does, when pattern does not compile. Safe for
// concurrent use.
func New(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}

// Words returns a function that builds, on its first call, the set of the
// space-separated words of list, and returns the same set on every call.
func Words(list string) func() map[string]bool {
	return sync.OnceValue(func() map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.Fields(list) {
			m[w] = true
		}
		return m
	})
}
