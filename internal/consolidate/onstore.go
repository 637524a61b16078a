package consolidate

import (
	"context"
	"time"

	"github.com/memctl/memctl/internal/evidence"
	"github.com/memctl/memctl/internal/store"
)

// OnStore is Phase 2 on a memory store: the lock, the selection, the
// baseline, the generations and the evidence of the selected memories.
// Phase 2 works on the store's own records; only the claim and the commit,
// whose shapes are Phase 2's, are translated here.
func OnStore(st *store.Store) History { return storeHistory{storeJobs{st: st, generations: true}} }

// JobsOnStore is Phase 2 on a store without history or evidence: every
// run commits at once and records no generation, and no memory is checked
// against the disk (the regret replay's scratch store).
func JobsOnStore(st *store.Store) Jobs { return storeJobs{st: st} }

type storeJobs struct {
	st *store.Store
	// generations: a commit records the run's generation (and trims the
	// history); without, it only lands the run.
	generations bool
}

// storeHistory adds the generations, the requests and the evidence.
type storeHistory struct{ storeJobs }

// backupRefresher is a store that keeps a recent backup of itself.
type backupRefresher interface {
	// RefreshBackup replaces the backup when it is older than a day.
	RefreshBackup(ctx context.Context) error
}

// RefreshBackup keeps the database's backup at most store.BackupInterval
// old. A consolidation calls it before it takes the lock and changes
// anything: one copy a day at most (two consolidations starting at once
// may both copy; the last rename wins, and each copy is whole).
func (j storeHistory) RefreshBackup(ctx context.Context) error {
	_, err := j.st.RefreshBackup(ctx, store.BackupInterval)
	return err
}

var (
	_ backupRefresher = storeHistory{}
	_ History         = storeHistory{}
	_ requestWatcher  = storeHistory{}
	_ evidenceKeeper  = storeHistory{}
)

func (j storeJobs) ClaimGlobal(ctx context.Context, worker string, force bool) (Claim, error) {
	c, err := j.st.ClaimGlobal(ctx, worker, force)
	out := Claim{Status: Status(c.Status), Token: c.Token, InputWatermark: c.InputWatermark,
		RequestsUpTo: c.RequestsUpTo(), Regenerate: c.Regenerate()}
	for _, r := range c.Requests {
		out.Requests = append(out.Requests, r.Reason)
	}
	return out, err
}

func (j storeJobs) HeartbeatGlobal(ctx context.Context, token string) (bool, error) {
	return j.st.HeartbeatGlobal(ctx, token)
}

func (j storeJobs) FailGlobal(ctx context.Context, token, reason string) error {
	return j.st.FailGlobal(ctx, token, reason)
}

func (j storeJobs) Selection(ctx context.Context, n, maxUnusedDays int) ([]Selected, error) {
	return j.st.Selection(ctx, n, maxUnusedDays)
}

func (j storeJobs) NoteMarks(ctx context.Context) (map[string]store.NoteMark, error) {
	return j.st.NoteMarks(ctx)
}

func (j storeJobs) Baseline(ctx context.Context) ([]BaselineFile, bool, error) {
	return j.st.Baseline(ctx)
}

func (j storeJobs) Commit(ctx context.Context, c Commit) (bool, int64, error) {
	snaps := make([]store.Snapshot, len(c.Selected))
	for i, s := range c.Selected {
		snaps[i] = store.Snapshot{ThreadID: s.ThreadID, SourceUpdatedAt: s.SourceUpdatedAt}
	}
	commit := store.GlobalCommit{Token: c.Token, Watermark: c.Watermark, Selected: snaps,
		RequestsUpTo: c.RequestsUpTo, Baseline: c.Baseline, LeftMemoryEmpty: c.Empty}
	if j.generations {
		commit.Generation, commit.Keep = c.Generation, c.Keep
	}
	return j.st.CommitGlobal(ctx, commit)
}

func (j storeHistory) Pend(ctx context.Context, p store.GlobalPend) (bool, int64, error) {
	return j.st.PendGlobal(ctx, p)
}

func (j storeHistory) PendingGeneration(ctx context.Context) (store.Generation, bool, error) {
	return j.st.PendingGeneration(ctx)
}

func (j storeHistory) ReleaseGlobal(ctx context.Context, token string) error {
	return j.st.ReleaseGlobal(ctx, token)
}

func (j storeHistory) Generation(ctx context.Context, id int64) (store.Generation, error) {
	return j.st.Generation(ctx, id)
}

func (j storeHistory) GenerationFiles(ctx context.Context, id int64) ([]BaselineFile, error) {
	return j.st.GenerationFiles(ctx, id)
}

func (j storeHistory) GenerationInputs(ctx context.Context, id int64) ([]store.GenerationInput, error) {
	return j.st.GenerationInputs(ctx, id)
}

func (j storeHistory) Forgotten(ctx context.Context, ids []string) (map[string]time.Time, error) {
	return j.st.Forgotten(ctx, ids)
}

func (j storeHistory) BeginLanding(ctx context.Context, token, action string, id int64) (bool, error) {
	return j.st.BeginLanding(ctx, token, action, id)
}

func (j storeHistory) CancelLanding(ctx context.Context, token string) error {
	return j.st.CancelLanding(ctx, token)
}

func (j storeHistory) UnfinishedLanding(ctx context.Context) (store.Landing, bool, error) {
	return j.st.UnfinishedLanding(ctx)
}

func (j storeHistory) LandGeneration(ctx context.Context, l store.Land) (bool, int64, error) {
	return j.st.LandGeneration(ctx, l)
}

func (j storeHistory) RejectedProposal(ctx context.Context, workspaceDiff string) (int64, bool, error) {
	return j.st.RejectedProposal(ctx, workspaceDiff)
}

func (j storeHistory) RequestConsolidation(ctx context.Context, reason string, regenerate bool) error {
	return j.st.RequestConsolidation(ctx, reason, regenerate)
}

// RequestsAfter counts the consolidation requests made after id.
func (j storeHistory) RequestsAfter(ctx context.Context, id int64) (int, error) {
	reqs, err := j.st.ConsolidationRequests(ctx)
	n := 0
	for _, r := range reqs {
		if r.ID > id {
			n++
		}
	}
	return n, err
}

// Evidence is what the selected raw memories rest on, as internal/evidence
// checks it.
func (j storeHistory) Evidence(ctx context.Context, threadIDs []string) ([]evidence.Record, error) {
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
func (j storeHistory) RecordVerdicts(ctx context.Context, threadID string, items []evidence.Item, verdicts []evidence.Verdict) error {
	states := make([]store.EvidenceState, 0, len(items))
	for i, it := range items {
		states = append(states, store.EvidenceState{Seq: it.Seq, State: verdicts[i].State, Reason: verdicts[i].Reason})
	}
	return j.st.SetEvidenceStates(ctx, threadID, states)
}

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
