package cmd

import (
	"context"
	"fmt"

	"github.com/memctl/memctl/pkg/config"
	"github.com/memctl/memctl/pkg/prune"
	"github.com/spf13/cobra"
)

type pruneOptions struct {
	maxUnusedDays int
	dryRun        bool
}

func newPruneCmd(f *Factory) *cobra.Command {
	opts := &pruneOptions{}
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
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.Config()
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("max-unused-days") {
				if err := cfg.Set("memories.max_unused_days", opts.maxUnusedDays, config.FromFlag); err != nil {
					return &FlagError{Err: err}
				}
			}
			res, err := runPruneAll(cmd.Context(), f, cfg, opts.dryRun)
			if err != nil {
				return err
			}
			if f.JSON {
				return printJSON(f.IO.Out, res)
			}
			verb := "pruned"
			if opts.dryRun {
				verb = "would prune"
			}
			for _, id := range res.ThreadIDs {
				fmt.Fprintln(f.IO.Out, id)
			}
			f.infof("%s %d raw memories", verb, res.Pruned)
			return nil
		},
	}
	c.Flags().IntVar(&opts.maxUnusedDays, "max-unused-days", 30, "retention window in days (overrides memories.max_unused_days)")
	c.Flags().BoolVar(&opts.dryRun, "dry-run", false, "list what would be pruned, delete nothing")
	return c
}

func runPruneAll(ctx context.Context, f *Factory, cfg *config.Config, dryRun bool) (prune.Result, error) {
	total := prune.Result{ThreadIDs: []string{}, DryRun: dryRun}
	for _, v := range cfg.Versions() {
		res, err := runPrune(ctx, f, cfg, v, dryRun)
		if err != nil {
			return total, err
		}
		total.Pruned += res.Pruned
		total.ThreadIDs = append(total.ThreadIDs, res.ThreadIDs...)
	}
	return total, nil
}

func runPrune(ctx context.Context, f *Factory, cfg *config.Config, version string, dryRun bool) (prune.Result, error) {
	st, err := f.OpenStore(ctx, version)
	if err != nil {
		return prune.Result{}, err
	}
	defer st.Close()
	started := f.Now()
	res, err := prune.Run(ctx, st, cfg.Memories.MaxUnusedDays, dryRun)
	if err != nil {
		return res, fmt.Errorf("prune %s: %w", version, err)
	}
	if !dryRun {
		recordStage(ctx, st, "prune", started, f.Now(), "ok", fmt.Sprintf("pruned %d", res.Pruned))
	}
	return res, nil
}
