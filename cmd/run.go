package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/memctl/memctl/pkg/config"
	"github.com/memctl/memctl/pkg/consolidate"
	"github.com/memctl/memctl/pkg/extract"
	"github.com/memctl/memctl/pkg/model"
	"github.com/memctl/memctl/pkg/prune"
	"github.com/spf13/cobra"
)

// runReport is the --json shape of one version's pipeline.
type runReport struct {
	Version     string              `json:"version"`
	Prepare     map[string]string   `json:"prepare"`
	Prune       prune.Result        `json:"prune"`
	Guard       extract.GuardResult `json:"guard"`
	Extract     *extract.RunResult  `json:"extract"`
	Consolidate *consolidate.Result `json:"consolidate"`
}

func newRunCmd(f *Factory) *cobra.Command {
	eo := &extractOptions{}
	co := &consolidateOptions{}
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

EXIT STATUS
  0  every stage succeeded or was skipped
  1  a stage failed
  3  some extraction jobs failed (recorded and retried later)`,
		Args: cobra.NoArgs,
		Example: `  $ memctl run
  $ memctl run --provider heuristic --all --json
  */15 * * * * memctl run --quiet   # crontab`,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.Config()
			if err != nil {
				return err
			}
			if err := eo.apply(cmd, cfg); err != nil {
				return err
			}
			if err := co.apply(cmd, cfg); err != nil {
				return err
			}
			if cfg.Consolidation.Mode == "agent" && len(cfg.Consolidation.AgentCommand) == 0 {
				// Refuse before any stage runs, not after extraction.
				return &config.Error{Key: "consolidation.agent_command", Err: fmt.Errorf("mode \"agent\" needs agent_command")}
			}
			eo.skipGuard = true
			var reports []runReport
			failedJobs, claimed := 0, 0
			var stageErr error
			for _, v := range cfg.Versions() {
				rep, err := runPipeline(cmd.Context(), f, cfg, v, eo, co)
				reports = append(reports, rep)
				if rep.Extract != nil {
					failedJobs += rep.Extract.Failed
					claimed += rep.Extract.Claimed
				}
				if err != nil {
					// Each version is its own pipeline, as in Codex: a
					// failure of one does not stop the other.
					stageErr = errors.Join(stageErr, err)
				}
			}
			if f.JSON {
				out := map[string]any{}
				if len(reports) > 0 {
					r := reports[0]
					out["version"], out["prepare"], out["prune"], out["guard"], out["extract"], out["consolidate"] = r.Version, r.Prepare, r.Prune, r.Guard, r.Extract, r.Consolidate
				}
				out["versions"] = reports
				if err := printJSON(f.IO.Out, out); err != nil {
					return err
				}
			}
			if stageErr != nil {
				return stageErr
			}
			if failedJobs > 0 {
				partial := &PartialError{Failed: failedJobs, Total: claimed}
				if f.JSON {
					return &silentError{code: ExitPartial, msg: partial.Error()}
				}
				return partial
			}
			return nil
		},
	}
	eo.bind(c)
	co.bind(c, "run")
	return c
}

// runPipeline runs the stages of one version in Codex's order.
func runPipeline(ctx context.Context, f *Factory, cfg *config.Config, version string, eo *extractOptions, co *consolidateOptions) (runReport, error) {
	rep := runReport{Version: version, Prepare: map[string]string{"status": "ok"}}
	root, err := f.MemoryRoot(version)
	if err != nil {
		return rep, err
	}
	// Refuse a config that cannot work (no key, no model) before any
	// stage claims a thread or the lock.
	if _, err := buildProvider(f, cfg, model.PurposeExtract); err != nil {
		return rep, err
	}
	if _, _, err := buildConsolidator(f, cfg, cfg.Consolidation.Mode); err != nil {
		return rep, err
	}
	home, _ := f.Home()
	if err := ensureHome(home); err != nil {
		return rep, err
	}
	if eo.dryRun {
		// A dry run changes nothing: no layout repair, no prune.
		rep.Prepare = map[string]string{"status": "skipped_dry_run"}
	} else if err := consolidate.PrepareLayout(root, cfg.Templates.Dir); err != nil {
		rep.Prepare = map[string]string{"status": "failed", "error": err.Error()}
		return rep, fmt.Errorf("%s: prepare %s: %w", version, root, err)
	}
	rep.Prune, err = pruneVersion(ctx, f.OpenStore, f.Now, cfg, version, eo.dryRun)
	if err != nil {
		// Codex logs prune errors and goes on; so does run.
		f.warnf("%s: prune: %v", version, err)
	} else if rep.Prune.Pruned > 0 {
		f.infof("%s: pruned %d raw memories", version, rep.Prune.Pruned)
	}
	prov := model.Resolve(cfg.Provider.Kind, f.Getenv)
	st, err := f.OpenStore(ctx, version)
	if err != nil {
		return rep, err
	}
	rep.Guard, err = extract.Guard(ctx, st, prov, cfg.Memories.MinRateLimitRemainingPercent, f.Now())
	st.Close()
	if err != nil {
		return rep, err
	}
	if !rep.Guard.Allowed {
		f.warnf("%s: rate-limit guard: %s; skipping extraction and consolidation", version, rep.Guard.Reason)
		return rep, nil
	}
	ex, err := runExtract(ctx, f, cfg, version, eo)
	rep.Extract = &ex
	if err != nil {
		return rep, fmt.Errorf("%s: extract: %w", version, err)
	}
	if !f.JSON {
		printExtract(f, ex)
	}
	if eo.dryRun {
		return rep, nil
	}
	cr, err := runConsolidate(ctx, f, cfg, version, co)
	rep.Consolidate = &cr
	if err != nil {
		return rep, fmt.Errorf("%s: consolidate: %w", version, err)
	}
	if strings.HasPrefix(cr.Status, "failed") {
		return rep, fmt.Errorf("%s: consolidation %s: %s", version, cr.Status, cr.Error)
	}
	return rep, nil
}
