package cmd

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/memctl/memctl/pkg/config"
	"github.com/memctl/memctl/pkg/consolidate"
	"github.com/memctl/memctl/pkg/model"
	"github.com/memctl/memctl/pkg/store"
	"github.com/spf13/cobra"
)

type consolidateOptions struct {
	mode   string
	force  bool
	dryRun bool
}

func (o *consolidateOptions) bind(c *cobra.Command, prefix string) {
	c.Flags().StringVar(&o.mode, "mode", "", "consolidator: auto, model, agent or heuristic (overrides consolidation.mode)")
	c.Flags().BoolVar(&o.force, "force", false, "ignore the six-hour cooldown after a success (never a running lease or a failure backoff)")
	if prefix == "" {
		c.Flags().BoolVar(&o.dryRun, "dry-run", false, "show the selection and the changes, write nothing")
	}
}

func newConsolidateCmd(f *Factory) *cobra.Command {
	opts := &consolidateOptions{}
	c := &cobra.Command{
		Use:   "consolidate",
		Short: "Phase 2: merge the best raw memories into the memory folder",
		Long: `Take the global consolidation lock, select the top raw memories (by use, then
recency), write them into the memory folder (rollout_summaries/, raw_memories.md),
diff the folder against the last successful run, and let a consolidator rewrite
MEMORY.md, memory_summary.md and skills/. The result is validated; a failed or
invalid run leaves the previous files in place and backs off for an hour.

Skips exit 0 and say why: another process holds the lock (skipped_running), the
last run succeeded less than six hours ago (skipped_cooldown), or the last run
failed less than an hour ago (skipped_retry_unavailable: the message names the
error and when the retry is due). --force ignores both and runs now; it never
takes a lock another process holds.
When nothing changed since the last run and the files are valid, it succeeds
without calling a consolidator.

Consolidators (consolidation.mode): heuristic (offline, deterministic), model
(structured calls to the configured provider), agent (consolidation.agent_command
run inside the memory folder; see docs/integrations.md), auto (model when a model
provider is configured, else heuristic).`,
		Args: cobra.NoArgs,
		Example: `  $ memctl consolidate
  $ memctl consolidate --mode heuristic --force
  $ memctl consolidate --dry-run --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.Config()
			if err != nil {
				return err
			}
			if err := opts.apply(cmd, cfg); err != nil {
				return err
			}
			var results []consolidate.Result
			var runErr error
			for _, v := range cfg.Versions() {
				res, err := runConsolidate(cmd.Context(), f, cfg, v, opts)
				if err != nil && !strings.HasPrefix(res.Status, "failed") {
					return err // no result to report: config, store or interruption
				}
				results = append(results, res)
				if err != nil && runErr == nil {
					// A failed run still reports its failed_… status, and
					// the other version's pipeline still runs.
					runErr = err
				}
			}
			res := results[0]
			if f.JSON {
				if len(results) > 1 {
					if err := printJSON(f.IO.Out, map[string]any{"status": res.Status, "selected": res.Selected, "versions": results}); err != nil {
						return err
					}
				} else if err := printJSON(f.IO.Out, res); err != nil {
					return err
				}
			}
			for _, r := range results {
				if strings.HasPrefix(r.Status, "failed") {
					if f.JSON {
						return &silentError{code: ExitError, msg: fmt.Sprintf("consolidation %s: %s", r.Status, r.Error)}
					}
					if runErr != nil {
						return runErr
					}
					return fmt.Errorf("consolidation %s: %s", r.Status, r.Error)
				}
			}
			return runErr
		},
	}
	opts.bind(c, "")
	return c
}

func (o *consolidateOptions) apply(c *cobra.Command, cfg *config.Config) error {
	if c.Flags().Changed("mode") {
		if err := cfg.Set("consolidation.mode", o.mode, config.FromFlag); err != nil {
			return &FlagError{Err: fmt.Errorf("--mode: %w", err)}
		}
	}
	return nil
}

// buildConsolidator resolves consolidation.mode.
func buildConsolidator(f *Factory, cfg *config.Config, mode string) (consolidate.Consolidator, string, error) {
	if mode == "auto" {
		if model.Resolve(cfg.Provider.Kind, f.Getenv) == model.KindHeuristic {
			mode = "heuristic"
		} else {
			mode = "model"
		}
	}
	switch mode {
	case "heuristic":
		return consolidate.NewHeuristic(), "heuristic", nil
	case "model":
		prov, err := buildProvider(f, cfg, model.PurposeConsolidate)
		if err != nil {
			return nil, "", err
		}
		if prov.Provider == nil {
			return nil, "", &config.Error{Key: "consolidation.mode", Err: fmt.Errorf("mode \"model\" needs a model provider, but provider.kind resolves to heuristic")}
		}
		return consolidate.NewModel(prov.Provider, prov.Model), prov.Kind, nil
	case "agent":
		if len(cfg.Consolidation.AgentCommand) == 0 {
			return nil, "", &config.Error{Key: "consolidation.agent_command", Err: fmt.Errorf("mode \"agent\" needs agent_command")}
		}
		return consolidate.NewAgent(cfg.Consolidation.AgentCommand, cfg.Consolidation.AgentTimeout, agentEnv(), f.IO.ErrOut), "agent", nil
	}
	return nil, "", &config.Error{Key: "consolidation.mode", Err: fmt.Errorf("unknown mode %q", mode)}
}

// agentEnv is the environment of the consolidation agent: this process's,
// less memctl's own variables, so the agent cannot reach memctl's home or
// config through them.
func agentEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "MEMCTL_") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func runConsolidate(ctx context.Context, f *Factory, cfg *config.Config, version string, opts *consolidateOptions) (consolidate.Result, error) {
	red, err := redactor(cfg)
	if err != nil {
		return consolidate.Result{}, err
	}
	cons, provName, err := buildConsolidator(f, cfg, cfg.Consolidation.Mode)
	if err != nil {
		return consolidate.Result{}, err
	}
	root, err := f.MemoryRoot(version)
	if err != nil {
		return consolidate.Result{}, err
	}
	st, err := f.OpenStore(ctx, version)
	if err != nil {
		return consolidate.Result{}, err
	}
	defer st.Close()
	started := f.Now()
	res, err := consolidate.Run(ctx, storeJobs{st}, consolidate.Options{
		Root: root, Version: version, Mode: cons.Name(), MaxRaw: cfg.Memories.MaxRawMemoriesForConsolidation,
		MaxUnusedDays: cfg.Memories.MaxUnusedDays, Force: opts.force, DryRun: opts.dryRun, Consolidator: cons,
		WorkerID: workerID(), Now: f.Now, TemplateDir: cfg.Templates.Dir, Log: f.IO.ErrOut, Redact: red,
	})
	bg := context.WithoutCancel(ctx)
	if err != nil {
		if !opts.dryRun {
			recordStage(bg, st, "consolidate", started, f.Now(), "failed", err.Error())
		}
		return res, err
	}
	if opts.dryRun {
		if !f.JSON {
			for _, l := range res.ChangeLines {
				fmt.Fprintln(f.IO.Out, l)
			}
			f.infof("%s: would consolidate %d raw memories", version, res.Selected)
		}
		return res, nil
	}
	if res.Usage != (model.Usage{}) {
		_ = st.AddTokenUsage(bg, store.TokenUsage{Stage: "consolidate", Provider: provName, InputTokens: res.Usage.InputTokens,
			CachedInputTokens: res.Usage.CachedInputTokens, OutputTokens: res.Usage.OutputTokens,
			ReasoningTokens: res.Usage.ReasoningTokens, TotalTokens: res.Usage.TotalTokens})
	}
	if strings.HasPrefix(res.Status, "succeeded") {
		if err := indexFolder(bg, st, root); err != nil {
			f.warnf("search index: %v", err)
		}
	}
	detail := fmt.Sprintf("%s: %d selected via %s", version, res.Selected, cons.Name())
	if res.Error != "" {
		detail += ": " + res.Error
	}
	recordStage(bg, st, "consolidate", started, f.Now(), res.Status, detail)
	if !f.JSON {
		f.infof("%s", describeConsolidation(bg, st, version, res, f.Now()))
	}
	return res, nil
}

// describeConsolidation says what a run did, and for a skip the state
// behind it: the last error and when the retry is due, or when the
// cooldown ends, and how many raw memories wait.
func describeConsolidation(ctx context.Context, st *store.Store, version string, res consolidate.Result, now time.Time) string {
	base := fmt.Sprintf("%s: consolidation %s", version, strings.ReplaceAll(res.Status, "_", " "))
	if !strings.HasPrefix(res.Status, "skipped") {
		return fmt.Sprintf("%s (%d raw memories)", base, res.Selected)
	}
	waiting := fmt.Sprintf("%d raw memories wait", res.Selected)
	job, err := st.Job(ctx, store.KindConsolidate, store.GlobalKey)
	if err != nil {
		return fmt.Sprintf("%s; %s", base, waiting)
	}
	at := func(p *int64) string {
		if p == nil {
			return "?"
		}
		return time.Unix(*p, 0).UTC().Format(time.RFC3339)
	}
	switch res.Status {
	case consolidate.ClaimRetryUnavailable:
		return fmt.Sprintf("%s: the last run failed at %s (%s); it is retried after %s, or now with --force; %s",
			base, at(job.FinishedAt), job.LastError, at(job.RetryAt), waiting)
	case consolidate.ClaimCooldown:
		return fmt.Sprintf("%s: the last run succeeded at %s; the next is due six hours later, or now with --force; %s",
			base, at(job.FinishedAt), waiting)
	case consolidate.ClaimRunning:
		return fmt.Sprintf("%s: %s holds the lock until %s; %s", base, job.WorkerID, at(job.LeaseUntil), waiting)
	}
	return fmt.Sprintf("%s; %s", base, waiting)
}

// indexFolder refreshes the search index with the memory folder's Markdown
// files (not the generated inputs that the raw memories already cover).
func indexFolder(ctx context.Context, st *store.Store, root string) error {
	var files []store.IndexedFile
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && rel != "." {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() || !strings.HasSuffix(rel, ".md") || rel == consolidate.DiffFileName || rel == consolidate.RawMemoriesFileName {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil || len(b) > 4<<20 {
			return nil
		}
		files = append(files, store.IndexedFile{Path: rel, Body: string(b)})
		return nil
	})
	if err != nil {
		return err
	}
	return st.ReplaceIndexedFiles(ctx, files)
}

// storeJobs adapts the store to what Phase 2 needs.
type storeJobs struct{ st *store.Store }

func (j storeJobs) ClaimGlobal(ctx context.Context, worker string, ignoreCooldown bool) (consolidate.Claim, error) {
	c, err := j.st.ClaimGlobal(ctx, worker, ignoreCooldown)
	return consolidate.Claim{Status: c.Status, Token: c.Token, InputWatermark: c.InputWatermark}, err
}

func (j storeJobs) HeartbeatGlobal(ctx context.Context, token string) (bool, error) {
	return j.st.HeartbeatGlobal(ctx, token)
}

func (j storeJobs) SucceedGlobal(ctx context.Context, token string, watermark int64, selected []consolidate.Selected) (bool, error) {
	snaps := make([]store.Snapshot, len(selected))
	for i, s := range selected {
		snaps[i] = store.Snapshot{ThreadID: s.ThreadID, SourceUpdatedAt: s.SourceUpdatedAt}
	}
	return j.st.SucceedGlobal(ctx, token, watermark, snaps)
}

func (j storeJobs) FailGlobal(ctx context.Context, token, reason string) error {
	return j.st.FailGlobal(ctx, token, reason)
}

func (j storeJobs) Selection(ctx context.Context, n, maxUnusedDays int) ([]consolidate.Selected, error) {
	sel, err := j.st.Selection(ctx, n, maxUnusedDays)
	out := make([]consolidate.Selected, len(sel))
	for i, s := range sel {
		out[i] = consolidate.Selected(s)
	}
	return out, err
}

func (j storeJobs) Baseline(ctx context.Context) ([]consolidate.BaselineFile, bool, error) {
	files, ok, err := j.st.Baseline(ctx)
	out := make([]consolidate.BaselineFile, len(files))
	for i, f := range files {
		out[i] = consolidate.BaselineFile(f)
	}
	return out, ok, err
}

func (j storeJobs) SaveBaseline(ctx context.Context, files []consolidate.BaselineFile) error {
	in := make([]store.BaselineFile, len(files))
	for i, f := range files {
		in[i] = store.BaselineFile(f)
	}
	return j.st.SaveBaseline(ctx, in)
}
