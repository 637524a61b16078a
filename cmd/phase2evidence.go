package cmd

import (
	"context"

	"github.com/memctl/memctl/internal/evidence"
	"github.com/memctl/memctl/internal/store"
)

var _ interface {
	Evidence(context.Context, []string) ([]evidence.Record, error)
} = phase2Store{}

// Evidence is what the selected raw memories rest on (consolidate.EvidenceJobs).
func (j phase2Store) Evidence(ctx context.Context, threadIDs []string) ([]evidence.Record, error) {
	sets, err := j.st.Evidence(ctx, threadIDs)
	if err != nil {
		return nil, err
	}
	out := make([]evidence.Record, len(sets))
	for i, s := range sets {
		out[i] = evidenceRecord(s)
	}
	return out, nil
}

// RecordVerdicts stores the outcome of an evidence check.
func (j phase2Store) RecordVerdicts(ctx context.Context, threadID string, items []evidence.Item, verdicts []evidence.Verdict) error {
	states := make([]store.EvidenceState, 0, len(items))
	for i, it := range items {
		states = append(states, store.EvidenceState{Seq: it.Seq, State: verdicts[i].State, Reason: verdicts[i].Reason})
	}
	return j.st.SetEvidenceStates(ctx, threadID, states)
}

// evidenceRecord converts the store's rows to what internal/evidence checks.
func evidenceRecord(s store.EvidenceSet) evidence.Record {
	rec := evidence.Record{ThreadID: s.ThreadID, Commit: s.Commit, RecordedAt: s.RecordedAt}
	for _, it := range s.Items {
		rec.Items = append(rec.Items, evidence.Item{
			Ref: evidence.Ref{Kind: it.Kind, Path: it.RefPath, LineStart: it.LineStart, LineEnd: it.LineEnd, Runner: it.Runner, Target: it.Target},
			Seq: it.Seq, Abs: it.AbsPath, Size: it.Size, ModTimeNs: it.MtimeNs, Hash: it.Hash, Sketch: it.Sketch, RangeHash: it.RangeHash,
		})
	}
	return rec
}
