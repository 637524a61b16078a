package consolidate

import "github.com/memctl/memctl/internal/lazyre"

// lazyRegexp compiles an expression on first use (lazyre.New).
var lazyRegexp = lazyre.New
