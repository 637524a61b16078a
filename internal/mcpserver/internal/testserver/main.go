// Command testserver serves the memory tools over stdio for the folder
// named by its only argument. It exists so tests can drive a real binary
// with external MCP clients such as the official inspector.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/memctl/memctl/internal/mcpserver"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: testserver MEMORY_DIR")
		os.Exit(2)
	}
	opts := mcpserver.Options{Root: os.Args[1], Version: "test"}
	if err := mcpserver.Serve(context.Background(), opts, mcpserver.Stdio(os.Stdin, os.Stdout)); err != nil {
		fmt.Fprintln(os.Stderr, "testserver:", err)
		os.Exit(1)
	}
}
