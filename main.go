// Command memctl gives coding agents a memory built from their past sessions.
package main

import (
	"os"

	"github.com/memctl/memctl/cmd"
)

func main() { os.Exit(cmd.Main()) }
