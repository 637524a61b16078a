package consolidate

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/memctl/memctl/internal/store"
)

// fakeJobs is an in-memory Jobs with Codex's global-lock rules: 1 h lease,
// 1 h failure backoff, 6 h success cooldown.
type fakeJobs struct {
	mu  sync.Mutex
	now func() time.Time

	exists       bool
	status       string // running, done, error
	token        string
	leaseUntil   time.Time
	retryAt      time.Time
	finishedAt   time.Time
	lastError    string
	watermark    int64
	lastSuccess  int64
	leftEmpty    bool // the last success had nothing to consolidate: no cooldown
	nextToken    int
	selection    []Selected
	selected     []Selected // recorded by SucceedGlobal
	baseline     []BaselineFile
	hasBaseline  bool
	fails        []string
	succeeds     int
	heartbeats   int
	releases     int
	loseOnBeat   int // HeartbeatGlobal reports not-owned from this call on (0: never)
	selectionErr error
	beatErr      error

	// History.
	gens       []fakeGeneration
	nextGen    int64
	landing    *store.Landing
	lands      int
	forgotten  map[string]time.Time
	requests   []string // open requests (reasons)
	regenerate bool
	answered   int64 // requests up to this index were answered by a commit
}

var _ History = (*fakeJobs)(nil)

func newFakeJobs(now func() time.Time) *fakeJobs { return &fakeJobs{now: now} }

func (f *fakeJobs) ClaimGlobal(ctx context.Context, worker string, ignoreCooldown bool) (Claim, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	if f.exists {
		switch {
		case f.retryAt.After(now):
			return Claim{Status: ClaimRetryUnavailable}, nil
		case f.status == "running" && f.leaseUntil.After(now):
			return Claim{Status: ClaimRunning}, nil
		case !ignoreCooldown && int64(len(f.requests)) <= f.answered && f.lastError == "" && !f.leftEmpty && f.finishedAt.After(now.Add(-6*time.Hour)):
			return Claim{Status: ClaimCooldown}, nil
		}
	}
	f.exists = true
	f.nextToken++
	f.token = fmt.Sprintf("tok-%d", f.nextToken)
	f.status = "running"
	f.leaseUntil = now.Add(time.Hour)
	f.retryAt = time.Time{}
	f.lastError = ""
	f.finishedAt = time.Time{}
	c := Claim{Status: claimClaimed, Token: f.token, InputWatermark: f.watermark}
	if int64(len(f.requests)) > f.answered {
		c.Requests = f.requests[f.answered:]
		c.RequestsUpTo = int64(len(f.requests))
		c.Regenerate = f.regenerate
	}
	return c, nil
}

func (f *fakeJobs) owned(token string) bool { return f.status == "running" && f.token == token }

func (f *fakeJobs) HeartbeatGlobal(ctx context.Context, token string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.heartbeats++
	if f.beatErr != nil {
		return false, f.beatErr
	}
	if f.loseOnBeat > 0 && f.heartbeats >= f.loseOnBeat {
		// Simulate a takeover: another worker claimed the expired lease.
		f.token = "stolen"
		f.leaseUntil = f.now().Add(time.Hour)
	}
	if !f.owned(token) {
		return false, nil
	}
	f.leaseUntil = f.now().Add(time.Hour)
	return true, nil
}

func (f *fakeJobs) Commit(ctx context.Context, c Commit) (bool, int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.owned(c.Token) {
		return false, 0, nil
	}
	f.status = "done"
	f.finishedAt = f.now()
	f.lastError = ""
	f.leftEmpty = c.Empty
	f.lastSuccess = max(f.lastSuccess, c.Watermark)
	f.selected = append([]Selected(nil), c.Selected...)
	f.succeeds++
	f.answered = max(f.answered, c.RequestsUpTo)
	if f.answered >= int64(len(f.requests)) {
		f.regenerate = false
	}
	if c.Baseline != nil {
		f.baseline = append([]BaselineFile(nil), c.Baseline...)
		f.hasBaseline = true
	}
	var id int64
	if c.Generation != nil {
		id = f.addGeneration(*c.Generation, store.GenerationApproved)
	}
	return true, id, nil
}

func (f *fakeJobs) FailGlobal(ctx context.Context, token, reason string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.owned(token) {
		return nil
	}
	f.status = "error"
	f.finishedAt = f.now()
	f.retryAt = f.now().Add(time.Hour)
	f.lastError = reason
	f.fails = append(f.fails, reason)
	return nil
}

func (f *fakeJobs) Selection(ctx context.Context, n, maxUnusedDays int) ([]Selected, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.selectionErr != nil {
		return nil, f.selectionErr
	}
	out := append([]Selected(nil), f.selection...)
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out, nil
}

func (f *fakeJobs) Baseline(ctx context.Context) ([]BaselineFile, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]BaselineFile(nil), f.baseline...), f.hasBaseline, nil
}

// The History half of the fake: generations in memory, as the store
// keeps them (files, inputs, states, the landing journal).

type fakeGeneration struct {
	store.Generation
	files  []BaselineFile
	inputs []store.GenerationInput
	diff   string
}

func (f *fakeJobs) addGeneration(g store.NewGeneration, state string) int64 {
	f.nextGen++
	gen := fakeGeneration{Generation: g.Generation, files: append([]BaselineFile(nil), g.Files...), inputs: g.Inputs, diff: g.WorkspaceDiff}
	gen.ID, gen.State = f.nextGen, state
	if gen.Kind == "" {
		gen.Kind = store.GenerationConsolidation
	}
	f.gens = append(f.gens, gen)
	return gen.ID
}

func (f *fakeJobs) gen(id int64) (*fakeGeneration, bool) {
	for i := range f.gens {
		if f.gens[i].ID == id {
			return &f.gens[i], true
		}
	}
	return nil, false
}

func (f *fakeJobs) Pend(ctx context.Context, p store.GlobalPend) (bool, int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.owned(p.Token) {
		return false, 0, nil
	}
	for _, g := range f.gens {
		if g.State == store.GenerationPending {
			return true, 0, errors.New("already pending")
		}
	}
	f.status = "pending"
	return true, f.addGeneration(p.Generation, store.GenerationPending), nil
}

func (f *fakeJobs) PendingGeneration(ctx context.Context) (store.Generation, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, g := range f.gens {
		if g.State == store.GenerationPending {
			return g.Generation, true, nil
		}
	}
	return store.Generation{}, false, nil
}

func (f *fakeJobs) ReleaseGlobal(ctx context.Context, token string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.owned(token) {
		f.status = "pending"
		f.releases++
	}
	return nil
}

func (f *fakeJobs) Generation(ctx context.Context, id int64) (store.Generation, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	g, ok := f.gen(id)
	if !ok {
		return store.Generation{}, errNotKept
	}
	out := g.Generation
	// As the store does: the newest approved generation is the current one.
	for i := len(f.gens) - 1; i >= 0; i-- {
		if f.gens[i].State == store.GenerationApproved {
			out.Current = f.gens[i].ID == id
			break
		}
	}
	return out, nil
}

var errNotKept = errors.New("generation not kept")

func (f *fakeJobs) GenerationFiles(ctx context.Context, id int64) ([]BaselineFile, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	g, ok := f.gen(id)
	if !ok {
		return nil, errNotKept
	}
	return append([]BaselineFile(nil), g.files...), nil
}

func (f *fakeJobs) GenerationInputs(ctx context.Context, id int64) ([]store.GenerationInput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	g, ok := f.gen(id)
	if !ok {
		return nil, errNotKept
	}
	return g.inputs, nil
}

func (f *fakeJobs) Forgotten(ctx context.Context, ids []string) (map[string]time.Time, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]time.Time{}
	for _, id := range ids {
		if t, ok := f.forgotten[id]; ok {
			out[id] = t
		}
	}
	return out, nil
}

func (f *fakeJobs) BeginLanding(ctx context.Context, token, action string, id int64) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.owned(token) {
		return false, nil
	}
	f.landing = &store.Landing{Action: action, GenerationID: id, StartedAt: f.now()}
	return true, nil
}

func (f *fakeJobs) CancelLanding(ctx context.Context, token string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.owned(token) {
		f.landing = nil
	}
	return nil
}

func (f *fakeJobs) UnfinishedLanding(ctx context.Context) (store.Landing, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.landing == nil {
		return store.Landing{}, false, nil
	}
	return *f.landing, true, nil
}

func (f *fakeJobs) LandGeneration(ctx context.Context, l store.Land) (bool, int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	g, ok := f.gen(l.GenerationID)
	if !ok {
		return false, 0, errNotKept
	}
	if !f.owned(l.Token) {
		return false, 0, nil
	}
	id := g.ID
	switch l.Action {
	case store.LandApprove:
		if g.State != store.GenerationPending {
			return false, 0, errors.New("not pending")
		}
		g.State = store.GenerationApproved
	case store.LandRollback:
		src := *g
		id = f.addGeneration(store.NewGeneration{Generation: store.Generation{Kind: store.GenerationRollback, RestoredFrom: src.ID, Mode: src.Mode},
			Files: src.files, Inputs: src.inputs}, store.GenerationApproved)
	}
	g, _ = f.gen(id)
	f.status = "done"
	f.finishedAt = f.now()
	f.baseline = append([]BaselineFile(nil), g.files...)
	f.hasBaseline = true
	f.selected = nil
	for _, in := range g.inputs {
		f.selected = append(f.selected, Selected{ThreadID: in.ThreadID, SourceUpdatedAt: in.SourceUpdatedAt})
	}
	f.landing = nil
	f.lands++
	return true, id, nil
}

func (f *fakeJobs) RejectedProposal(ctx context.Context, diff string) (int64, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := len(f.gens) - 1; i >= 0; i-- {
		if g := f.gens[i]; g.State == store.GenerationRejected && g.diff == diff {
			return g.ID, true, nil
		}
	}
	return 0, false, nil
}

func (f *fakeJobs) RequestConsolidation(ctx context.Context, reason string, regenerate bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, reason)
	f.regenerate = f.regenerate || regenerate
	return nil
}

// clock is a settable time source for tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}
