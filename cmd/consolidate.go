package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/consolidate"
	"github.com/memctl/memctl/internal/english"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/pipeline"
	"github.com/spf13/cobra"
)

// ConsolidateFlags are the flags of consolidate; run accepts all but
// --dry-run (its own --dry-run covers every stage).
type ConsolidateFlags struct {
	// Mode overrides consolidation.mode; "" when not given.
	Mode   string
	Force  bool
	DryRun bool
}

func (o *ConsolidateFlags) bind(c *cobra.Command, withDryRun bool) {
	stringEnumFlag(c, c.Flags(), &o.Mode, "mode", "", config.ConsolidationModes, "consolidator (overrides consolidation.mode)")
	c.Flags().BoolVar(&o.Force, "force", false, "ignore the six-hour cooldown after a success (never a running lease or a failure backoff)")
	if withDryRun {
		c.Flags().BoolVar(&o.DryRun, "dry-run", false, "show the changes and the planned diff of every artifact, write nothing")
	}
}

func (o *ConsolidateFlags) apply(cfg *config.Config) error {
	if o.Mode != "" {
		if err := cfg.Set("consolidation.mode", o.Mode, config.FromFlag); err != nil {
			return &FlagError{Err: fmt.Errorf("--mode: %w", err)}
		}
	}
	return nil
}

// ConsolidateOptions is what `memctl consolidate` needs: injected loaders
// first, then the flag values.
type ConsolidateOptions struct {
	IO     *IOStreams
	Config func() (*config.Config, error)
	// Pipeline builds the Home that runs the stages.
	Pipeline func(*config.Config, pipeline.Reporter) (*pipeline.Home, error)

	JSON bool
	ConsolidateFlags
}

// consolidateDualJSON is the --json document under memories.dual_write:
// the first version's status and selection, then every version's result.
type consolidateDualJSON struct {
	Status   consolidate.Status   `json:"status"`
	Selected int                  `json:"selected"`
	Versions []consolidate.Result `json:"versions"`
}

func newConsolidateCmd(f *Factory, runF func(context.Context, *ConsolidateOptions) error) *cobra.Command {
	opts := &ConsolidateOptions{IO: f.IO, Config: f.Config, Pipeline: f.Pipeline}
	c := &cobra.Command{
		Use:   "consolidate",
		Short: "Phase 2: merge the best raw memories into the memory folder",
		Long: `Take the global consolidation lock, select the top raw memories (by use, then
recency), write them into the memory folder (rollout_summaries/, raw_memories.md),
diff the folder against the last successful run, and let a consolidator rewrite
MEMORY.md, memory_summary.md and skills/. The result is validated; a failed or
invalid run leaves the previous files in place and backs off for an hour. An
interrupted run (Ctrl-C, SIGTERM; exit 130) leaves them too, and gives the lock
back without a backoff: the next run does the work.

Skips exit 0 and say why: another process holds the lock (skipped_running), the
last run succeeded less than six hours ago (skipped_cooldown), or the last run
failed less than an hour ago (skipped_retry_unavailable: the message names the
error and when the retry is due). --force ignores both and runs now; it never
takes a lock another process holds.
When nothing changed since the last run and the files are valid, it succeeds
without calling a consolidator. A pin, edit or forget of a memory since the
last run lets the next one through the cooldown (a forget also rebuilds the
files from the inputs), and so does a raw memory whose extraction overlapped
the last consolidation (another process extracted it meanwhile); a run that
finds such memories landed while it worked consolidates again, up to three
passes. A lock held by a memctl process that has exited is taken back at once.

Every run that changes the folder is recorded as a generation (memctl history,
memctl rollback). With consolidation.review = true it works on a copy and stops
at a pending generation (pending_review) that memctl approve lands and memctl
reject drops; until then runs skip (skipped_pending_review, even with --force),
and after a reject, runs on the same inputs skip too (skipped_rejected; --force
runs them).
--dry-run prints the changes and the planned diff of every artifact, computed by
the consolidator in a scratch copy (a model or an agent spends what a run
would); it writes nothing to the memory folder or the database. See
docs/history.md.

Consolidators (consolidation.mode): heuristic (offline, deterministic), model
(structured calls to the configured provider), agent (consolidation.agent_command
run inside the memory folder; see docs/integrations.md), auto (model when a model
provider is configured, else heuristic).`,
		Args: cobra.NoArgs,
		Example: `  $ memctl consolidate
  $ memctl consolidate --mode heuristic --force
  $ memctl consolidate --dry-run --json`,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.JSON = f.JSON
			return runOrHook(c.Context(), opts, runF, runConsolidate)
		},
	}
	opts.bind(c, true)
	return c
}

func runConsolidate(ctx context.Context, opts *ConsolidateOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	if err := opts.apply(cfg); err != nil {
		return err
	}
	home, err := opts.Pipeline(cfg, newStageReporter(opts.IO, opts.JSON))
	if err != nil {
		return err
	}
	results, runErr := home.Consolidate(ctx, pipeline.ConsolidateRequest{Force: opts.Force, DryRun: opts.DryRun, Describe: !opts.JSON})
	if results == nil {
		return runErr // no result to report: config, store or interruption
	}
	if opts.JSON {
		var doc any = results[0]
		if len(results) > 1 {
			doc = consolidateDualJSON{Status: results[0].Status, Selected: results[0].Selected, Versions: results}
		}
		if err := printJSON(opts.IO.Out, doc); err != nil {
			return err
		}
	}
	return runErr
}

// printPlan shows a dry run: the workspace changes (status lines), then
// the planned diff of every artifact, on stdout; the count on stderr.
func printPlan(ios *IOStreams, version memversion.Version, res consolidate.Result) {
	for _, l := range res.ChangeLines {
		fmt.Fprintln(ios.Out, ios.Text(l))
	}
	for _, p := range res.Plan {
		fmt.Fprintln(ios.Out)
		fmt.Fprint(ios.Out, ios.Text(p.Diff)) // memory files hold a transcript's words
	}
	var names []string
	for _, p := range res.Plan {
		names = append(names, p.Path)
	}
	switch {
	case len(res.ChangeLines) == 0 && len(res.Plan) == 0:
		ios.Infof("%s: would consolidate %s; nothing changed, the memory files stay as they are", version, english.Count(res.Selected, "raw memory", "raw memories"))
	case len(res.Plan) == 0:
		ios.Infof("%s: would consolidate %s; the memory files would not change", version, english.Count(res.Selected, "raw memory", "raw memories"))
	default:
		ios.Infof("%s: would consolidate %s and change %s", version, english.Count(res.Selected, "raw memory", "raw memories"), strings.Join(names, ", "))
	}
}
