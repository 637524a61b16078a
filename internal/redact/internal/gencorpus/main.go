// Command gencorpus writes a transcript-like benchmark corpus with planted fake secrets.
//
//	go run ./internal/redact/internal/gencorpus -size 60000000 -o /tmp/corpus.txt
//
// Real lines come from -real (JSONL files, default the package testdata), code lines
// from -code (Go sources, default the redact package itself).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/memctl/memctl/internal/redact/internal/corpus"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("gencorpus", flag.ContinueOnError)
	size := fs.Int("size", 60_000_000, "approximate output size in bytes")
	seed := fs.Uint64("seed", 1, "random seed")
	out := fs.String("o", "", "output file (required)")
	realGlob := fs.String("real", "internal/redact/testdata/*.jsonl", "glob of real transcript files")
	codeGlob := fs.String("code", "internal/redact/*.go", "glob of source files")
	secrets := fs.String("secrets", "", "if set, write the planted secrets here, one per line")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("-o is required")
	}
	real, err := readLines(*realGlob)
	if err != nil {
		return err
	}
	code, err := readLines(*codeGlob)
	if err != nil {
		return err
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	planted, err := corpus.Generate(f, corpus.Options{Size: *size, Seed: *seed, Real: real, Code: code})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if *secrets != "" {
		sf, err := os.Create(*secrets)
		if err != nil {
			return err
		}
		for _, p := range planted {
			fmt.Fprintln(sf, p.Secret)
		}
		if err := sf.Close(); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "gencorpus: wrote %s with %d planted secrets\n", *out, len(planted))
	return nil
}

func readLines(glob string) ([][]byte, error) {
	files, err := filepath.Glob(glob)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no files match %q", glob)
	}
	var lines [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		lines = append(lines, corpus.SplitLines(b)...)
	}
	return lines, nil
}
