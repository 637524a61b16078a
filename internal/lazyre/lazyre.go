// Package lazyre compiles a regular expression the first time it is used.
// Every memctl command starts the same binary, and summary and cite run
// on every agent turn: a package's expressions must cost nothing until
// that package does its work. It is a leaf: it imports only the standard
// library.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles pattern on its first call and
// returns the same *regexp.Regexp on every call; it panics then, as
// regexp.MustCompile does, when pattern does not compile. Safe for
// concurrent use.
func New(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
