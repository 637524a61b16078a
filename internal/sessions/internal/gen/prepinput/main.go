// Command prepinput prints sessions.PrepareInput for one transcript, for
// timing against jq:
//
//	go build -o /tmp/prepinput ./internal/sessions/internal/gen/prepinput
//	/usr/bin/time -v /tmp/prepinput -kind codex -v v1 big.jsonl > /dev/null
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/memctl/memctl/internal/sessions"
)

func main() {
	kind := flag.String("kind", "codex", "transcript kind: codex, claude-code, jsonl")
	version := flag.String("v", "v1", "memory version: v1 or v2")
	limit := flag.Int("limit", 0, "token limit (0 = 150000)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: prepinput [-kind K] [-v v1|v2] [-limit N] FILE")
		os.Exit(2)
	}
	f := sessions.File{Kind: sessions.Kind(*kind), Path: flag.Arg(0)}
	s, err := sessions.PrepareInput(f, sessions.InputOptions{Version: *version, TokenLimit: *limit})
	if err != nil {
		fmt.Fprintln(os.Stderr, "prepinput:", err)
		os.Exit(1)
	}
	fmt.Print(s)
}
