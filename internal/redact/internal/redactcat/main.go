// Command redactcat copies stdin to stdout through the default redactor. It is the
// benchmark driver for scripts/bench-redact.sh; the user-facing command is memctl redact.
//
// With -codex it applies only Codex's four patterns (reading all input at once).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/memctl/memctl/internal/redact"
)

func main() {
	codex := flag.Bool("codex", false, "apply only Codex's four patterns")
	flag.Parse()
	if err := run(os.Stdout, os.Stdin, *codex); err != nil {
		fmt.Fprintln(os.Stderr, "redactcat:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, r io.Reader, codex bool) error {
	if !codex {
		return redact.Default().Copy(w, r)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, redact.Codex(string(b)))
	return err
}
