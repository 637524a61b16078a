package pipeline

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/memctl/memctl/internal/consolidate"
	"github.com/memctl/memctl/internal/extract"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/scan"
	"github.com/memctl/memctl/internal/store"
)

// MemoryRoots are the memory folders of every version: sessions run there
// are agent consolidations and are not extracted.
func MemoryRoots(memoryRoot func(memversion.Version) (string, error)) []string {
	var out []string
	for _, v := range memversion.All() {
		if r, err := memoryRoot(v); err == nil {
			out = append(out, r)
			// Review runs and dry runs consolidate in copies there.
			if s := consolidate.StagingRoot(r); !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// MergeExtract adds up the extraction of every version into one result
// (a single version's is returned as it is).
func MergeExtract(rs []extract.RunResult) extract.RunResult {
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

// ExtractStage is Phase 1 of one memory version, its options resolved
// (windows, limits, provider, the first-run plan).
type ExtractStage struct {
	Store   *store.Store
	Options extract.RunOptions
	// Provider names what answers, for the stage record.
	Provider Provider
	// AllWindows and Only are --all and --thread, which WhyNotClaimed
	// applies as the claim did.
	AllWindows bool
	Only       []string
	Progress   Progress
}

// Extract claims and extracts s's threads, then counts why the others were
// not claimed and records the stage run (a dry run records nothing).
func Extract(ctx context.Context, s ExtractStage) (extract.RunResult, error) {
	ro := s.Options
	done := func() {}
	if !ro.DryRun {
		ro.Progress, done = s.Progress.start("extracting "+ro.Version.String(), "threads")
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

// ResolveThreads turns the ids or unique prefixes of --thread into full
// ids, as `threads show` takes them, and the current thread's into its
// full id when it names a thread (else it is kept as given: the host's
// live session may not be indexed yet).
func ResolveThreads(ctx context.Context, st *store.Store, only []string, current string) ([]string, string, error) {
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

// ExtractFunc extracts one version from its scanned store: the caller
// resolves the run's options there (its flags, the rate-limit guard, a
// first run's question to the user) and calls Extract.
type ExtractFunc func(ctx context.Context, st *store.Store, version memversion.Version) (extract.RunResult, error)

// ExtractVersion scans a version's store, then extracts it with fn, on
// one handle. The scan's result is returned for the caller to report.
func ExtractVersion(ctx context.Context, open OpenStore, version memversion.Version, scanStage ScanStage, fn ExtractFunc) (extract.RunResult, scan.Result, error) {
	st, err := open(ctx, version)
	if err != nil {
		return extract.RunResult{}, scan.Result{}, err
	}
	defer st.Close()
	scanned, err := Scan(ctx, st, scanStage)
	if err != nil {
		return extract.RunResult{}, scanned, err
	}
	res, err := fn(ctx, st, version)
	return res, scanned, err
}

// ExtractVersions runs ExtractVersion for every version, the first first,
// and returns their extractions added up (MergeExtract) with the first
// version's scan (every version scans the same sources). The first error
// stops the loop.
func ExtractVersions(ctx context.Context, open OpenStore, versions []memversion.Version, scanStage ScanStage, fn ExtractFunc) (extract.RunResult, scan.Result, error) {
	var results []extract.RunResult
	var first scan.Result
	for i, v := range versions {
		res, scanned, err := ExtractVersion(ctx, open, v, scanStage, fn)
		if err != nil {
			return extract.RunResult{}, first, err
		}
		if i == 0 {
			first = scanned
		}
		results = append(results, res)
	}
	return MergeExtract(results), first, nil
}
