// Command gendocs writes memctl's CLI reference (Markdown) and man pages
// from the command tree. It lives outside the memctl binary so that the
// Markdown and man renderers are not linked into every memctl process.
//
//	go run ./internal/gendocs --markdown docs/cli --man docs/man
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/memctl/memctl/cmd"
	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// docsDate is fixed so regenerated man pages do not churn.
var docsDate = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func main() {
	md := flag.String("markdown", "", "write Markdown pages to `DIR`")
	man := flag.String("man", "", "write man pages to `DIR`")
	flag.Parse()
	if err := generate(cmd.NewRootForDocs(), *md, *man); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

// generate writes the Markdown reference and man pages of the command tree.
func generate(root *cobra.Command, mdDir, manDir string) error {
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		c.DisableAutoGenTag = true
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	if mdDir != "" {
		if err := os.MkdirAll(mdDir, 0o755); err != nil {
			return err
		}
		if err := doc.GenMarkdownTree(root, mdDir); err != nil {
			return err
		}
	}
	if manDir != "" {
		if err := os.MkdirAll(manDir, 0o755); err != nil {
			return err
		}
		hdr := &doc.GenManHeader{Title: "MEMCTL", Section: "1", Source: "memctl", Manual: "memctl manual", Date: &docsDate}
		if err := doc.GenManTree(root, hdr, manDir); err != nil {
			return err
		}
	}
	return nil
}
