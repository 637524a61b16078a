package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/memctl/memctl/pkg/config"
	"github.com/memctl/memctl/pkg/scan"
	"github.com/memctl/memctl/pkg/sessions"
	"github.com/memctl/memctl/pkg/store"
	"github.com/spf13/cobra"
)

// ScanOptions is what `memctl scan` needs: injected loaders first, then
// the flag values.
type ScanOptions struct {
	IO        *IOStreams
	Config    func() (*config.Config, error)
	OpenStore func(ctx context.Context, version string) (*store.Store, error)
	Now       func() time.Time
	// Sources lists the transcript sources to scan.
	Sources func(cfg *config.Config) []sessions.Source

	JSON bool
}

func newScanCmd(f *Factory, runF func(context.Context, *ScanOptions) error) *cobra.Command {
	opts := &ScanOptions{IO: f.IO, Config: f.Config, OpenStore: f.OpenStore, Now: f.Now, Sources: f.Sources}
	return &cobra.Command{
		Use:   "scan",
		Short: "Index the configured transcript sources into threads",
		Long: `Index every configured transcript source ([[sources]] in the config, or Codex's
and Claude Code's default folders) as threads. Incremental: a file whose size and
modification time did not change is not opened, and one whose content did not
change is not read again.

A broken line, invalid UTF-8, a huge line or a file that is not a transcript is
reported and skipped; the thread is indexed from what is readable and the scan
goes on (exit 0).`,
		Args: cobra.NoArgs,
		Example: `  $ memctl scan
  $ memctl scan --json | jq .errors`,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.JSON = f.JSON
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runScan(c.Context(), opts)
		},
	}
}

func runScan(ctx context.Context, opts *ScanOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	var total scan.Result
	for i, v := range cfg.Versions() {
		st, err := opts.OpenStore(ctx, v)
		if err != nil {
			return err
		}
		res, err := scanStore(ctx, opts.IO, opts.Now, opts.Sources(cfg), cfg, st)
		st.Close()
		if err != nil {
			return err
		}
		if i == 0 {
			total = res
		}
	}
	if opts.JSON {
		return printJSON(opts.IO.Out, total)
	}
	for _, e := range total.Errors {
		loc := e.Path
		if e.Line > 0 {
			loc = fmt.Sprintf("%s:%d", e.Path, e.Line)
		}
		opts.IO.Warnf("%s: %s", loc, e.Error)
	}
	opts.IO.Infof("scanned %d transcripts: %d added, %d updated, %d unchanged, %d problems",
		total.Scanned, total.Added, total.Updated, total.Unchanged, len(total.Errors))
	return nil
}
