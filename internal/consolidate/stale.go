package consolidate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/memctl/memctl/internal/evidence"
	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memmodel"
)

// evidenceKeeper is implemented by a [Jobs] that keeps what each raw memory
// rests on (the store does). With it, a run checks the evidence of the
// selection before the consolidator runs, demotes or drops the memories
// whose evidence changed (docs/stale.md), records the verdicts and writes
// the folder's evidence index for `memctl summary`. Without it, no
// memory is ever stale.
type evidenceKeeper interface {
	// Evidence returns the recorded evidence of the given raw memories;
	// a memory without any may be left out.
	Evidence(ctx context.Context, threadIDs []string) ([]evidence.Record, error)
	// RecordVerdicts stores the outcome of a check of one memory's items
	// (verdicts[i] is items[i]'s).
	RecordVerdicts(ctx context.Context, threadID string, items []evidence.Item, verdicts []evidence.Verdict) error
}

// staleCheck is the evidence of a run's selection and its verdicts.
type staleCheck struct {
	records map[string]evidence.Record // by thread id
	stale   map[string]memmodel.Stale  // by thread id
}

// checkEvidence checks what the selected memories rest on. A run goes on
// without the check when the store cannot answer: a stale flag is a
// hint, never a reason to fail a consolidation.
func (r *runner) checkEvidence(ctx context.Context, selected []Selected) *staleCheck {
	sc := &staleCheck{records: map[string]evidence.Record{}, stale: map[string]memmodel.Stale{}}
	ej, ok := r.jobs.(evidenceKeeper)
	if !ok || len(selected) == 0 {
		return sc
	}
	ids := make([]string, len(selected))
	for i, s := range selected {
		ids[i] = s.ThreadID
	}
	recs, err := ej.Evidence(ctx, ids)
	if err != nil {
		fmt.Fprintf(r.log, "memctl: warning: read the evidence of the selection: %v; no memory is checked for staleness\n", err)
		return sc
	}
	checker := &evidence.Checker{RewriteThreshold: r.opts.RewriteThreshold}
	for _, rec := range recs {
		sc.records[rec.ThreadID] = rec
		if len(rec.Items) == 0 {
			continue
		}
		verdicts := make([]evidence.Verdict, len(rec.Items))
		for i, it := range rec.Items {
			verdicts[i] = checker.Check(it)
		}
		a := evidence.AssessVerdicts(rec, verdicts)
		if a.Stale() {
			sc.stale[rec.ThreadID] = memmodel.Stale{Problems: a.Problems, Gone: a.Gone}
		}
		if !r.opts.DryRun {
			if err := ej.RecordVerdicts(ctx, rec.ThreadID, rec.Items, verdicts); err != nil {
				fmt.Fprintf(r.log, "memctl: warning: record the evidence check of %s: %v\n", rec.ThreadID, err)
			}
		}
	}
	return sc
}

// writeEvidenceIndex writes the folder's evidence index from the records
// of the selection. A failure is a warning: without an index, summary
// flags nothing, as before stale checks existed.
func (r *runner) writeEvidenceIndex(selected []Selected, sc *staleCheck) {
	var recs []evidence.Record
	for _, s := range selected {
		rec, ok := sc.records[s.ThreadID]
		if !ok || len(rec.Items) == 0 {
			continue
		}
		rec.Scope = scopeOf(s)
		rec.Cwd = s.Cwd
		rec.RolloutFile = memdir.RolloutSummariesDir + "/" + memdir.RolloutSummaryStem(s.ThreadID, s.SourceUpdatedAt, s.RolloutSlug) + ".md"
		rec.Description = memmodel.Describe(s)
		if st, ok := sc.stale[s.ThreadID]; ok {
			rec.Handled = evidence.HandledDemoted
			if st.Gone {
				rec.Handled = evidence.HandledDropped
			}
		}
		recs = append(recs, rec)
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].ThreadID < recs[j].ThreadID })
	path := filepath.Join(r.opts.Root, memdir.EvidenceIndexFile)
	if len(recs) == 0 {
		// Nothing to check: no file, rather than an empty one.
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(r.log, "memctl: warning: remove the evidence index: %v\n", err)
		}
		return
	}
	if err := evidence.WriteIndex(path, recs); err != nil {
		fmt.Fprintf(r.log, "memctl: warning: write the evidence index: %v\n", err)
	}
}

// scopeOf is the project a memory belongs to, as the project layer keys
// it, so a summary scoped to one project checks that project's memories.
func scopeOf(s Selected) string {
	mems := memmodel.Parse([]Selected{s})
	return mems[0].Project().Key
}
