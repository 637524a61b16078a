// Command gencodex writes a large Codex rollout built from a real one:
//
//	go run ./internal/sessions/internal/gen/gencodex -size 150 -o /tmp/big/rollout-…jsonl
//
// The output feeds BenchmarkPrepareInputLarge-style measurements and the
// comparison with `jq -c 'select(.type=="response_item")'`.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/memctl/memctl/internal/sessions/internal/gen"
)

func main() {
	src := flag.String("src", "internal/sessions/testdata/real/codex/sessions/2026/05/11/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl", "real rollout to repeat")
	out := flag.String("o", "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl", "output file")
	sizeMB := flag.Int64("size", 150, "target size in MB")
	flag.Parse()
	if err := run(*src, *out, *sizeMB<<20); err != nil {
		fmt.Fprintln(os.Stderr, "gencodex:", err)
		os.Exit(1)
	}
}

func run(src, out string, size int64) error {
	fixture, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	n, err := gen.WriteCodex(f, fixture, size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		fmt.Fprintf(os.Stderr, "gencodex: wrote %d bytes to %s\n", n, out)
	}
	return err
}
