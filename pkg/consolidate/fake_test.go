package consolidate

import (
	"context"
	"fmt"
	"sync"
	"time"
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
	nextToken    int
	selection    []Selected
	selected     []Selected // recorded by SucceedGlobal
	baseline     []BaselineFile
	hasBaseline  bool
	fails        []string
	succeeds     int
	heartbeats   int
	loseOnBeat   int // HeartbeatGlobal reports not-owned from this call on (0: never)
	selectionErr error
	beatErr      error
}

var _ Jobs = (*fakeJobs)(nil)

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
		case !ignoreCooldown && f.lastError == "" && f.finishedAt.After(now.Add(-6*time.Hour)):
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
	return Claim{Status: ClaimClaimed, Token: f.token, InputWatermark: f.watermark}, nil
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

func (f *fakeJobs) SucceedGlobal(ctx context.Context, token string, wm int64, sel []Selected) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.owned(token) {
		return false, nil
	}
	f.status = "done"
	f.finishedAt = f.now()
	f.lastError = ""
	f.lastSuccess = max(f.lastSuccess, wm)
	f.selected = append([]Selected(nil), sel...)
	f.succeeds++
	return true, nil
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

func (f *fakeJobs) SaveBaseline(ctx context.Context, files []BaselineFile) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.baseline = append([]BaselineFile(nil), files...)
	f.hasBaseline = true
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
