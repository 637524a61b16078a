package pipeline

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
)

// describeConsolidation says what a run did, and for a skip the state
// behind it (the last error and when the retry is due, or when the
// cooldown ends), the raw memories stored and how many the last
// consolidation took, and the command that overrides the skip.
func describeConsolidation(ctx context.Context, st *store.Store, version memversion.Version, root string, res consolidate.Result, now time.Time) string {
	status := strings.ReplaceAll(string(res.Status), "_", " ")
	if res.Status == consolidate.StatusSucceededNoChanges {
		status = "succeeded, nothing changed in the memory folder" // not "succeeded no workspace changes"
	}
	base := fmt.Sprintf("%s: consolidation %s", version, status)
	if res.Status.Succeeded() && res.Selected == 0 && inject.Empty(root) {
		// "consolidation succeeded (0 raw memories); generation 1" would
		// read as if memory had been made.
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

// IndexFolder refreshes the search index with the memory folder's Markdown
// files (not the generated inputs that the raw memories already cover).
func IndexFolder(ctx context.Context, st *store.Store, root string) error {
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

// consolidateStage is Phase 2 of one memory version, its inputs resolved.
type consolidateStage struct {
	Store        *store.Store
	Root         string
	Version      memversion.Version
	Consolidator consolidate.Consolidator
	Provider     Provider
	Config       *config.Config
	Redact       func(string) string
	Force        bool
	DryRun       bool
	WorkerID     string
	Now          func() time.Time
	Log          io.Writer // the consolidator's messages
	Reporter     Reporter
	// Describe asks for the report's Summary (it reads the store again).
	Describe bool
	// NoHistory records no generation and checks no evidence (a scratch
	// home).
	NoHistory bool
}

// ConsolidateReport is what a consolidation did.
type ConsolidateReport struct {
	Result consolidate.Result
	// Summary says what the run did, for people; empty for a dry run, a
	// failure or when not asked for.
	Summary string
	// IndexErr is a failure to refresh the search index, which does not
	// fail the run.
	IndexErr error
}

// runConsolidate runs Phase 2 on s's store and folder, then records its
// token usage and the stage run, and refreshes the search index after a
// success. A failed run returns its failed_… result with a
// *consolidate.FailedError.
func runConsolidate(ctx context.Context, s consolidateStage) (ConsolidateReport, error) {
	cfg, cons := s.Config, s.Consolidator
	started := s.Now()
	done := func() {}
	// An agent consolidator writes its own messages to stderr; a progress
	// line would be torn by them.
	if cons.Name() != string(config.ModeAgent) {
		_, done = s.Reporter.Progress(fmt.Sprintf("consolidating %s (%s)", s.Version, cons.Name()), "")
	}
	var jobs consolidate.Jobs = consolidate.OnStore(s.Store)
	if s.NoHistory {
		jobs = consolidate.JobsOnStore(s.Store)
	}
	res, err := consolidate.Run(ctx, jobs, consolidate.Options{
		Root: s.Root, Version: s.Version, Mode: cons.Name(), MaxRaw: cfg.Memories.MaxRawMemoriesForConsolidation,
		MaxUnusedDays: cfg.Memories.MaxUnusedDays, Force: s.Force, DryRun: s.DryRun, Consolidator: cons,
		WorkerID: s.WorkerID, Now: s.Now, TemplateDir: cfg.Templates.Dir, Log: s.Log, Redact: s.Redact,
		Provider: string(s.Provider.Kind), Model: s.Provider.Model, Review: cfg.Consolidation.Review, Keep: cfg.Consolidation.KeepGenerations,
		RewriteThreshold: float64(cfg.Health.RewriteThreshold) / 100,
	})
	done()
	rep := ConsolidateReport{Result: res}
	bg := context.WithoutCancel(ctx)
	if err != nil {
		if !s.DryRun {
			status, detail := "failed", err.Error()
			if res.Status == consolidate.StatusInterrupted {
				status, detail = string(res.Status), s.Version.String()+": stopped by a signal; the previous memory files are kept and the next run starts afresh"
			}
			recordStage(bg, s.Store, "consolidate", started, s.Now(), status, detail)
		}
		return rep, err
	}
	if s.DryRun {
		return rep, nil
	}
	if res.Usage != (model.Usage{}) {
		_ = s.Store.AddTokenUsage(bg, store.TokenUsage{Stage: "consolidate", Provider: string(s.Provider.Kind), Model: s.Provider.Model, InputTokens: res.Usage.InputTokens,
			CachedInputTokens: res.Usage.CachedInputTokens, OutputTokens: res.Usage.OutputTokens,
			ReasoningTokens: res.Usage.ReasoningTokens, TotalTokens: res.Usage.TotalTokens, CostUSD: res.Usage.CostUSD})
	}
	if res.Status.Succeeded() {
		rep.IndexErr = IndexFolder(bg, s.Store, s.Root)
	}
	via := cons.Name()
	if res.Consolidator != "" {
		via = res.Consolidator // the offline one, when there was nothing to consolidate
	}
	detail := fmt.Sprintf("%s: %d selected via %s", s.Version, res.Selected, via)
	if res.Error != "" {
		detail += ": " + res.Error
	}
	recordStage(bg, s.Store, "consolidate", started, s.Now(), string(res.Status), detail)
	if s.Describe {
		rep.Summary = describeConsolidation(bg, s.Store, s.Version, s.Root, res, s.Now())
	}
	return rep, nil
}

// ConsolidateRequest is what a command asks of Phase 2: its flags.
type ConsolidateRequest struct {
	// Force ignores the success cooldown (never a live lease or the
	// backoff after a failure).
	Force bool
	// DryRun computes the changes and the planned diff of every artifact
	// in a scratch copy, and writes nothing.
	DryRun bool
	// Describe asks for each report's Summary, for people.
	Describe bool
}

// Consolidate runs Phase 2 for every version, the first first, and
// returns every result. A failed consolidation (a failed_… result) still
// reports its status and does not keep the next version from running;
// its error is returned at the end. Any other error (config, store,
// interruption) stops the loop and is returned with no results: there is
// nothing to report.
func (h *Home) Consolidate(ctx context.Context, req ConsolidateRequest) ([]consolidate.Result, error) {
	plan, err := h.Plan(PhaseConsolidate)
	if err != nil {
		return nil, err
	}
	var results []consolidate.Result
	var failed error
	for _, v := range h.Versions() {
		res, err := h.consolidateVersion(ctx, plan, v, req)
		if err != nil && !res.Status.Failed() {
			return nil, err
		}
		results = append(results, res)
		if err != nil && failed == nil {
			failed = err
		}
	}
	return results, failed
}

// consolidateVersion runs Phase 2 for one version on its own store.
func (h *Home) consolidateVersion(ctx context.Context, plan Plan, version memversion.Version, req ConsolidateRequest) (consolidate.Result, error) {
	st, err := h.OpenStore(ctx, version)
	if err != nil {
		return consolidate.Result{}, err
	}
	defer st.Close()
	rep, err := h.consolidateStore(ctx, st, plan, version, req)
	return rep.Result, err
}

// ConsolidateStore runs Phase 2 on an open store of version (eval's
// replay, which keeps its store open).
func (h *Home) ConsolidateStore(ctx context.Context, st *store.Store, version memversion.Version, req ConsolidateRequest) (ConsolidateReport, error) {
	plan, err := h.Plan(PhaseConsolidate)
	if err != nil {
		return ConsolidateReport{}, err
	}
	return h.consolidateStore(ctx, st, plan, version, req)
}

// consolidateStore runs Phase 2 on st and the version's memory folder,
// and tells the Reporter how a run that did not fail ended. A failed run
// returns its failed_… result with a *consolidate.FailedError.
func (h *Home) consolidateStore(ctx context.Context, st *store.Store, plan Plan, version memversion.Version, req ConsolidateRequest) (ConsolidateReport, error) {
	rep, err := runConsolidate(ctx, consolidateStage{Store: st, Root: h.MemoryRoot(version), Version: version,
		Consolidator: plan.Consolidator, Provider: plan.Consolidate, Config: h.cfg, Redact: plan.Redact, Force: req.Force,
		DryRun: req.DryRun, WorkerID: h.env.WorkerID, Now: h.env.Now, Log: h.env.Stderr, Reporter: h.env.Reporter,
		Describe: req.Describe, NoHistory: h.scratch})
	if err == nil {
		h.env.Reporter.Consolidated(version, rep, req.DryRun)
	}
	return rep, err
}
