package cmd

import (
	"context"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/english"
	"github.com/memctl/memctl/internal/pipeline"
	"github.com/spf13/cobra"
)

// ScanOptions is what `memctl scan` needs: injected loaders first, then
// the flag values.
type ScanOptions struct {
	IO     *IOStreams
	Config func() (*config.Config, error)
	// Pipeline builds the Home that runs the stage.
	Pipeline func(*config.Config, pipeline.Reporter) (*pipeline.Home, error)

	JSON bool
}

func newScanCmd(f *Factory, runF func(context.Context, *ScanOptions) error) *cobra.Command {
	opts := &ScanOptions{IO: f.IO, Config: f.Config, Pipeline: f.Pipeline}
	return &cobra.Command{
		Use:   "scan",
		Short: "Index the configured transcript sources into threads",
		Long: `Index every configured transcript source as threads: the [[sources]] of the
config or, when it has none, Codex's and Claude Code's default folders that exist.
[[sources]] replaces the defaults; an entry with kind codex or claude-code and no
path reads that agent's default folder. Incremental: a file whose size and
modification time did not change is not opened, and one whose content did not
change is not read again.

A broken line, invalid UTF-8, a huge line, a file that is not a transcript or a
folder inside a source that cannot be listed is reported and skipped; the thread
is indexed from what is readable and the scan goes on (exit 0). A source folder that cannot be read (missing, not a folder, no
permission) is reported with its path and reason; the other sources are still
scanned, and scan exits 1.

EXIT STATUS
  0  every source was read (problems inside transcripts are warnings)
  1  a source folder could not be read`,
		Args: cobra.NoArgs,
		Example: `  $ memctl scan
  $ memctl scan --json | jq .errors`,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.JSON = f.JSON
			return runOrHook(c.Context(), opts, runF, runScan)
		},
	}
}

func runScan(ctx context.Context, opts *ScanOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	home, rep, err := sessionReadingHome(opts.IO, opts.JSON, cfg, opts.Pipeline)
	if err != nil {
		return err
	}
	total, err := home.Scan(ctx)
	if err != nil {
		return err
	}
	if opts.JSON {
		if err := printJSON(opts.IO.Out, total); err != nil {
			return err
		}
		return sourcesError(total, cfg)
	}
	reportScan(opts.IO, total)
	opts.IO.Infof("scanned %s: %d added, %d updated, %d unchanged, %s",
		english.Count(total.Scanned, "transcript", "transcripts"), total.Added, total.Updated, total.Unchanged, english.Count(len(total.Errors), "problem", "problems"))
	rep.hintSources(total)
	return sourcesError(total, cfg)
}
