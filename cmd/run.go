package cmd

import (
	"context"
	"errors"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/pipeline"
	"github.com/spf13/cobra"
)

// RunOptions is what `memctl run` needs: injected loaders first, then the
// flag values (those of extract and consolidate).
type RunOptions struct {
	IO     *IOStreams
	Config func() (*config.Config, error)
	// Pipeline builds the Home that runs the stages.
	Pipeline func(*config.Config, pipeline.Reporter) (*pipeline.Home, error)
	// AgentOffer offers a logged-in agent CLI when auto found no API key;
	// nil offers nothing.
	AgentOffer func(ctx context.Context, opts *RunOptions, cfg *config.Config) error

	JSON        bool
	Extract     ExtractFlags
	Consolidate ConsolidateFlags
}

// runJSON is the --json document of run: the first generated version's
// stages, then every version's.
type runJSON struct {
	pipeline.Report
	Versions []pipeline.Report `json:"versions"`
}

func newRunCmd(f *Factory, runF func(context.Context, *RunOptions) error) *cobra.Command {
	opts := &RunOptions{IO: f.IO, Config: f.Config, Pipeline: f.Pipeline, AgentOffer: newAgentOffer(f).offer}
	c := &cobra.Command{
		Use:   "run",
		Short: "Run the whole pipeline: prune, rate-limit guard, extract, consolidate",
		Long: `Run every stage for each generated memory version (memories.version, or both
with memories.dual_write), in Codex's order: prepare the memory folder, prune
(it costs no tokens), check the rate-limit guard, extract, consolidate. A stage
that is skipped (guard, lock held, cooldown) is reported, not an error; the
consolidation still runs when extraction found nothing, so notes and forgotten
threads reach the memory folder.

Safe to run from cron every few minutes while agents call summary and cite.
Accepts the flags of extract and consolidate.

With provider.kind = auto and no API key, run looks for a Claude Code or Codex
that is logged in and offers it, once, with what this run would send it; it
spends nothing without a yes (--yes, or y at the prompt on a terminal), and a
yes is written into the config as provider.kind (docs/providers.md).

EXIT STATUS
  0  every stage succeeded or was skipped
  1  a stage failed
  3  some extraction jobs failed (recorded and retried later)`,
		Args: cobra.NoArgs,
		Example: `  $ memctl run
  $ memctl run --provider heuristic --all --json
  */15 * * * * memctl run --quiet   # crontab`,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.JSON = f.JSON
			if err := opts.Extract.check(); err != nil {
				return err
			}
			return runOrHook(c.Context(), opts, runF, runRun)
		},
	}
	opts.Extract.bind(c)
	c.Flags().Lookup("yes").Usage = "say yes without asking: on a first run with a model provider, extract every past session; with provider.kind = auto and no API key, take the offered Claude Code or Codex"
	opts.Consolidate.bind(c, false)
	_ = c.RegisterFlagCompletionFunc("thread", completeThreadIDs(f))
	_ = c.RegisterFlagCompletionFunc("current-thread", completeThreadIDs(f))
	return c
}

func runRun(ctx context.Context, opts *RunOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	if err := opts.Extract.apply(cfg); err != nil {
		return err
	}
	if err := opts.Consolidate.apply(cfg); err != nil {
		return err
	}
	if opts.AgentOffer != nil {
		if err := opts.AgentOffer(ctx, opts, cfg); err != nil {
			return err
		}
	}
	home, rep, err := sessionReadingHome(opts.IO, opts.JSON, cfg, opts.Pipeline)
	if err != nil {
		return err
	}
	rep.run = true // show each version's prune and extraction as it ends
	runs, stageErr := home.Run(ctx, pipeline.RunRequest{Extract: opts.Extract.request(),
		Consolidate: pipeline.ConsolidateRequest{Force: opts.Consolidate.Force, Describe: !opts.JSON}})
	stageErr = extractError(stageErr)
	reports := runs.Reports
	if len(reports) == 0 {
		return stageErr // the plan was refused: nothing ran
	}
	if opts.JSON {
		if err := printJSON(opts.IO.Out, runJSON{Report: reports[0], Versions: reports}); err != nil {
			return err
		}
	}
	// A source that could not be read is an error (exit 1), though the
	// pipeline ran on the others; every version scans the same sources.
	if reports[0].Scan != nil {
		stageErr = errors.Join(stageErr, sourcesError(*reports[0].Scan, cfg))
	}
	if stageErr != nil {
		return stageErr
	}
	if runs.FailedJobs > 0 {
		return &PartialError{Failed: runs.FailedJobs, Total: runs.Claimed}
	}
	return nil
}
