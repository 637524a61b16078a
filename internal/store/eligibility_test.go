package store

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestCandidateRulesAgreeWithTheQuery runs the candidate query and the
// rules' Go predicates over one table of threads, under several filters:
// a thread is a candidate exactly when every rule that applies holds.
func TestCandidateRulesAgreeWithTheQuery(t *testing.T) {
	s, _ := newStore(t)
	now := s.now()
	hour := time.Hour
	base := Thread{SourceKind: "codex", Source: "cli", Interactive: true, Preview: "fix the build", MemoryMode: "enabled"}
	threads := map[string]func(*Thread){
		"fresh-idle":     func(th *Thread) { th.UpdatedAt = now.Add(-13 * hour) },
		"busy":           func(th *Thread) { th.UpdatedAt = now.Add(-hour) },
		"idle-edge":      func(th *Thread) { th.UpdatedAt = now.Add(-12 * hour) },
		"age-edge":       func(th *Thread) { th.UpdatedAt = now.Add(-30 * 24 * hour) },
		"too-old":        func(th *Thread) { th.UpdatedAt = now.Add(-31 * 24 * hour) },
		"exec":           func(th *Thread) { th.Source, th.Interactive = "exec", false },
		"sub-agent":      func(th *Thread) { th.Source, th.Interactive, th.Subagent = `{"subagent":"review"}`, false, true },
		"sub-agent-tty":  func(th *Thread) { th.Subagent = true },
		"archived":       func(th *Thread) { th.Archived = true },
		"no-preview":     func(th *Thread) { th.Preview = "" },
		"disabled":       func(th *Thread) { th.MemoryMode = "disabled" },
		"polluted":       func(th *Thread) { th.MemoryMode = "polluted" },
		"imported":       func(th *Thread) { th.SourceKind = SourceImported },
		"in-memories":    func(th *Thread) { th.Cwd = "/home/u/.memctl/memories" },
		"under-memories": func(th *Thread) { th.Cwd = "/home/u/.memctl/memories/sub" },
		"beside-memory":  func(th *Thread) { th.Cwd = "/home/u/.memctl/memories-old" },
	}
	for id, change := range threads {
		th := base
		th.ID, th.Path, th.Cwd = id, "/x/"+id+".jsonl", "/work/"+id
		th.UpdatedAt = now.Add(-20 * hour)
		change(&th)
		th.CreatedAt = th.UpdatedAt
		if _, err := s.UpsertThread(ctx, th, UpsertPolicy{GenerateMemories: true}); err != nil {
			t.Fatal(err)
		}
	}
	stored, err := s.ListThreads(ctx, ThreadFilter{})
	if err != nil || len(stored) != len(threads) {
		t.Fatalf("%d threads stored of %d: %v", len(stored), len(threads), err)
	}
	filters := map[string]CandidateFilter{
		"codex defaults": {MaxAgeDays: 30, MinIdleHours: 12, InteractiveOnly: true, ExcludeCwdUnder: []string{"/home/u/.memctl/memories/"}},
		"all windows":    {AllWindows: true, InteractiveOnly: true},
		"every source":   {MaxAgeDays: 30, MinIdleHours: 12},
		"no idle wait":   {MaxAgeDays: 1, MinIdleHours: 0, ExcludeCwdUnder: []string{"", "/home/u/.memctl/memories"}},
		// The first run's past sessions, up to the edge of the oldest:
		// the windows leave them alone; a newer session keeps them.
		"backlog at an edge": {MaxAgeDays: 30, MinIdleHours: 12, InteractiveOnly: true, BacklogUntil: now.Add(-31 * 24 * hour)},
		"backlog before now": {MaxAgeDays: 30, MinIdleHours: 12, InteractiveOnly: true, BacklogUntil: now.Add(-90 * time.Minute)},
	}
	for name, f := range filters {
		got, err := s.Candidates(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var fromSQL, fromGo []string
		for _, th := range got {
			fromSQL = append(fromSQL, th.ID)
		}
		for _, tw := range stored {
			if eligibleByRules(tw.Thread, f, now) {
				fromGo = append(fromGo, tw.ID)
			}
		}
		slices.Sort(fromSQL)
		slices.Sort(fromGo)
		if !slices.Equal(fromSQL, fromGo) {
			t.Errorf("%s: the query claims %v, the rules say %v", name, fromSQL, fromGo)
		}
		if len(fromSQL) == 0 {
			t.Errorf("%s: no candidate at all; the table does not exercise the filter", name)
		}
		if !f.BacklogUntil.IsZero() && (!slices.Contains(fromSQL, "too-old") || slices.Contains(fromSQL, "busy")) {
			t.Errorf("%s: candidates %v; want the too-old past session in and the busy session, newer than the backlog, out", name, fromSQL)
		}
	}
}

func eligibleByRules(th Thread, f CandidateFilter, now time.Time) bool {
	for _, r := range CandidateRules() {
		if r.Window && f.AllWindows {
			continue
		}
		if !r.Holds(th, f, now) {
			return false
		}
	}
	return true
}

// TestClaimRulesAgreeWithTheClaim runs the claim (TryClaimStage1, whose
// SQL is built from ClaimRules) and the rules' Go predicates over one
// table of jobs: a job is claimed exactly when every rule holds, and a
// refused claim names the outcome of the rule that failed.
func TestClaimRulesAgreeWithTheClaim(t *testing.T) {
	s, _ := newStore(t)
	now := s.now().Unix()
	const wm = 1000 // the thread's version being claimed
	type row struct {
		status                string
		lease, retryAt        any // nil or unix seconds
		remaining             int
		inWatermark, lastSucc any
		outputAt              int64 // 0: no raw memory
	}
	cases := map[string]row{
		"no job":                       {},
		"raw memory covers it":         {outputAt: wm},
		"raw memory of an older one":   {outputAt: wm - 1},
		"succeeded on this version":    {status: "done", remaining: 3, inWatermark: wm, lastSucc: wm},
		"running, live lease":          {status: "running", lease: now + 60, remaining: 3, inWatermark: wm},
		"running, lease gone":          {status: "running", lease: now - 60, remaining: 3, inWatermark: wm},
		"failed, backing off":          {status: "error", retryAt: now + 60, remaining: 2, inWatermark: wm},
		"failed, backing off, changed": {status: "error", retryAt: now + 60, remaining: 2, inWatermark: wm - 1},
		"failed, backoff over":         {status: "error", retryAt: now - 60, remaining: 2, inWatermark: wm},
		"out of retries":               {status: "error", retryAt: now - 60, remaining: 0, inWatermark: wm},
		"out of retries, changed":      {status: "error", retryAt: now - 60, remaining: 0, inWatermark: wm - 1},
		"out of retries, backing off":  {status: "error", retryAt: now + 60, remaining: 0, inWatermark: wm},
		"never took a version":         {status: "pending", remaining: 3},
	}
	seen := map[ClaimOutcome]bool{}
	for name, c := range cases {
		id := strings.ReplaceAll(name, " ", "-")
		if c.status != "" {
			if _, err := s.db.Exec(`INSERT INTO jobs (kind, job_key, status, lease_until, retry_at, retry_remaining, input_watermark, last_success_watermark)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, KindStage1, id, c.status, c.lease, c.retryAt, c.remaining, c.inWatermark, c.lastSucc); err != nil {
				t.Fatal(err)
			}
		}
		if c.outputAt != 0 {
			if _, err := s.db.Exec(`INSERT INTO stage1_outputs (thread_id, source_updated_at, raw_memory, rollout_summary, generated_at) VALUES (?, ?, 'm', 's', ?)`,
				id, c.outputAt, now); err != nil {
				t.Fatal(err)
			}
		}
		state := ClaimState{Watermark: wm, Now: now}
		if j, err := s.Job(ctx, KindStage1, id); err == nil {
			state.Job = &j
		}
		if o, err := s.Output(ctx, id); err == nil {
			state.Output = &o
		}
		want := Claimed
		for _, r := range ClaimRules() {
			if !r.Holds(state) {
				want = whyNotClaimed(state)
				if r.Name == CheckUpToDate {
					want = r.Outcome
				}
				break
			}
		}
		got, _, err := s.TryClaimStage1(ctx, id, "w", wm, 100)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s: the claim says %s, the rules say %s", name, got, want)
		}
		seen[got] = true
	}
	for _, o := range []ClaimOutcome{Claimed, SkippedUpToDate, SkippedRunning, SkippedRetryBackoff, SkippedRetryExhausted} {
		if !seen[o] {
			t.Errorf("no job of the table ends %s: it does not exercise that rule", o)
		}
	}
}
