package extract

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/model"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/store"
)

// Store is the part of the store Phase 1 needs.
type Store interface {
	Candidates(ctx context.Context, f store.CandidateFilter) ([]store.Thread, error)
	UpToDate(ctx context.Context, threadID string, sourceUpdatedAt int64) (bool, error)
	TryClaimStage1(ctx context.Context, threadID, workerID string, sourceUpdatedAt int64, maxRunning int) (store.ClaimOutcome, string, error)
	MarkStage1Done(ctx context.Context, threadID, token string, sourceUpdatedAt int64, r store.Stage1Result) (bool, error)
	MarkStage1NoOutput(ctx context.Context, threadID, token string) (bool, error)
	MarkStage1Failed(ctx context.Context, threadID, token, reason string) error
	ReleaseStage1(ctx context.Context, threadID, token string) error
	ReapAbandoned(ctx context.Context) (int, error)
	AddTokenUsage(ctx context.Context, u store.TokenUsage) error
	SaveRateLimit(ctx context.Context, r store.RateLimitState) error
}

// Job statuses in results (Codex's phase-1 metric tags).
const (
	StatusSucceeded         = "succeeded"
	StatusSucceededNoOutput = "succeeded_no_output"
	StatusFailed            = "failed"
	StatusReleased          = "released" // interrupted before it finished; the claim was given back
	StatusWouldClaim        = "would_claim"
)

// RunOptions configures one Phase 1 pass.
type RunOptions struct {
	Version memversion.Version
	// Provider answers the structured calls; nil runs the offline heuristic.
	Provider     model.Provider
	ProviderName model.Kind // recorded with token usage: openai, anthropic, command, heuristic …
	Model        string
	Filter       store.CandidateFilter
	// MaxClaims is both the number of claims this pass makes and the cap on
	// stage-1 jobs running at once across processes (Codex's
	// max_rollouts_per_startup).
	MaxClaims   int
	Concurrency int
	TokenLimit  int
	Redact      func(string) string
	TemplateDir string
	WorkerID    string
	DryRun      bool
	// Progress is called once the claims are made, with (0, total), then
	// after each finished job with (done, total).
	Progress func(done, total int)
	// Now is the clock (the store has the same one); nil is time.Now.
	Now func() time.Time
	// Sources are the transcript folders: a transcript whose path goes
	// through a symbolic link is read only if it resolves inside one of
	// them (sessions.CheckLinks). nil leaves links unchecked.
	Sources []sessions.Source
}

// JobResult is the outcome of one thread.
type JobResult struct {
	ThreadID     string      `json:"thread_id"`
	Status       string      `json:"status"`
	Error        string      `json:"error,omitempty"`
	Preview      string      `json:"preview,omitempty"`
	ApproxTokens int         `json:"approx_tokens,omitempty"`
	Usage        model.Usage `json:"usage"`
	// Quarantined counts the lines held back because they read like
	// orders to the next agent (memctl doctor lists them).
	Quarantined int `json:"quarantined,omitempty"`
	// Evidence counts the files and commands the memory was found to rest on.
	Evidence int `json:"evidence,omitempty"`
}

// RunResult summarises a pass (CLI.md's extract --json shape).
type RunResult struct {
	Claimed           int `json:"claimed"`
	Succeeded         int `json:"succeeded"`
	SucceededNoOutput int `json:"succeeded_no_output"`
	Failed            int `json:"failed"`
	Released          int `json:"released,omitempty"`
	// Quarantined counts the lines held back from the stored memories.
	Quarantined  int         `json:"quarantined,omitempty"`
	Jobs         []JobResult `json:"jobs"`
	Usage        model.Usage `json:"usage"`
	ApproxTokens int         `json:"approx_tokens,omitempty"`
	DryRun       bool        `json:"dry_run,omitempty"`
	// Skipped is set when the rate-limit guard stopped the pass.
	Skipped string `json:"skipped,omitempty"`
	// NotClaimed counts the indexed threads this run did not claim, by
	// reason (the Reason* constants; see WhyNotClaimed).
	NotClaimed map[string]int `json:"not_claimed"`
}

type claimed struct {
	thread    store.Thread
	token     string
	watermark int64
}

// Run claims idle threads and extracts them (Codex 6.1 and 6.9).
func Run(ctx context.Context, st Store, opts RunOptions) (RunResult, error) {
	res := RunResult{Jobs: []JobResult{}, DryRun: opts.DryRun, NotClaimed: map[string]int{}}
	if opts.MaxClaims <= 0 {
		return res, nil
	}
	opts = opts.withDefaults()
	cands, err := st.Candidates(ctx, opts.Filter)
	if err != nil {
		return res, fmt.Errorf("list candidates: %w", err)
	}
	if opts.DryRun {
		return dryRun(ctx, st, opts, cands)
	}
	// Claims whose process has exited (killed, or failed without saying
	// so, as on a full disk) are free at once, not after their lease.
	if _, err := st.ReapAbandoned(ctx); err != nil {
		return res, fmt.Errorf("reclaim abandoned jobs: %w", err)
	}
	claims, err := claimBatch(ctx, st, opts, cands)
	if err != nil {
		return res, err
	}
	res.Claimed = len(claims)
	if opts.Progress != nil && len(claims) > 0 {
		opts.Progress(0, len(claims))
	}
	res.tally(runClaims(ctx, st, opts, claims))
	if err := ctx.Err(); err != nil {
		return res, err
	}
	return res, nil
}

// withDefaults fills the options a caller may leave zero.
func (opts RunOptions) withDefaults() RunOptions {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = 8
	}
	if opts.Redact == nil {
		opts.Redact = func(s string) string { return s }
	}
	return opts
}

// claimBatch claims up to opts.MaxClaims of the candidates that are not
// already up to date, in their order. On an error it gives back what it
// claimed, so an interrupted or failed pass does not hold those threads
// for the lease's hour.
func claimBatch(ctx context.Context, st Store, opts RunOptions, cands []store.Thread) ([]claimed, error) {
	var claims []claimed
	var claimErr error
	for _, t := range cands {
		if len(claims) >= opts.MaxClaims || ctx.Err() != nil {
			break
		}
		wm := t.UpdatedAt.Unix()
		fresh, err := st.UpToDate(ctx, t.ID, wm)
		if err != nil {
			claimErr = err
			break
		}
		if fresh {
			continue
		}
		outcome, token, err := st.TryClaimStage1(ctx, t.ID, opts.WorkerID, wm, opts.MaxClaims)
		if err != nil {
			claimErr = fmt.Errorf("claim %s: %w", t.ID, err)
			break
		}
		if outcome == store.Claimed {
			claims = append(claims, claimed{thread: t, token: token, watermark: wm})
		}
	}
	if claimErr != nil {
		for _, c := range claims {
			_ = st.ReleaseStage1(context.WithoutCancel(ctx), c.thread.ID, c.token)
		}
		return nil, claimErr
	}
	return claims, nil
}

// runClaims runs the claimed jobs on opts.Concurrency workers and returns
// their results in the claims' order, reporting progress as each ends.
func runClaims(ctx context.Context, st Store, opts RunOptions, claims []claimed) []JobResult {
	results := make([]JobResult, len(claims))
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for w := 0; w < min(opts.Concurrency, len(claims)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = runJob(ctx, st, opts, claims[i])
				if opts.Progress != nil {
					mu.Lock()
					done++
					opts.Progress(done, len(claims))
					mu.Unlock()
				}
			}
		}()
	}
	for i := range claims {
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}

// tally counts the jobs' outcomes and usage into the result, jobs sorted
// by thread id.
func (res *RunResult) tally(results []JobResult) {
	for _, r := range results {
		switch r.Status {
		case StatusSucceeded:
			res.Succeeded++
		case StatusSucceededNoOutput:
			res.SucceededNoOutput++
		case StatusFailed:
			res.Failed++
		case StatusReleased:
			res.Released++
		}
		res.Usage = res.Usage.Add(r.Usage)
		res.Quarantined += r.Quarantined
		res.Jobs = append(res.Jobs, r)
	}
	sort.SliceStable(res.Jobs, func(i, j int) bool { return res.Jobs[i].ThreadID < res.Jobs[j].ThreadID })
}

func dryRun(ctx context.Context, st Store, opts RunOptions, cands []store.Thread) (RunResult, error) {
	res := RunResult{Jobs: []JobResult{}, DryRun: true}
	for _, t := range cands {
		if len(res.Jobs) >= opts.MaxClaims {
			break
		}
		if fresh, err := st.UpToDate(ctx, t.ID, t.UpdatedAt.Unix()); err != nil {
			return res, err
		} else if fresh {
			continue
		}
		j := JobResult{ThreadID: t.ID, Status: StatusWouldClaim, Preview: t.Preview}
		contents, err := "", checkLinks(fileOf(t), opts)
		if err == nil {
			contents, err = sessions.PrepareInput(fileOf(t), sessions.InputOptions{Version: string(opts.Version), TokenLimit: opts.TokenLimit, Redact: opts.Redact})
		}
		if err != nil {
			j.Error = err.Error()
		} else {
			system, input, err := Prompt(opts.Version, metaOf(t), contents, opts.TemplateDir)
			if err != nil {
				return res, err
			}
			n := len(system)
			for _, in := range input {
				n += len(in)
			}
			j.ApproxTokens = (n + 3) / 4
		}
		res.ApproxTokens += j.ApproxTokens
		res.Jobs = append(res.Jobs, j)
	}
	return res, nil
}

// runJob extracts one claimed thread and records the outcome.
func runJob(ctx context.Context, st Store, opts RunOptions, c claimed) JobResult {
	r := JobResult{ThreadID: c.thread.ID, Preview: c.thread.Preview}
	// Bookkeeping must survive a cancelled ctx: the claim is given back or
	// the failure recorded even when the user pressed Ctrl-C.
	bg := context.WithoutCancel(ctx)
	if ctx.Err() != nil {
		_ = st.ReleaseStage1(bg, c.thread.ID, c.token)
		r.Status = StatusReleased
		return r
	}
	out, prov, usage, err := extractOne(ctx, st, opts, c.thread)
	r.Usage = usage
	if usage != (model.Usage{}) || opts.Provider != nil {
		_ = st.AddTokenUsage(bg, store.TokenUsage{Stage: "extract", Provider: string(opts.ProviderName), Model: opts.Model, JobKey: c.thread.ID,
			InputTokens: usage.InputTokens, CachedInputTokens: usage.CachedInputTokens, OutputTokens: usage.OutputTokens,
			ReasoningTokens: usage.ReasoningTokens, TotalTokens: usage.TotalTokens, CostUSD: usage.CostUSD})
	}
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			_ = st.ReleaseStage1(bg, c.thread.ID, c.token)
			r.Status = StatusReleased
			return r
		}
		r.Status, r.Error = StatusFailed, err.Error()
		if ferr := st.MarkStage1Failed(bg, c.thread.ID, c.token, err.Error()); ferr != nil {
			r.Error += "; recording the failure: " + ferr.Error()
			giveBack(bg, st, c)
		}
		return r
	}
	var owned bool
	h := holdBack(out, c.thread, prov)
	r.Quarantined, r.Evidence = len(h.quarantine), len(h.evidence)
	if h.out.HasOutput(opts.Version) {
		if opts.Version == memversion.V2 {
			h.out.RawMemory = ""
		}
		owned, err = st.MarkStage1Done(bg, c.thread.ID, c.token, c.watermark, h.result())
		r.Status = StatusSucceeded
	} else {
		owned, err = st.MarkStage1NoOutput(bg, c.thread.ID, c.token)
		r.Status = StatusSucceededNoOutput
	}
	switch {
	case err != nil:
		r.Status, r.Error = StatusFailed, "store the result: "+err.Error()
		// Record the failure, or at least give the claim back, so the
		// thread is not held for the lease's hour (on a full disk every
		// claim would stay running).
		if ferr := st.MarkStage1Failed(bg, c.thread.ID, c.token, r.Error); ferr != nil {
			giveBack(bg, st, c)
		}
	case !owned:
		r.Status, r.Error = StatusFailed, "lost the claim (another process took over the expired lease)"
	}
	return r
}

// giveBack releases a claim whose outcome could not be recorded. When
// even that fails (the database cannot be written at all) the claim stays
// until this process exits; the next run takes it back then
// (ReapAbandoned).
func giveBack(ctx context.Context, st Store, c claimed) {
	_ = st.ReleaseStage1(ctx, c.thread.ID, c.token)
}

// extractOne answers for one thread, with the provenance of the session
// (what it ran, what the human said) that decides which orders in the
// answer are facts and which are held back.
func extractOne(ctx context.Context, st Store, opts RunOptions, t store.Thread) (Output, *provenance, model.Usage, error) {
	f := fileOf(t)
	meta := metaOf(t)
	prov := newProvenance()
	if err := checkLinks(f, opts); err != nil {
		return Output{}, nil, model.Usage{}, fmt.Errorf("read: %w", err)
	}
	if opts.Provider == nil {
		out, err := offline(opts.Version, f, meta, opts.Redact, prov.add)
		return out, prov, model.Usage{}, err
	}
	contents, err := sessions.PrepareInput(f, sessions.InputOptions{Version: string(opts.Version), TokenLimit: opts.TokenLimit, Redact: opts.Redact})
	if err != nil {
		return Output{}, nil, model.Usage{}, fmt.Errorf("read %s: %w", t.Path, err)
	}
	system, input, err := Prompt(opts.Version, meta, contents, opts.TemplateDir)
	if err != nil {
		return Output{}, nil, model.Usage{}, err
	}
	resp, err := opts.Provider.Call(ctx, model.Request{
		Kind: "extract", Model: opts.Model, ReasoningEffort: "low", System: system, Input: input,
		SchemaName: "memory_stage1", Schema: Schema(opts.Version),
	})
	saveRateLimit(ctx, st, string(opts.ProviderName), resp.RateLimit, err, opts.Now)
	if err != nil {
		return Output{}, nil, resp.Usage, err
	}
	out, err := ParseOutput(opts.Version, resp.JSON, opts.Redact)
	if err != nil {
		return out, nil, resp.Usage, err
	}
	// The model read the transcript; reading it again here for what the
	// session ran costs a pass over the file, never a model call.
	if _, err := sessions.Events(f, func(e sessions.Event) error {
		e.Text, e.Command = opts.Redact(e.Text), opts.Redact(e.Command)
		prov.add(e)
		return nil
	}); err != nil {
		return Output{}, nil, resp.Usage, fmt.Errorf("read %s: %w", t.Path, err)
	}
	return out, prov, resp.Usage, nil
}

// saveRateLimit keeps the provider's last rate-limit report for the guard,
// from a success or from a typed provider error.
func saveRateLimit(ctx context.Context, st Store, provider string, rl *model.RateLimit, err error, now func() time.Time) {
	if rl == nil && err != nil {
		var apiErr *model.APIError
		if errors.As(err, &apiErr) {
			rl = apiErr.RateLimit
		}
	}
	if rl == nil {
		return
	}
	state := store.RateLimitState{Provider: provider, RemainingPercent: rl.RemainingPercent, Reached: rl.Reached, ObservedAt: rl.ObservedAt}
	if state.ObservedAt.IsZero() {
		state.ObservedAt = now()
	}
	if !rl.ResetAt.IsZero() {
		reset := rl.ResetAt
		state.ResetAt = &reset
	}
	_ = st.SaveRateLimit(context.WithoutCancel(ctx), state)
}

// checkLinks refuses a transcript swapped for a link out of the sources
// since the scan.
func checkLinks(f sessions.File, opts RunOptions) error {
	if opts.Sources == nil {
		return nil
	}
	return sessions.CheckLinks(f, sessions.SourceRoots(opts.Sources))
}

func fileOf(t store.Thread) sessions.File {
	return sessions.File{Kind: sessions.Kind(t.SourceKind), Path: t.Path, Related: t.Related, Size: t.FileSize,
		ModTime: time.Unix(0, t.FileMtimeNs), Archived: t.Archived}
}

func metaOf(t store.Thread) sessions.Meta {
	return sessions.Meta{ID: t.ID, Kind: sessions.Kind(t.SourceKind), Path: t.Path, Source: t.Source, Interactive: t.Interactive,
		Subagent: t.Subagent, ParentID: t.ParentID, Cwd: t.Cwd, GitBranch: t.GitBranch, GitRemote: t.GitOriginURL, GitSHA: t.GitSHA,
		Preview: t.Preview, Model: t.Model, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt, MemoryMode: t.MemoryMode,
		UsedExternalContext: t.UsedExternalContext, Archived: t.Archived}
}

// Input renders exactly what Phase 1 sends to a model for one thread:
// the system prompt and the user message(s).
func Input(t store.Thread, version memversion.Version, tokenLimit int, redact func(string) string, templateDir string) (string, []string, error) {
	contents, err := sessions.PrepareInput(fileOf(t), sessions.InputOptions{Version: string(version), TokenLimit: tokenLimit, Redact: redact})
	if err != nil {
		return "", nil, err
	}
	return Prompt(version, metaOf(t), contents, templateDir)
}

// GuardStore is the part of the store the rate-limit guard reads.
type GuardStore interface {
	RateLimit(ctx context.Context, provider string) (store.RateLimitState, bool, error)
}

// GuardResult is the rate-limit guard's decision (Codex section 5,
// generalised to the provider's rate-limit headers).
type GuardResult struct {
	Allowed  bool       `json:"allowed"`
	Status   string     `json:"status"` // allowed | skipped_rate_limit | unknown
	Reason   string     `json:"reason,omitempty"`
	Provider model.Kind `json:"provider"`
	Known    bool       `json:"known"`
	Percent  float64    `json:"remaining_percent,omitempty"`
}

// Guard allows Phase 1 unless the provider's last reported quota is below
// minRemainingPercent or exhausted. Nothing known (or the heuristic
// provider, which spends no quota) is allowed, as Codex fails open.
func Guard(ctx context.Context, st GuardStore, provider model.Kind, minRemainingPercent int, now time.Time) (GuardResult, error) {
	g := GuardResult{Allowed: true, Status: "allowed", Provider: provider}
	if provider == "" || provider == model.KindHeuristic {
		return g, nil
	}
	rl, ok, err := st.RateLimit(ctx, string(provider))
	if err != nil || !ok {
		if !ok {
			g.Status = "unknown"
		}
		return g, err
	}
	// A report whose window has reset says nothing about the quota now.
	if rl.ResetAt != nil && !rl.ResetAt.After(now) {
		g.Status = "unknown"
		return g, nil
	}
	g.Known, g.Percent = true, rl.RemainingPercent
	allowed, reason := model.GuardAllows(&model.RateLimit{Provider: string(provider), RemainingPercent: rl.RemainingPercent, Reached: rl.Reached}, minRemainingPercent)
	if !allowed {
		g.Allowed, g.Status, g.Reason = false, "skipped_rate_limit", reason
	}
	return g, nil
}
