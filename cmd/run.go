package cmd

import (
	"context"
	"errors"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/consolidate"
	"github.com/memctl/memctl/internal/english"
	"github.com/memctl/memctl/internal/extract"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/model"
	"github.com/memctl/memctl/internal/pipeline"
	"github.com/memctl/memctl/internal/prune"
	"github.com/memctl/memctl/internal/scan"
	"github.com/memctl/memctl/internal/store"
	"github.com/spf13/cobra"
)

// RunOptions is what `memctl run` needs: injected loaders first, then the
// flag values (those of extract and consolidate).
type RunOptions struct {
	IO        *IOStreams
	Config    func() (*config.Config, error)
	OpenStore func(ctx context.Context, version memversion.Version) (*store.Store, error)
	Now       func() time.Time
	StageLoaders
	// Home is the memctl home, created before any stage runs.
	Home func() (string, error)
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
	opts := &RunOptions{IO: f.IO, Config: f.Config, OpenStore: f.OpenStore, Now: f.Now, StageLoaders: f.stageLoaders(), Home: f.Home,
		AgentOffer: newAgentOffer(f).offer}
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
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runRun(c.Context(), opts)
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
	plan, err := resolvePlan(opts.StageLoaders, opts.IO, cfg, true, true)
	if err != nil {
		return err
	}
	opts.Extract.backlog = &backlogAnswer{} // one question for every version
	debugNoSources(opts.IO, opts.Sources(cfg))
	runs, stageErr := pipeline.RunVersions(ctx, cfg.Versions(), func(ctx context.Context, v memversion.Version, first bool) (pipeline.Report, error) {
		return runPipeline(ctx, opts, cfg, plan, v, first)
	})
	reports := runs.Reports
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

// resolvePlan resolves the redaction, the provider of Phase 1 (extract)
// and the consolidator of Phase 2 (consolidate) once for every version. A
// config that cannot work (a bad redaction pattern, a provider without key
// or model, agent mode without a command) is refused here, before any
// stage of any version prunes, claims a thread or takes the lock.
func resolvePlan(sl StageLoaders, ios *IOStreams, cfg *config.Config, extractPhase, consolidatePhase bool) (pipeline.Plan, error) {
	var plan pipeline.Plan
	var err error
	if plan.Redact, err = redactor(cfg); err != nil {
		return plan, err
	}
	if extractPhase {
		if plan.Extract, err = sl.Provider(cfg, model.PurposeExtract); err != nil {
			return plan, err
		}
	}
	if consolidatePhase {
		modelProvider := func() (pipeline.Provider, error) { return sl.Provider(cfg, model.PurposeConsolidate) }
		plan.Consolidator, plan.Consolidate, err = pipeline.Consolidator(cfg, cfg.Consolidation.Mode, sl.Getenv, modelProvider, ios.ErrOut)
	}
	return plan, err
}

// runPipeline runs the stages of one version (pipeline.RunVersion) and
// renders them as they end. The first version's pipeline reports the
// scan's problems (later ones scan the same sources).
func runPipeline(ctx context.Context, opts *RunOptions, cfg *config.Config, plan pipeline.Plan, version memversion.Version, first bool) (pipeline.Report, error) {
	rep := pipeline.Report{Version: version, Prepare: pipeline.StageStatus{Status: "ok"}}
	root, err := opts.MemoryRoot(version)
	if err != nil {
		return rep, err
	}
	home, err := opts.Home()
	if err != nil {
		return rep, err
	}
	if err := ensureHome(home); err != nil {
		return rep, err
	}
	dryRun := opts.Extract.DryRun
	eo := &ExtractOptions{IO: opts.IO, Config: opts.Config, OpenStore: opts.OpenStore, Now: opts.Now, StageLoaders: opts.StageLoaders,
		JSON: opts.JSON, ExtractFlags: opts.Extract, skipGuard: true}
	co := &ConsolidateOptions{IO: opts.IO, Config: opts.Config, OpenStore: opts.OpenStore, Now: opts.Now, StageLoaders: opts.StageLoaders,
		JSON: opts.JSON, ConsolidateFlags: opts.Consolidate}
	return pipeline.RunVersion(ctx, pipeline.VersionRun{
		Version: version, Root: root, TemplateDir: cfg.Templates.Dir, OpenStore: opts.OpenStore, Now: opts.Now, DryRun: dryRun,
		MaxUnusedDays: cfg.Memories.MaxUnusedDays, MinRateLimitPercent: cfg.Memories.MinRateLimitRemainingPercent, GuardKind: plan.Extract.Kind,
		Extract: func(ctx context.Context) (extract.RunResult, scan.Result, error) {
			return pipeline.ExtractVersion(ctx, opts.OpenStore, version, eo.scanStage(cfg, plan), eo.extractFunc(cfg, plan))
		},
		Consolidate: func(ctx context.Context) (consolidate.Result, error) {
			return consolidateVersion(ctx, co, cfg, plan, version)
		},
		Pruned: func(res prune.Result, err error) { reportPrune(opts.IO, version, res, err, dryRun) },
		Guarded: func(g extract.GuardResult) {
			opts.IO.Warnf("%s: rate-limit guard: %s; skipping extraction and consolidation", version, g.Reason)
		},
		Extracted: func(ex extract.RunResult, scanned scan.Result) {
			if !opts.JSON {
				reportExtracted(opts, cfg, ex, scanned, first)
			}
		},
	})
}

// reportPrune says what a version's prune did; an error is a warning, as
// Codex logs prune errors and goes on.
func reportPrune(ios *IOStreams, version memversion.Version, res prune.Result, err error, dryRun bool) {
	switch {
	case err != nil:
		ios.Warnf("%s: prune: %v", version, err)
	case res.Pruned > 0:
		verb := "pruned"
		if dryRun {
			verb = "would prune" // issue 17: a dry run said "pruned"
		}
		ios.Infof("%s: %s %s", version, verb, english.Count(res.Pruned, "raw memory", "raw memories"))
	}
}

// reportExtracted renders a version's extraction; the first version also
// shows the scan's problems (issue 17: run did not show those scan shows)
// and the hints about the sources.
func reportExtracted(opts *RunOptions, cfg *config.Config, ex extract.RunResult, scanned scan.Result, first bool) {
	if first {
		reportScan(opts.IO, scanned)
	}
	printExtract(opts.IO, ex)
	if first {
		hintUnreadDefaults(opts.IO, unreadDefaults(opts.UnreadDefaults, cfg), cfg)
		hintNothingFound(opts.IO, scanned, unreadDefaults(opts.MissingDefaults, cfg), cfg)
	}
}
