package cmd

import (
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// docsDate is fixed so regenerated man pages do not churn.
var docsDate = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func newGenDocsCmd(f *Factory) *cobra.Command {
	var manDir, mdDir string
	c := &cobra.Command{
		Use:    "gen-docs",
		Short:  "Generate the CLI reference (Markdown) and man pages",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return GenerateDocs(cmd.Root(), mdDir, manDir)
		},
	}
	c.Flags().StringVar(&manDir, "man", "", "write man pages to `DIR`")
	c.Flags().StringVar(&mdDir, "markdown", "", "write Markdown pages to `DIR`")
	return c
}

// GenerateDocs writes the Markdown reference and man pages of the command tree.
func GenerateDocs(root *cobra.Command, mdDir, manDir string) error {
	root.DisableAutoGenTag = true
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

// NewRootForDocs builds the command tree without running anything, for
// doc generation and the staleness test.
func NewRootForDocs() *cobra.Command {
	return newRootCmd(&Factory{IO: &IOStreams{}, Getenv: func(string) string { return "" }, Now: time.Now, UserHome: os.UserHomeDir})
}
