//go:build !unix

package plainfile

import "os"

// Open is os.Open where there is no poller to leave out.
func Open(name string) (*os.File, error) { return os.Open(name) }
