package cmd

import (
	"context"
	"fmt"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/english"
	"github.com/memctl/memctl/internal/pipeline"
	"github.com/spf13/cobra"
)

// PruneOptions is what `memctl prune` needs: injected loaders first, then
// the flag values.
type PruneOptions struct {
	IO     *IOStreams
	Config func() (*config.Config, error)
	// Pipeline builds the Home that runs the stage.
	Pipeline func(*config.Config, pipeline.Reporter) (*pipeline.Home, error)

	JSON bool
	// MaxUnusedDays overrides memories.max_unused_days; nil when not given.
	MaxUnusedDays *int
	DryRun        bool
}

func newPruneCmd(f *Factory, runF func(context.Context, *PruneOptions) error) *cobra.Command {
	opts := &PruneOptions{IO: f.IO, Config: f.Config, Pipeline: f.Pipeline}
	c := &cobra.Command{
		Use:   "prune",
		Short: "Delete raw memories nobody used for max_unused_days",
		Long: `Delete raw memories that the last consolidation did not select and that no
agent cited (or that were not updated) for max_unused_days, stalest first, at
most 200 per run. The extraction jobs are kept, so a pruned thread is extracted
again only when its transcript changes.`,
		Args: cobra.NoArgs,
		Example: `  $ memctl prune
  $ memctl prune --max-unused-days 14 --dry-run --json`,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.JSON = f.JSON
			if err := checkRange("max-unused-days", "memories.max_unused_days", opts.MaxUnusedDays); err != nil {
				return err
			}
			return runOrHook(c.Context(), opts, runF, runPrune)
		},
	}
	fl := c.Flags()
	optionalIntFlag(fl, &opts.MaxUnusedDays, "max-unused-days", "retention window in `days` (default: memories.max_unused_days, 30)")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "list what would be pruned, delete nothing")
	return c
}

func runPrune(ctx context.Context, opts *PruneOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	if opts.MaxUnusedDays != nil {
		if err := cfg.Set("memories.max_unused_days", *opts.MaxUnusedDays, config.FromFlag); err != nil {
			return &FlagError{Err: err}
		}
	}
	home, err := opts.Pipeline(cfg, newStageReporter(opts.IO, opts.JSON))
	if err != nil {
		return err
	}
	total, err := home.Prune(ctx, pipeline.PruneRequest{DryRun: opts.DryRun})
	if err != nil {
		return err
	}
	if opts.JSON {
		return printJSON(opts.IO.Out, total)
	}
	verb := "pruned"
	if opts.DryRun {
		verb = "would prune"
	}
	for _, id := range total.ThreadIDs {
		fmt.Fprintln(opts.IO.Out, id)
	}
	opts.IO.Infof("%s %s", verb, english.Count(total.Pruned, "raw memory", "raw memories"))
	return nil
}
