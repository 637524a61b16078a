package cmd

import (
	"context"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/english"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/pipeline"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/store"
	"github.com/spf13/cobra"
)

// ScanOptions is what `memctl scan` needs: injected loaders first, then
// the flag values.
type ScanOptions struct {
	IO        *IOStreams
	Config    func() (*config.Config, error)
	OpenStore func(ctx context.Context, version memversion.Version) (*store.Store, error)
	Now       func() time.Time
	// Sources lists the transcript sources to scan.
	Sources func(cfg *config.Config) []sessions.Source
	// UnreadDefaults lists the agents' default folders [[sources]] leaves
	// unread (nil: none).
	UnreadDefaults func(cfg *config.Config) []sessions.Source
	// MissingDefaults lists the default folders that do not exist (nil:
	// none).
	MissingDefaults func(cfg *config.Config) []sessions.Source

	JSON bool
}

func newScanCmd(f *Factory, runF func(context.Context, *ScanOptions) error) *cobra.Command {
	opts := &ScanOptions{IO: f.IO, Config: f.Config, OpenStore: f.OpenStore, Now: f.Now, Sources: f.Sources, UnreadDefaults: f.UnreadDefaults, MissingDefaults: f.MissingDefaults}
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
	red, err := redactor(cfg)
	if err != nil {
		return err
	}
	srcs := opts.Sources(cfg)
	debugNoSources(opts.IO, srcs)
	total, err := pipeline.ScanVersions(ctx, opts.OpenStore, cfg.Versions(),
		pipeline.ScanStage{Sources: srcs, Config: cfg, Redact: red, Now: opts.Now, Progress: stageProgress(opts.IO, opts.JSON)})
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
	hintUnreadDefaults(opts.IO, unreadDefaults(opts.UnreadDefaults, cfg), cfg)
	hintNothingFound(opts.IO, total, unreadDefaults(opts.MissingDefaults, cfg), cfg)
	return sourcesError(total, cfg)
}

// unreadDefaults calls an optional UnreadDefaults loader.
func unreadDefaults(f func(*config.Config) []sessions.Source, cfg *config.Config) []sessions.Source {
	if f == nil {
		return nil
	}
	return f(cfg)
}
