package pipeline

import (
	"context"
	"errors"
	"fmt"

	"github.com/memctl/memctl/internal/english"
	"github.com/memctl/memctl/internal/extract"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/scan"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/store"
)

// mergeExtract adds up the extraction of every version into one result
// (a single version's is returned as it is).
func mergeExtract(rs []extract.RunResult) extract.RunResult {
	if len(rs) == 1 {
		return rs[0]
	}
	out := extract.RunResult{Jobs: []extract.JobResult{}, NotClaimed: map[string]int{}}
	for _, r := range rs {
		for k, n := range r.NotClaimed {
			out.NotClaimed[k] += n
		}
		out.Claimed += r.Claimed
		out.Succeeded += r.Succeeded
		out.SucceededNoOutput += r.SucceededNoOutput
		out.Failed += r.Failed
		out.Released += r.Released
		out.Jobs = append(out.Jobs, r.Jobs...)
		out.Usage = out.Usage.Add(r.Usage)
		out.ApproxTokens += r.ApproxTokens
		out.DryRun = r.DryRun
		if r.Skipped != "" {
			out.Skipped = r.Skipped
		}
	}
	return out
}

// extractStage is Phase 1 of one memory version, its options resolved
// (windows, limits, provider, the first-run plan).
type extractStage struct {
	Store   *store.Store
	Options extract.RunOptions
	// Provider names what answers, for the stage record.
	Provider Provider
	// AllWindows and Only are --all and --thread, which WhyNotClaimed
	// applies as the claim did.
	AllWindows bool
	Only       []string
	Reporter   Reporter
}

// runExtract claims and extracts s's threads, then counts why the others
// were not claimed and records the stage run (a dry run records nothing).
func runExtract(ctx context.Context, s extractStage) (extract.RunResult, error) {
	ro := s.Options
	done := func() {}
	if !ro.DryRun {
		ro.Progress, done = s.Reporter.Progress("extracting "+ro.Version.String(), "threads")
	}
	started := ro.Now()
	res, err := extract.Run(ctx, s.Store, ro)
	done()
	if err == nil {
		claimed := make([]string, 0, len(res.Jobs))
		for _, j := range res.Jobs {
			claimed = append(claimed, j.ThreadID)
		}
		w := ro.Filter
		w.AllWindows, w.ThreadIDs, w.ExcludeID = false, nil, ""
		if res.NotClaimed, err = extract.WhyNotClaimed(ctx, s.Store, w, s.AllWindows, claimed, s.Only, ro.Now()); err != nil {
			return res, err
		}
	}
	if !ro.DryRun {
		status := "ok"
		switch {
		case errors.Is(err, context.Canceled):
			status = "interrupted"
		case err != nil:
			status = "failed"
		case res.Failed > 0:
			status = "partial"
		}
		recordStage(context.WithoutCancel(ctx), s.Store, "extract", started, ro.Now(), status,
			fmt.Sprintf("%s via %s: claimed %d, succeeded %d, no output %d, failed %d", ro.Version, s.Provider.Kind, res.Claimed, res.Succeeded, res.SucceededNoOutput, res.Failed))
	}
	return res, err
}

// ThreadIDError is an id given for a thread that names none (or several):
// Err is the store's ErrNotFound or *AmbiguousError.
type ThreadIDError struct {
	ID  string
	Err error
}

func (e *ThreadIDError) Error() string { return fmt.Sprintf("thread %q: %v", e.ID, e.Err) }
func (e *ThreadIDError) Unwrap() error { return e.Err }

// resolveThreads turns the ids or unique prefixes of --thread into full
// ids, as `threads show` takes them, and the current thread's into its
// full id when it names a thread (else it is kept as given: the host's
// live session may not be indexed yet).
func resolveThreads(ctx context.Context, st *store.Store, only []string, current string) ([]string, string, error) {
	ids := make([]string, 0, len(only))
	for _, id := range only {
		t, err := st.Thread(ctx, id)
		if err != nil {
			return nil, "", &ThreadIDError{ID: id, Err: err}
		}
		ids = append(ids, t.ID)
	}
	if current != "" {
		if t, err := st.Thread(ctx, current); err == nil {
			current = t.ID
		}
	}
	return ids, current, nil
}

// ExtractRequest is what a command asks of Phase 1: its flags.
type ExtractRequest struct {
	// All drops the age and idle windows (--all).
	All bool
	// Max claims at most this many threads; 0 is
	// memories.max_rollouts_per_startup.
	Max int
	// Threads are the ids, or unique prefixes, of the only threads to
	// extract (--thread).
	Threads []string
	// CurrentThread is never extracted (--current-thread): the host
	// agent's live session.
	CurrentThread string
	// DryRun claims nothing and calls no model: it lists what would be
	// claimed with approximate token counts.
	DryRun bool
	// Yes takes a first run's whole backlog with a model provider without
	// asking (see firstRun).
	Yes bool
}

// backlogAnswer is whether a person took a first run's whole backlog.
type backlogAnswer struct{ yes bool }

// Extract scans the sources into every version's store and runs Phase 1
// on each, the first first. It returns the extractions added up
// (mergeExtract) and the first version's scan (every version scans the
// same sources). The first error stops the loop.
func (h *Home) Extract(ctx context.Context, req ExtractRequest) (extract.RunResult, scan.Result, error) {
	plan, err := h.Plan(PhaseExtract)
	if err != nil {
		return extract.RunResult{}, scan.Result{}, err
	}
	var results []extract.RunResult
	var first scan.Result
	for i, v := range h.Versions() {
		res, scanned, err := h.scanAndExtract(ctx, plan, v, req, !req.DryRun)
		if err != nil {
			return extract.RunResult{}, first, err
		}
		if i == 0 {
			first = scanned
		}
		results = append(results, res)
	}
	return mergeExtract(results), first, nil
}

// scanAndExtract scans a version's store, then extracts it, on one
// handle; guard checks the rate-limit guard first (a run checks it
// before both phases itself).
func (h *Home) scanAndExtract(ctx context.Context, plan Plan, version memversion.Version, req ExtractRequest, guard bool) (extract.RunResult, scan.Result, error) {
	st, err := h.OpenStore(ctx, version)
	if err != nil {
		return extract.RunResult{}, scan.Result{}, err
	}
	defer st.Close()
	scanned, err := h.scanStore(ctx, st, plan.Redact)
	if err != nil {
		return extract.RunResult{}, scanned, err
	}
	res, err := h.extractStore(ctx, st, plan, version, req, guard)
	return res, scanned, err
}

// ExtractStore runs Phase 1 on an open store of version, without a scan
// (eval's replay, which scans once, first).
func (h *Home) ExtractStore(ctx context.Context, st *store.Store, version memversion.Version, req ExtractRequest) (extract.RunResult, error) {
	plan, err := h.Plan(PhaseExtract)
	if err != nil {
		return extract.RunResult{}, err
	}
	return h.extractStore(ctx, st, plan, version, req, !req.DryRun)
}

// extractStore extracts one memory version from its scanned store: the
// guard (when asked), the threads named, the claim's window and limit,
// a first run's backlog, then the stage.
func (h *Home) extractStore(ctx context.Context, st *store.Store, plan Plan, version memversion.Version, req ExtractRequest, guard bool) (extract.RunResult, error) {
	prov := plan.Extract
	if guard {
		g, err := extract.Guard(ctx, st, prov.Kind, h.cfg.Memories.MinRateLimitRemainingPercent, h.Now())
		if err != nil {
			return extract.RunResult{}, err
		}
		if !g.Allowed {
			h.env.Reporter.Guarded(version, g, false)
			return extract.RunResult{Jobs: []extract.JobResult{}, Skipped: g.Status, NotClaimed: map[string]int{}}, nil
		}
	}
	threadIDs, current, err := resolveThreads(ctx, st, req.Threads, req.CurrentThread)
	if err != nil {
		return extract.RunResult{}, err
	}
	maxClaims := h.cfg.Memories.MaxRolloutsPerStartup
	if req.Max > 0 {
		maxClaims = req.Max
	}
	filter := h.Window(req.All)
	filter.ThreadIDs, filter.ExcludeID = threadIDs, current
	if maxClaims > store.CandidateScanLimit {
		filter.Limit = maxClaims // --max past the usual scan limit looks at as many
	}
	ro := extract.RunOptions{
		Version: version, Provider: prov.Provider, ProviderName: prov.Kind, Model: prov.Model, Filter: filter,
		MaxClaims: maxClaims, Concurrency: h.cfg.Extract.Concurrency, TokenLimit: h.cfg.TokenLimit(), Redact: plan.Redact,
		TemplateDir: h.cfg.Templates.Dir, WorkerID: h.env.WorkerID, DryRun: req.DryRun, Now: h.env.Now,
		Sources: h.Sources(), // never nil: links are checked
	}
	if ro.Sources == nil {
		ro.Sources = []sessions.Source{}
	}
	backlog, err := h.firstRun(ctx, st, prov, req, &ro)
	if err != nil {
		return extract.RunResult{}, err
	}
	res, err := runExtract(ctx, extractStage{Store: st, Options: ro, Provider: prov, AllWindows: req.All, Only: threadIDs, Reporter: h.env.Reporter})
	if err == nil && backlog != nil && !req.DryRun {
		err = finishBacklog(ctx, st, ro.Filter, h.Now())
	}
	return res, err
}

// firstRun applies the first-run rule (see firstrun.go) to a version's
// extraction: while its backlog is open, the past sessions pass the
// windows and the limit grows by their number (unless --max or --thread
// say what to take); a version that never extracted starts its first
// run (not with --max or --thread), recorded in the store before
// anything is claimed: at once with the offline heuristic, which costs
// nothing; with a model provider only after the estimate of the input
// tokens is shown and accepted (req.Yes, or a yes from the Reporter).
// Without that the run keeps the usual limits and says how to take the
// rest. The question is asked once per Home, for every version. It
// returns the first run the extraction is under, or nil.
func (h *Home) firstRun(ctx context.Context, st *store.Store, prov Provider, req ExtractRequest, ro *extract.RunOptions) (*FirstRun, error) {
	fr, wide, err := firstRunOf(ctx, st, ro.Filter, ro.MaxClaims, h.Now(), prov.Provider != nil)
	if err != nil || fr == nil {
		return nil, err
	}
	rep := h.env.Reporter
	n := fr.PastSessions
	chosen := req.Max > 0 || len(ro.Filter.ThreadIDs) > 0 // the flags say what to take
	take := func() {
		ro.Filter = wide
		if !chosen {
			ro.MaxClaims += n
		}
	}
	later := fmt.Sprintf("later runs take sessions idle for %s, updated within %s, %d at a time",
		english.Count(ro.Filter.MinIdleHours, "hour", "hours"), english.Count(ro.Filter.MaxAgeDays, "day", "days"), h.cfg.Memories.MaxRolloutsPerStartup)
	switch {
	case fr.State == FirstRunContinues:
		if n > 0 && !chosen {
			rep.Infof("memctl: first run, continued: %s the %s it has not taken yet; %s", verb(ro.DryRun), english.Count(n, "past session", "past sessions"), later)
		}
		take()
		return fr, nil
	case chosen:
		return nil, nil // --max and --thread take what they say: no first run starts
	case fr.State == FirstRunNext:
		if n > fr.UsualTake {
			rep.Infof("memctl: first run: %s all %s with the offline heuristic; %s", verb(ro.DryRun), english.Count(n, "past session", "past sessions"), later)
		}
		take()
		return fr, h.startBacklog(ctx, st, fr, ro.DryRun)
	}
	// FirstRunAsks: a model provider, and more past sessions than the
	// usual windows take.
	estimate, err := h.backlogEstimate(ctx, st, prov, *ro, wide, n)
	if err != nil {
		return nil, err
	}
	if ro.DryRun {
		rep.Infof("memctl: first run: a run would ask before extracting all %s", estimate)
		take()
		return fr, nil
	}
	if h.backlog == nil {
		h.backlog = &backlogAnswer{yes: h.askBacklog(req, estimate)}
		if !h.backlog.yes {
			rep.Infof("memctl: first run: taking %d of %s now (memories.max_rollouts_per_startup and the age and idle windows)", fr.UsualTake, estimate)
			rep.Infof("memctl: hint: `memctl run --all --max %d` extracts them all (so does --yes on a first run); `memctl extract --dry-run --all --max %d` lists them with their tokens", n, n)
		}
	}
	if !h.backlog.yes {
		return nil, nil
	}
	take()
	return fr, h.startBacklog(ctx, st, fr, false)
}

// verb is how a first-run message says what the run does.
func verb(dryRun bool) string {
	if dryRun {
		return "would extract"
	}
	return "extracting"
}

// startBacklog records a first run's backlog before anything is claimed,
// so that whatever stops the run, the next ones take the rest (a dry run
// records nothing).
func (h *Home) startBacklog(ctx context.Context, st *store.Store, fr *FirstRun, dryRun bool) error {
	if dryRun {
		return nil
	}
	_, err := st.StartBacklog(ctx, fr.Until, fr.PastSessions)
	return err
}

// backlogEstimate says what taking every past session would send the
// model: measured as a dry run measures it.
func (h *Home) backlogEstimate(ctx context.Context, st *store.Store, prov Provider, ro extract.RunOptions, wide store.CandidateFilter, n int) (string, error) {
	dry := ro
	dry.Filter, dry.MaxClaims, dry.DryRun, dry.Progress = wide, n, true, nil
	res, err := extract.Run(ctx, st, dry)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s, about %d input tokens for %s", english.Count(n, "past session", "past sessions"), res.ApproxTokens, prov.Label()), nil
}

// askBacklog is whether to take a first run's whole backlog: yes with
// req.Yes, else what the person the Reporter asks answers.
func (h *Home) askBacklog(req ExtractRequest, estimate string) bool {
	if req.Yes {
		h.env.Reporter.Infof("memctl: first run: extracting all %s (--yes)", estimate)
		return true
	}
	return h.env.Reporter.Confirm(fmt.Sprintf("first run: %s. Extract them all now?", estimate))
}

// Preview is what Phase 1 of the first generated version would claim and
// send, as `extract --dry-run` lists it (the scan included), telling the
// Reporter nothing: what `memctl run` shows before it spends anything.
func (h *Home) Preview(ctx context.Context, req ExtractRequest) (extract.RunResult, error) {
	plan, err := h.Plan(PhaseExtract)
	if err != nil {
		return extract.RunResult{}, err
	}
	quiet := *h
	quiet.env.Reporter = Quiet{}
	req.DryRun = true
	res, _, err := quiet.scanAndExtract(ctx, plan, h.Versions()[0], req, false)
	return res, err
}
