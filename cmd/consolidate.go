package cmd

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/consolidate"
	"github.com/memctl/memctl/internal/english"
	"github.com/memctl/memctl/internal/inject"
	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/model"
	"github.com/memctl/memctl/internal/store"
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
	IO        *IOStreams
	Config    func() (*config.Config, error)
	OpenStore func(ctx context.Context, version memversion.Version) (*store.Store, error)
	Now       func() time.Time
	StageLoaders

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
	opts := &ConsolidateOptions{IO: f.IO, Config: f.Config, OpenStore: f.OpenStore, Now: f.Now, StageLoaders: f.stageLoaders()}
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
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runConsolidate(c.Context(), opts)
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
	var results []consolidate.Result
	var runErr error
	for _, v := range cfg.Versions() {
		res, err := consolidateVersion(ctx, opts, cfg, v)
		if err != nil && !res.Status.Failed() {
			return err // no result to report: config, store or interruption
		}
		results = append(results, res)
		if err != nil && runErr == nil {
			// A failed run still reports its failed_… status, and the
			// other version's pipeline still runs.
			runErr = err
		}
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

// buildConsolidator resolves consolidation.mode. The provider it returns
// names what answers (Kind, Model; Provider is nil but in model mode), for
// the token record and the history.
func buildConsolidator(sl StageLoaders, errOut io.Writer, cfg *config.Config, mode config.ConsolidationMode) (consolidate.Consolidator, resolvedProvider, error) {
	if mode == config.ModeAuto {
		if model.Resolve(model.Kind(cfg.Provider.Kind), sl.Getenv) == model.KindHeuristic {
			mode = config.ModeHeuristic
		} else {
			mode = config.ModeModel
		}
	}
	switch mode {
	case config.ModeHeuristic:
		return consolidate.NewHeuristic(), resolvedProvider{Kind: model.KindHeuristic}, nil
	case config.ModeModel:
		prov, err := sl.Provider(cfg, model.PurposeConsolidate)
		if err != nil {
			return nil, resolvedProvider{}, err
		}
		if prov.Provider == nil {
			return nil, resolvedProvider{}, &config.Error{Key: "consolidation.mode", Err: fmt.Errorf("mode \"model\" needs a model provider, but provider.kind resolves to heuristic")}
		}
		return consolidate.NewModel(prov.Provider, prov.Model), prov, nil
	case config.ModeAgent:
		if len(cfg.Consolidation.AgentCommand) == 0 || cfg.Consolidation.AgentCommand[0] == "" {
			return nil, resolvedProvider{}, &config.Error{Key: "consolidation.agent_command", Err: fmt.Errorf("mode \"agent\" needs agent_command")}
		}
		if err := checkProgram(cfg.Consolidation.AgentCommand[0]); err != nil {
			return nil, resolvedProvider{}, &config.Error{Key: "consolidation.agent_command", Err: err}
		}
		return consolidate.NewAgent(cfg.Consolidation.AgentCommand, cfg.Consolidation.AgentTimeout, agentEnv(), errOut), resolvedProvider{Kind: model.Kind(config.ModeAgent)}, nil // the agent answers: recorded under its mode
	}
	return nil, resolvedProvider{}, &config.Error{Key: "consolidation.mode", Err: fmt.Errorf("unknown mode %q", mode)}
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

// consolidateVersion runs Phase 2 for one memory version. A failed run
// returns its failed_… result with a *consolidate.FailedError.
func consolidateVersion(ctx context.Context, opts *ConsolidateOptions, cfg *config.Config, version memversion.Version) (consolidate.Result, error) {
	red, err := redactor(cfg)
	if err != nil {
		return consolidate.Result{}, err
	}
	cons, prov, err := buildConsolidator(opts.StageLoaders, opts.IO.ErrOut, cfg, cfg.Consolidation.Mode)
	if err != nil {
		return consolidate.Result{}, err
	}
	root, err := opts.MemoryRoot(version)
	if err != nil {
		return consolidate.Result{}, err
	}
	st, err := opts.OpenStore(ctx, version)
	if err != nil {
		return consolidate.Result{}, err
	}
	defer st.Close()
	started := opts.Now()
	// An agent consolidator writes its own output to stderr; a progress
	// line would be torn by it.
	prog := startProgress(opts.IO, opts.JSON || cons.Name() == string(config.ModeAgent), fmt.Sprintf("consolidating %s (%s)", version, cons.Name()), "")
	res, err := consolidate.Run(ctx, consolidate.OnStore(st), consolidate.Options{
		Root: root, Version: version, Mode: cons.Name(), MaxRaw: cfg.Memories.MaxRawMemoriesForConsolidation,
		MaxUnusedDays: cfg.Memories.MaxUnusedDays, Force: opts.Force, DryRun: opts.DryRun, Consolidator: cons,
		WorkerID: workerID(), Now: opts.Now, TemplateDir: cfg.Templates.Dir, Log: opts.IO.ErrOut, Redact: red,
		Provider: string(prov.Kind), Model: prov.Model, Review: cfg.Consolidation.Review, Keep: cfg.Consolidation.KeepGenerations,
		RewriteThreshold: float64(cfg.Health.RewriteThreshold) / 100,
	})
	prog.finish()
	bg := context.WithoutCancel(ctx)
	if err != nil {
		if !opts.DryRun {
			status, detail := "failed", err.Error()
			if res.Status == consolidate.StatusInterrupted {
				status, detail = string(res.Status), version.String()+": stopped by a signal; the previous memory files are kept and the next run starts afresh"
			}
			recordStage(bg, st, "consolidate", started, opts.Now(), status, detail)
		}
		return res, err
	}
	if opts.DryRun {
		if !opts.JSON {
			printPlan(opts.IO, version, res)
		}
		return res, nil
	}
	if res.Usage != (model.Usage{}) {
		_ = st.AddTokenUsage(bg, store.TokenUsage{Stage: "consolidate", Provider: string(prov.Kind), Model: prov.Model, InputTokens: res.Usage.InputTokens,
			CachedInputTokens: res.Usage.CachedInputTokens, OutputTokens: res.Usage.OutputTokens,
			ReasoningTokens: res.Usage.ReasoningTokens, TotalTokens: res.Usage.TotalTokens})
	}
	if res.Status.Succeeded() {
		if err := indexFolder(bg, st, root); err != nil {
			opts.IO.Warnf("search index: %v", err)
		}
	}
	detail := fmt.Sprintf("%s: %d selected via %s", version, res.Selected, cons.Name())
	if res.Error != "" {
		detail += ": " + res.Error
	}
	recordStage(bg, st, "consolidate", started, opts.Now(), string(res.Status), detail)
	if !opts.JSON {
		opts.IO.Infof("%s", describeConsolidation(bg, st, version, root, res, opts.Now()))
	}
	return res, nil
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

// describeConsolidation says what a run did, and for a skip the state
// behind it (the last error and when the retry is due, or when the
// cooldown ends), the raw memories stored and how many the last
// consolidation took, and the command that overrides the skip.
func describeConsolidation(ctx context.Context, st *store.Store, version memversion.Version, root string, res consolidate.Result, now time.Time) string {
	status := strings.ReplaceAll(string(res.Status), "_", " ")
	if res.Status == consolidate.StatusSucceededNoChanges {
		status = "succeeded, nothing changed in the memory folder" // issue 26: "succeeded no workspace changes"
	}
	base := fmt.Sprintf("%s: consolidation %s", version, status)
	if res.Status.Succeeded() && res.Selected == 0 && inject.Empty(root) {
		// issue 26: "consolidation succeeded (0 raw memories); generation
		// 1" read as if memory had been made.
		return fmt.Sprintf("%s: the memory is empty: no raw memory or note to consolidate yet, so summary prints nothing", version)
	}
	switch res.Status {
	case consolidate.StatusPendingReview:
		return fmt.Sprintf("%s: generation %d (%s) waits; `memctl review` shows it, `memctl approve` lands it, `memctl reject` drops it",
			base, res.Generation, english.Count(res.Selected, "raw memory", "raw memories"))
	case consolidate.StatusSkippedPendingReview:
		return fmt.Sprintf("%s: generation %d waits for `memctl approve` or `memctl reject`; %s %s",
			base, res.Generation, english.Count(res.Selected, "raw memory", "raw memories"), english.Noun(res.Selected, "waits", "wait"))
	case consolidate.StatusSkippedRejected:
		return fmt.Sprintf("%s: these inputs make generation %d again, which was rejected; pin, edit or forget memories first, or run with --force",
			base, res.Generation)
	}
	if !res.Status.Skipped() {
		if res.Generation != 0 {
			return fmt.Sprintf("%s (%s); generation %d", base, english.Count(res.Selected, "raw memory", "raw memories"), res.Generation)
		}
		return fmt.Sprintf("%s (%s)", base, english.Count(res.Selected, "raw memory", "raw memories"))
	}
	counts := fmt.Sprintf("%s selected", english.Count(res.Selected, "raw memory", "raw memories"))
	if s, err := st.Status(ctx); err == nil {
		counts = fmt.Sprintf("%s stored, %d of them in the last consolidation", english.Count(s.RawMemories, "raw memory", "raw memories"), s.SelectedPhase2)
	}
	job, err := st.Job(ctx, store.KindConsolidate, store.GlobalKey)
	if err != nil {
		return fmt.Sprintf("%s; %s", base, counts)
	}
	at := func(p *int64, later time.Duration) string {
		if p == nil {
			return "?"
		}
		return time.Unix(*p, 0).Add(later).UTC().Format(time.RFC3339)
	}
	const force = "`memctl consolidate --force` runs it now"
	switch res.Status {
	case consolidate.ClaimRetryUnavailable:
		return fmt.Sprintf("%s: the last run failed at %s (%s) and is retried after %s; %s; %s",
			base, at(job.FinishedAt, 0), job.LastError, at(job.RetryAt, 0), counts, force)
	case consolidate.ClaimCooldown:
		return fmt.Sprintf("%s: the last run succeeded at %s and the next is due at %s; %s; %s",
			base, at(job.FinishedAt, 0), at(job.FinishedAt, store.Cooldown), counts, force)
	case consolidate.ClaimRunning:
		// A live lease is never forced: two consolidators would overwrite
		// each other's files.
		return fmt.Sprintf("%s: %s holds the lock until %s; %s", base, job.WorkerID, at(job.LeaseUntil, 0), counts)
	}
	return fmt.Sprintf("%s; %s", base, counts)
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
		if !d.Type().IsRegular() || !strings.HasSuffix(rel, ".md") || rel == memdir.DiffFile || rel == memdir.RawMemoriesFile {
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
