package consolidate

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles an expression on first use, so that commands which
// never consolidate (summary and cite run on every agent turn) do not pay
// for compiling it at start-up.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
