package cmd

import (
	"errors"

	"github.com/spf13/cobra"
)

func notYet(use, short string) *cobra.Command {
	return &cobra.Command{Use: use, Short: short, RunE: func(*cobra.Command, []string) error {
		return errors.New(use + " is not implemented yet")
	}}
}

func newExtractCmd(f *Factory) *cobra.Command     { return notYet("extract", "Phase 1") }
func newConsolidateCmd(f *Factory) *cobra.Command { return notYet("consolidate", "Phase 2") }
func newSummaryCmd(f *Factory) *cobra.Command     { return notYet("summary", "summary") }
func newCiteCmd(f *Factory) *cobra.Command        { return notYet("cite", "cite") }
func newRunCmd(f *Factory) *cobra.Command         { return notYet("run", "run") }
func newScanCmd(f *Factory) *cobra.Command        { return notYet("scan", "scan") }
func newThreadsCmd(f *Factory) *cobra.Command     { return notYet("threads", "threads") }
func newSearchCmd(f *Factory) *cobra.Command      { return notYet("search", "search") }
func newNoteCmd(f *Factory) *cobra.Command        { return notYet("note", "note") }
func newMCPCmd(f *Factory) *cobra.Command         { return notYet("mcp", "mcp") }
func newRedactCmd(f *Factory) *cobra.Command      { return notYet("redact", "redact") }
