package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// clock is a settable test clock.
type clock struct{ t atomic.Int64 }

func (c *clock) now() time.Time      { return time.Unix(c.t.Load(), 0).UTC() }
func (c *clock) add(d time.Duration) { c.t.Add(int64(d / time.Second)) }

func newStore(t *testing.T) (*Store, *clock) {
	t.Helper()
	c := &clock{}
	c.t.Store(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC).Unix())
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "home", "memories_1.sqlite"), WithClock(c.now))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, c
}

var ctx = context.Background()

func addThread(t *testing.T, s *Store, id string, updated time.Time) {
	t.Helper()
	_, err := s.UpsertThread(ctx, Thread{ID: id, SourceKind: "codex", Path: "/x/" + id + ".jsonl", Source: "cli",
		Interactive: true, Cwd: "/work/" + id, Preview: "do " + id, CreatedAt: updated, UpdatedAt: updated},
		UpsertPolicy{GenerateMemories: true})
	if err != nil {
		t.Fatal(err)
	}
}

func claim(t *testing.T, s *Store, id string, watermark int64, max int) (ClaimOutcome, string) {
	t.Helper()
	o, tok, err := s.TryClaimStage1(ctx, id, "w", watermark, max)
	if err != nil {
		t.Fatal(err)
	}
	return o, tok
}

func succeed(t *testing.T, s *Store, id, tok string, watermark int64) {
	t.Helper()
	ok, err := s.MarkStage1Succeeded(ctx, id, tok, watermark, "raw "+id, "summary "+id, nil)
	if err != nil || !ok {
		t.Fatalf("succeed %s: %v %v", id, ok, err)
	}
}

func TestOpenCreatesPrivateFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "home")
	s, err := Open(ctx, filepath.Join(dir, "memories_1.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, _ := os.Stat(filepath.Join(dir, "memories_1.sqlite"))
	if st.Mode().Perm() != 0o600 {
		t.Errorf("db mode %v", st.Mode().Perm())
	}
	dst, _ := os.Stat(dir)
	if dst.Mode().Perm() != 0o700 {
		t.Errorf("home mode %v", dst.Mode().Perm())
	}
	var mode string
	s.db.QueryRow("PRAGMA journal_mode").Scan(&mode)
	if mode != "wal" {
		t.Errorf("journal mode %s", mode)
	}
	if res, err := s.IntegrityCheck(ctx); err != nil || res != "ok" {
		t.Errorf("integrity %s %v", res, err)
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	p := filepath.Join(t.TempDir(), "m.sqlite")
	s, err := Open(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	s.db.Exec(fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion()+1))
	s.Close()
	_, err = Open(ctx, p)
	if !errors.Is(err, ErrTooNew) {
		t.Fatalf("want ErrTooNew, got %v", err)
	}
	// Reopening an up-to-date file is a no-op.
	p2 := filepath.Join(t.TempDir(), "m2.sqlite")
	for i := 0; i < 2; i++ {
		s, err := Open(ctx, p2)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
}

func TestStage1ClaimSkipsWhenUpToDate(t *testing.T) {
	s, _ := newStore(t)
	o, tok := claim(t, s, "a", 100, 8)
	if o != Claimed {
		t.Fatal(o)
	}
	succeed(t, s, "a", tok, 100)
	if o, _ := claim(t, s, "a", 100, 8); o != SkippedUpToDate {
		t.Errorf("same watermark: %s", o)
	}
	if o, _ := claim(t, s, "a", 99, 8); o != SkippedUpToDate {
		t.Errorf("older watermark: %s", o)
	}
	if o, _ := claim(t, s, "a", 101, 8); o != Claimed {
		t.Errorf("newer watermark: %s", o)
	}
}

func TestStage1StaleRunningCanBeStolenFreshIsSkipped(t *testing.T) {
	s, c := newStore(t)
	o, oldTok := claim(t, s, "a", 100, 8)
	if o != Claimed {
		t.Fatal(o)
	}
	if o, _ := claim(t, s, "a", 100, 8); o != SkippedRunning {
		t.Errorf("fresh lease: %s", o)
	}
	c.add(Lease + time.Second)
	o, newTok := claim(t, s, "a", 100, 8)
	if o != Claimed || newTok == oldTok {
		t.Fatalf("stale lease not stolen: %s", o)
	}
	if ok, _ := s.MarkStage1Succeeded(ctx, "a", oldTok, 100, "r", "s", nil); ok {
		t.Error("old owner finalized a stolen job")
	}
}

func TestStage1ConcurrentClaimsSameThread(t *testing.T) {
	s, _ := newStore(t)
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o, _, err := s.TryClaimStage1(ctx, "a", "w", 100, 8)
			if err != nil {
				t.Error(err)
			}
			if o == Claimed {
				wins.Add(1)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d goroutines claimed the same thread", wins.Load())
	}
}

// TestStage1ClaimsAcrossProcesses runs this test binary twice more as
// child processes that race to claim the same 40 threads on one file.
func TestStage1ClaimsAcrossProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.sqlite")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	var outs [2][]byte
	var wg sync.WaitGroup
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), "MEMCTL_STORE_CHILD="+path)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("child: %v\n%s", err, out)
			}
			outs[i] = out
		}()
	}
	wg.Wait()
	claimed := map[string]int{}
	for _, out := range outs {
		for _, line := range strings.Split(string(out), "\n") {
			if id, ok := strings.CutPrefix(line, "CLAIMED "); ok {
				claimed[id]++
			}
		}
	}
	if len(claimed) != 40 {
		t.Fatalf("claimed %d distinct threads, want 40", len(claimed))
	}
	for id, n := range claimed {
		if n != 1 {
			t.Errorf("%s claimed %d times", id, n)
		}
	}
}

// TestMain doubles as the child process of TestStage1ClaimsAcrossProcesses.
func TestMain(m *testing.M) {
	if path := os.Getenv("MEMCTL_STORE_CHILD"); path != "" {
		os.Exit(childClaimer(path))
	}
	os.Exit(m.Run())
}

func childClaimer(path string) int {
	s, err := Open(ctx, path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer s.Close()
	for i := 0; i < 40; i++ {
		id := "thread-" + strconv.Itoa(i)
		o, _, err := s.TryClaimStage1(ctx, id, "child", 100, 1000)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if o == Claimed {
			fmt.Println("CLAIMED " + id)
		}
	}
	return 0
}

func TestStage1RunningCap(t *testing.T) {
	s, _ := newStore(t)
	for i := 0; i < 10; i++ {
		if o, _ := claim(t, s, "pre-"+strconv.Itoa(i), 1, 100); o != Claimed {
			t.Fatal(o)
		}
	}
	n := 0
	for i := 0; i < 64; i++ {
		if o, _ := claim(t, s, "new-"+strconv.Itoa(i), 1, 64); o == Claimed {
			n++
		}
	}
	if n != 54 {
		t.Errorf("claimed %d under a cap of 64 with 10 running, want 54", n)
	}
	n = 0
	for i := 0; i < 64; i++ {
		if o, _ := claim(t, s, "more-"+strconv.Itoa(i), 1, 64); o == Claimed {
			n++
		}
	}
	if n != 0 {
		t.Errorf("second pass claimed %d", n)
	}
}

func TestStage1ConcurrentClaimsRespectRunningCap(t *testing.T) {
	s, _ := newStore(t)
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			o, _, err := s.TryClaimStage1(ctx, "t"+strconv.Itoa(i), "w", 1, 5)
			if err != nil {
				t.Error(err)
			}
			if o == Claimed {
				wins.Add(1)
			}
		}(i)
	}
	wg.Wait()
	if wins.Load() != 5 {
		t.Errorf("%d claims under a cap of 5", wins.Load())
	}
}

func TestStage1FailureBackoffAndRetryExhaustion(t *testing.T) {
	s, c := newStore(t)
	for attempt := 0; attempt < 3; attempt++ {
		o, tok := claim(t, s, "a", 100, 8)
		if o != Claimed {
			t.Fatalf("attempt %d: %s", attempt, o)
		}
		if err := s.MarkStage1Failed(ctx, "a", tok, "boom"); err != nil {
			t.Fatal(err)
		}
		if o, _ := claim(t, s, "a", 100, 8); o != SkippedRetryBackoff && attempt < 2 {
			t.Errorf("attempt %d: in backoff got %s", attempt, o)
		}
		c.add(RetryDelay)
	}
	if o, _ := claim(t, s, "a", 100, 8); o != SkippedRetryExhausted {
		t.Errorf("after 3 failures: %s", o)
	}
	j, _ := s.Job(ctx, KindStage1, "a")
	if j.RetryRemaining != 0 || j.LastError != "boom" {
		t.Errorf("job %+v", j)
	}
	// A newer version of the thread resets the budget and skips the backoff.
	if o, _ := claim(t, s, "a", 101, 8); o != Claimed {
		t.Errorf("newer watermark after exhaustion: %s", o)
	}
	j, _ = s.Job(ctx, KindStage1, "a")
	if j.RetryRemaining != 3 {
		t.Errorf("budget not reset: %d", j.RetryRemaining)
	}
}

func TestStage1SuccessEnqueuesGlobal(t *testing.T) {
	s, _ := newStore(t)
	_, tok := claim(t, s, "a", 100, 8)
	succeed(t, s, "a", tok, 100)
	g, err := s.Job(ctx, KindConsolidate, GlobalKey)
	if err != nil {
		t.Fatal(err)
	}
	if g.Status != "pending" || *g.InputWatermark != 100 {
		t.Errorf("global job %+v", g)
	}
	o, err := s.Output(ctx, "a")
	if err != nil || o.RawMemory != "raw a" || o.SourceUpdatedAt != 100 {
		t.Errorf("output %+v %v", o, err)
	}
}

func TestStage1NoOutputEnqueuesOnlyWhenDeleting(t *testing.T) {
	s, _ := newStore(t)
	_, tok := claim(t, s, "a", 100, 8)
	if ok, err := s.MarkStage1NoOutput(ctx, "a", tok); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if _, err := s.Job(ctx, KindConsolidate, GlobalKey); !errors.Is(err, ErrNotFound) {
		t.Errorf("no-output without a prior row enqueued phase 2: %v", err)
	}
	_, tok = claim(t, s, "b", 100, 8)
	succeed(t, s, "b", tok, 100)
	s.db.Exec(`DELETE FROM jobs WHERE kind = ?`, KindConsolidate)
	_, tok = claim(t, s, "b", 200, 8)
	if ok, err := s.MarkStage1NoOutput(ctx, "b", tok); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if _, err := s.Output(ctx, "b"); !errors.Is(err, ErrNotFound) {
		t.Error("prior output not deleted")
	}
	g, err := s.Job(ctx, KindConsolidate, GlobalKey)
	if err != nil || *g.InputWatermark != 200 {
		t.Errorf("deleting no-output did not enqueue with its watermark: %+v %v", g, err)
	}
}

func TestEnqueueGlobalKeepsWatermarkMonotonic(t *testing.T) {
	s, _ := newStore(t)
	s.EnqueueGlobal(ctx, 100)
	s.EnqueueGlobal(ctx, 50)
	g, _ := s.Job(ctx, KindConsolidate, GlobalKey)
	if *g.InputWatermark != 101 {
		t.Errorf("watermark %d, want 101", *g.InputWatermark)
	}
	s.EnqueueGlobal(ctx, 500)
	g, _ = s.Job(ctx, KindConsolidate, GlobalKey)
	if *g.InputWatermark != 500 {
		t.Errorf("watermark %d, want 500", *g.InputWatermark)
	}
}

func TestGlobalLock(t *testing.T) {
	s, c := newStore(t)
	// Creates the missing row with watermark 0.
	g1, err := s.ClaimGlobal(ctx, "w1", false)
	if err != nil || g1.Status != GlobalClaimed || g1.InputWatermark != 0 {
		t.Fatalf("%+v %v", g1, err)
	}
	// Only one fresh runner.
	if g, _ := s.ClaimGlobal(ctx, "w2", false); g.Status != GlobalSkippedRunning {
		t.Errorf("second runner: %s", g.Status)
	}
	if g, _ := s.ClaimGlobal(ctx, "w2", true); g.Status != GlobalSkippedRunning {
		t.Errorf("--force over a live lease: %s", g.Status)
	}
	if ok, _ := s.HeartbeatGlobal(ctx, g1.Token); !ok {
		t.Error("heartbeat lost")
	}
	ok, err := s.SucceedGlobal(ctx, g1.Token, 10, nil)
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	// Cooldown after success; --force skips only the cooldown.
	c.add(time.Hour)
	if g, _ := s.ClaimGlobal(ctx, "w2", false); g.Status != GlobalSkippedCooldown {
		t.Errorf("cooldown: %s", g.Status)
	}
	g2, _ := s.ClaimGlobal(ctx, "w2", true)
	if g2.Status != GlobalClaimed {
		t.Fatalf("--force: %s", g2.Status)
	}
	// Failure: backoff, not cooldown; --force retries now.
	if err := s.FailGlobal(ctx, g2.Token, "bad"); err != nil {
		t.Fatal(err)
	}
	if g, _ := s.ClaimGlobal(ctx, "w3", false); g.Status != GlobalSkippedRetryUnavailable {
		t.Errorf("backoff: %s", g.Status)
	}
	gf, _ := s.ClaimGlobal(ctx, "w3", true)
	if gf.Status != GlobalClaimed {
		t.Fatalf("--force during the backoff: %s", gf.Status)
	}
	if err := s.FailGlobal(ctx, gf.Token, "bad again"); err != nil {
		t.Fatal(err)
	}
	// An enqueue clears the backoff.
	s.EnqueueGlobal(ctx, 20)
	g3, _ := s.ClaimGlobal(ctx, "w3", false)
	if g3.Status != GlobalClaimed || g3.InputWatermark != 20 {
		t.Fatalf("after enqueue: %+v", g3)
	}
	// Stale lease takeover: the old token can no longer finalize.
	c.add(Lease + time.Second)
	g4, _ := s.ClaimGlobal(ctx, "w4", false)
	if g4.Status != GlobalClaimed {
		t.Fatalf("stale takeover: %s", g4.Status)
	}
	if ok, _ := s.SucceedGlobal(ctx, g3.Token, 1, nil); ok {
		t.Error("old token finalized")
	}
	if ok, _ := s.HeartbeatGlobal(ctx, g3.Token); ok {
		t.Error("old token heartbeat")
	}
}

func TestGlobalClaimableAfterRetryBudgetExhausted(t *testing.T) {
	s, c := newStore(t)
	for i := 0; i < 5; i++ {
		g, _ := s.ClaimGlobal(ctx, "w", false)
		if g.Status != GlobalClaimed {
			t.Fatalf("round %d: %s", i, g.Status)
		}
		s.FailGlobal(ctx, g.Token, "x")
		c.add(RetryDelay + time.Second)
	}
	j, _ := s.Job(ctx, KindConsolidate, GlobalKey)
	if j.RetryRemaining != 0 {
		t.Errorf("retry_remaining %d", j.RetryRemaining)
	}
}

func TestFailGlobalFallbackUpdatesUnownedRunningJob(t *testing.T) {
	s, _ := newStore(t)
	s.db.Exec(`INSERT INTO jobs (kind, job_key, status, retry_remaining, lease_until) VALUES (?, ?, 'running', 3, ?)`,
		KindConsolidate, GlobalKey, s.now().Unix()+100)
	if err := s.FailGlobal(ctx, "whatever", "crashed"); err != nil {
		t.Fatal(err)
	}
	j, _ := s.Job(ctx, KindConsolidate, GlobalKey)
	if j.Status != "error" || j.LastError != "crashed" || j.RetryAt == nil {
		t.Errorf("fallback not applied: %+v", j)
	}
}

func TestSucceedGlobalMarksExactSnapshots(t *testing.T) {
	s, _ := newStore(t)
	now := s.now()
	for _, id := range []string{"a", "b"} {
		addThread(t, s, id, now)
		_, tok := claim(t, s, id, 100, 8)
		succeed(t, s, id, tok, 100)
	}
	g, _ := s.ClaimGlobal(ctx, "w", false)
	// b is refreshed while Phase 2 runs.
	_, tok := claim(t, s, "b", 150, 8)
	succeed(t, s, "b", tok, 150)
	ok, err := s.SucceedGlobal(ctx, g.Token, 100, []Snapshot{{"a", 100}, {"b", 100}})
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	a, _ := s.Output(ctx, "a")
	b, _ := s.Output(ctx, "b")
	if !a.SelectedForPhase2 || *a.SelectedForPhase2SourceUpdateAt != 100 {
		t.Errorf("a not selected: %+v", a)
	}
	if b.SelectedForPhase2 {
		t.Error("refreshed b marked selected")
	}
	st, _ := s.Status(ctx)
	if st.MaxThreadCount != 2 {
		t.Errorf("progress %d", st.MaxThreadCount)
	}
}

func TestSelectionRanking(t *testing.T) {
	s, c := newStore(t)
	now := s.now().Unix()
	day := int64(86400)
	type row struct {
		id        string
		updated   int64
		usage     int
		lastUsage int64
		mode      string
	}
	rows := []row{
		{"fresh-unused", now - day, 0, 0, "enabled"},
		{"used-twice", now - 20*day, 2, now - day, "enabled"},
		{"used-once-recent", now - 20*day, 1, now - day, "enabled"},
		{"used-once-older", now - 20*day, 1, now - 5*day, "enabled"},
		{"stale-used", now - day, 3, now - 40*day, "enabled"},
		{"stale-unused", now - 40*day, 0, 0, "enabled"},
		{"polluted", now - day, 5, now - day, "polluted"},
		{"disabled", now - day, 5, now - day, "disabled"},
	}
	for _, r := range rows {
		addThread(t, s, r.id, time.Unix(r.updated, 0))
		_, tok := claim(t, s, r.id, r.updated, 100)
		succeed(t, s, r.id, tok, r.updated)
		if r.usage > 0 {
			s.db.Exec(`UPDATE stage1_outputs SET usage_count = ?, last_usage = ? WHERE thread_id = ?`, r.usage, r.lastUsage, r.id)
		}
		if r.mode != "enabled" {
			s.SetMemoryMode(ctx, r.id, r.mode)
		}
	}
	_ = c
	// These memories were generated when their threads were fresh, so the
	// retention clock is Codex's own (see TestRetentionClockStartsAtGeneration).
	generatedWhenFresh(t, s)
	sel, err := s.Selection(ctx, 3, 30)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range sel {
		got = append(got, x.ThreadID)
	}
	// Top 3 by usage then recency, returned sorted by id.
	want := "used-once-older,used-once-recent,used-twice"
	if strings.Join(got, ",") != want {
		t.Errorf("selection = %v, want %s", got, want)
	}
	sel, _ = s.Selection(ctx, 10, 30)
	got = got[:0]
	for _, x := range sel {
		got = append(got, x.ThreadID)
	}
	if strings.Join(got, ",") != "fresh-unused,used-once-older,used-once-recent,used-twice" {
		t.Errorf("full selection = %v", got)
	}
	if sel[0].Cwd != "/work/fresh-unused" || sel[0].RolloutPath == "" {
		t.Errorf("thread metadata not hydrated: %+v", sel[0])
	}
}

func TestRecordUsage(t *testing.T) {
	s, c := newStore(t)
	for _, id := range []string{"a", "b"} {
		_, tok := claim(t, s, id, 100, 8)
		succeed(t, s, id, tok, 100)
	}
	c.add(time.Minute)
	n, err := s.RecordUsage(ctx, []string{"a", "a", "b", "missing"})
	if err != nil || n != 3 {
		t.Fatalf("rows %d %v", n, err)
	}
	a, _ := s.Output(ctx, "a")
	b, _ := s.Output(ctx, "b")
	if a.UsageCount != 2 || b.UsageCount != 1 || a.LastUsage == nil || !a.LastUsage.Equal(c.now()) {
		t.Errorf("a=%+v b=%+v", a, b)
	}
}

func TestRecordTurnUsageCountsATurnOnce(t *testing.T) {
	s, _ := newStore(t)
	_, tok := claim(t, s, "a", 100, 8)
	succeed(t, s, "a", tok, 100)
	for i, want := range []struct {
		key string
		n   int
		dup bool
	}{{"claude:s:p1", 1, false}, {"claude:s:p1", 0, true}, {"claude:s:p2", 1, false}, {"", 1, false}, {"", 1, false}} {
		n, dup, err := s.RecordTurnUsage(ctx, want.key, []string{"a"})
		if err != nil || n != want.n || dup != want.dup {
			t.Fatalf("call %d (%q): n=%d dup=%v err=%v", i, want.key, n, dup, err)
		}
	}
	if a, _ := s.Output(ctx, "a"); a.UsageCount != 4 {
		t.Errorf("usage_count = %d, want 4", a.UsageCount)
	}
}

func TestPrune(t *testing.T) {
	s, c := newStore(t)
	base := s.now().Unix()
	day := int64(86400)
	for i, age := range []int64{40, 35, 31, 29, 1} {
		id := fmt.Sprintf("t%d", i)
		_, tok := claim(t, s, id, base-age*day, 100)
		succeed(t, s, id, tok, base-age*day)
	}
	generatedWhenFresh(t, s)
	// t0 is in the last baseline; t1 was used recently.
	s.db.Exec(`UPDATE stage1_outputs SET selected_for_phase2 = 1 WHERE thread_id = 't0'`)
	s.db.Exec(`UPDATE stage1_outputs SET last_usage = ? WHERE thread_id = 't1'`, base-day)
	jobsBefore, _ := s.Jobs(ctx)
	ids, err := s.Prune(ctx, 30, PruneLimit, true)
	if err != nil || strings.Join(ids, ",") != "t2" {
		t.Fatalf("dry run %v %v", ids, err)
	}
	if _, err := s.Output(ctx, "t2"); err != nil {
		t.Error("dry run deleted")
	}
	if hits, _ := s.Search(ctx, "raw t2", 10); len(hits) == 0 {
		t.Fatal("t2 not searchable before the prune")
	}
	ids, _ = s.Prune(ctx, 30, PruneLimit, false)
	if strings.Join(ids, ",") != "t2" {
		t.Errorf("pruned %v", ids)
	}
	for _, h := range mustSearch(t, s, "raw t2") {
		if h.ThreadID == "t2" {
			t.Error("a pruned memory is still in the search index")
		}
	}
	jobsAfter, _ := s.Jobs(ctx)
	if len(jobsAfter) != len(jobsBefore) {
		t.Error("prune touched jobs")
	}
	// A pruned thread is not re-extracted until it changes.
	if o, _ := claim(t, s, "t2", base-31*day, 100); o != SkippedUpToDate {
		t.Errorf("pruned thread re-claimable: %s", o)
	}
	// Strict cutoff: exactly at the cutoff is kept.
	c.add(0)
	_, tok := claim(t, s, "edge", base-30*day, 100)
	succeed(t, s, "edge", tok, base-30*day)
	generatedWhenFresh(t, s)
	ids, _ = s.Prune(ctx, 30, PruneLimit, false)
	if len(ids) != 0 {
		t.Errorf("cutoff not strict: %v", ids)
	}
	if ids, _ := s.Prune(ctx, 30, 0, false); ids != nil {
		t.Error("limit 0 pruned")
	}
}

// generatedWhenFresh backdates every raw memory's extraction to its
// thread's update, as if each had been extracted when the thread was new.
func generatedWhenFresh(t *testing.T, s *Store) {
	t.Helper()
	if _, err := s.db.Exec(`UPDATE stage1_outputs SET generated_at = source_updated_at`); err != nil {
		t.Fatal(err)
	}
}

// A memory extracted today from a thread months old starts its unused
// days at the extraction: a first run over a user's history is selected
// and kept, and it ages out max_unused_days later if nobody uses it. Use
// still restarts the clock, and use long ago still excludes (Codex 7.2).
func TestRetentionClockStartsAtGeneration(t *testing.T) {
	s, c := newStore(t)
	day := int64(86400)
	old := s.now().Unix() - 90*day
	for _, id := range []string{"history-a", "history-b", "used-long-ago"} {
		addThread(t, s, id, time.Unix(old, 0))
		_, tok := claim(t, s, id, old, 100)
		succeed(t, s, id, tok, old)
	}
	s.db.Exec(`UPDATE stage1_outputs SET usage_count = 1, last_usage = ? WHERE thread_id = 'used-long-ago'`, old)
	ids := func(sel []Selected) string {
		var out []string
		for _, x := range sel {
			out = append(out, x.ThreadID)
		}
		return strings.Join(out, ",")
	}
	sel, err := s.Selection(ctx, 10, 30)
	if err != nil || ids(sel) != "history-a,history-b" {
		t.Fatalf("selection right after the history run = %q, %v", ids(sel), err)
	}
	if pruned, _ := s.Prune(ctx, 30, PruneLimit, true); strings.Join(pruned, ",") != "used-long-ago" {
		t.Errorf("prune right after the history run would delete %v", pruned)
	}
	// 31 days on, unused: both age out of the selection and are pruned
	// (nothing selected them into a baseline in this test).
	c.add(31 * 24 * time.Hour)
	if sel, _ := s.Selection(ctx, 10, 30); len(sel) != 0 {
		t.Errorf("selection a month later = %q", ids(sel))
	}
	// A use restarts the clock.
	if _, err := s.RecordUsage(ctx, []string{"history-b"}); err != nil {
		t.Fatal(err)
	}
	if sel, _ := s.Selection(ctx, 10, 30); ids(sel) != "history-b" {
		t.Errorf("selection after a use = %q", ids(sel))
	}
	pruned, _ := s.Prune(ctx, 30, PruneLimit, false)
	if strings.Join(pruned, ",") != "used-long-ago,history-a" {
		t.Errorf("pruned %v, want the memory used long ago, then the unused one", pruned)
	}
}

func TestPruneRespectsBatchLimit(t *testing.T) {
	s, _ := newStore(t)
	old := s.now().Add(-100 * 24 * time.Hour).Unix()
	for i := 0; i < 5; i++ {
		_, tok := claim(t, s, fmt.Sprintf("t%d", i), old+int64(i), 100)
		succeed(t, s, fmt.Sprintf("t%d", i), tok, old+int64(i))
	}
	generatedWhenFresh(t, s)
	ids, _ := s.Prune(ctx, 30, 2, false)
	if strings.Join(ids, ",") != "t0,t1" {
		t.Errorf("pruned %v, want the two stalest", ids)
	}
}

func TestClearPreservesThreadModes(t *testing.T) {
	s, _ := newStore(t)
	addThread(t, s, "a", s.now())
	addThread(t, s, "b", s.now())
	s.SetMemoryMode(ctx, "b", "disabled")
	_, tok := claim(t, s, "a", 100, 8)
	succeed(t, s, "a", tok, 100)
	g, _ := s.ClaimGlobal(ctx, "w", false)
	s.SucceedGlobal(ctx, g.Token, 100, []Snapshot{{"a", 100}})
	s.SaveBaseline(ctx, []BaselineFile{{Path: "MEMORY.md", Mode: 0o100644, Content: []byte("x")}})
	if err := s.Clear(ctx); err != nil {
		t.Fatal(err)
	}
	st, _ := s.Status(ctx)
	if st.RawMemories != 0 || len(st.JobCounts) != 0 || st.MaxThreadCount != 0 {
		t.Errorf("not cleared: %+v", st)
	}
	if st.ThreadsByMode["enabled"] != 1 || st.ThreadsByMode["disabled"] != 1 {
		t.Errorf("modes lost: %+v", st.ThreadsByMode)
	}
	if _, ok, _ := s.Baseline(ctx); ok {
		t.Error("baseline kept")
	}
	if hits, _ := s.Search(ctx, "raw", 10); len(hits) != 0 {
		t.Error("search index kept")
	}
}

func TestForgetAndPollutionRequeuePhase2(t *testing.T) {
	s, _ := newStore(t)
	for _, id := range []string{"a", "b"} {
		addThread(t, s, id, s.now())
		_, tok := claim(t, s, id, 100, 8)
		succeed(t, s, id, tok, 100)
	}
	g, _ := s.ClaimGlobal(ctx, "w", false)
	s.SucceedGlobal(ctx, g.Token, 100, []Snapshot{{"a", 100}, {"b", 100}})
	if err := s.ForgetThread(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	j, _ := s.Job(ctx, KindConsolidate, GlobalKey)
	if j.Status != "pending" {
		t.Errorf("forget did not re-queue: %+v", j)
	}
	if _, err := s.Output(ctx, "a"); !errors.Is(err, ErrNotFound) {
		t.Error("output kept")
	}
	if _, err := s.Job(ctx, KindStage1, "a"); !errors.Is(err, ErrNotFound) {
		t.Error("stage-1 job kept")
	}
	th, _ := s.Thread(ctx, "a")
	if th.MemoryMode != "disabled" {
		t.Error(th.MemoryMode)
	}
	// A rescan keeps the user's choice.
	addThread(t, s, "a", s.now())
	th, _ = s.Thread(ctx, "a")
	if th.MemoryMode != "disabled" {
		t.Errorf("rescan overrode the user's mode: %s", th.MemoryMode)
	}
	// Polluting a selected thread through a scan re-queues too.
	s.db.Exec(`UPDATE jobs SET status = 'done' WHERE kind = ?`, KindConsolidate)
	_, err := s.UpsertThread(ctx, Thread{ID: "b", SourceKind: "codex", Path: "/x/b", Preview: "p", UsedExternalContext: true,
		CreatedAt: s.now(), UpdatedAt: s.now()}, UpsertPolicy{GenerateMemories: true, DisableOnExternalContext: true})
	if err != nil {
		t.Fatal(err)
	}
	th, _ = s.Thread(ctx, "b")
	j, _ = s.Job(ctx, KindConsolidate, GlobalKey)
	if th.MemoryMode != "polluted" || j.Status != "pending" {
		t.Errorf("pollution: mode %s job %s", th.MemoryMode, j.Status)
	}
	if err := s.ForgetThread(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("forget unknown: %v", err)
	}
}

func TestGenerateMemoriesFalseStoresDisabled(t *testing.T) {
	s, _ := newStore(t)
	s.UpsertThread(ctx, Thread{ID: "a", Path: "/a", Preview: "x", CreatedAt: s.now(), UpdatedAt: s.now()}, UpsertPolicy{GenerateMemories: false})
	th, _ := s.Thread(ctx, "a")
	if th.MemoryMode != "disabled" {
		t.Error(th.MemoryMode)
	}
}

func TestCandidatesFilterByAgeIdleAndCurrentThread(t *testing.T) {
	s, _ := newStore(t)
	now := s.now()
	addThread(t, s, "old", now.Add(-31*24*time.Hour))
	addThread(t, s, "busy", now.Add(-time.Hour))
	addThread(t, s, "good", now.Add(-13*time.Hour))
	addThread(t, s, "current", now.Add(-13*time.Hour))
	s.UpsertThread(ctx, Thread{ID: "exec", Path: "/e", Source: "exec", Preview: "x", CreatedAt: now, UpdatedAt: now.Add(-13 * time.Hour)}, UpsertPolicy{GenerateMemories: true})
	s.UpsertThread(ctx, Thread{ID: "sub", Path: "/s", Source: `{"subagent":"review"}`, Interactive: false, Subagent: true, Preview: "x", CreatedAt: now, UpdatedAt: now.Add(-13 * time.Hour)}, UpsertPolicy{GenerateMemories: true})
	got, err := s.Candidates(ctx, CandidateFilter{MaxAgeDays: 30, MinIdleHours: 12, InteractiveOnly: true, ExcludeID: "current"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != "good" {
		t.Errorf("candidates = %+v", got)
	}
	got, _ = s.Candidates(ctx, CandidateFilter{AllWindows: true, InteractiveOnly: true})
	if len(got) != 4 {
		t.Errorf("--all candidates = %d", len(got))
	}
}

func TestSearchFollowsOutputs(t *testing.T) {
	s, _ := newStore(t)
	addThread(t, s, "a", s.now())
	_, tok := claim(t, s, "a", 100, 8)
	s.MarkStage1Succeeded(ctx, "a", tok, 100, "the flaky postgres migration needs a retry", "summary of migration work", nil)
	hits, err := s.Search(ctx, "postgres migr", 10)
	if err != nil || len(hits) != 1 || hits[0].ThreadID != "a" || hits[0].Kind != "raw_memory" {
		t.Fatalf("hits %+v %v", hits, err)
	}
	if !strings.Contains(hits[0].Snippet, "[postgres]") {
		t.Errorf("snippet %q", hits[0].Snippet)
	}
	// FTS syntax in user input is inert.
	if _, err := s.Search(ctx, `"unbalanced AND OR NEAR(`, 10); err != nil {
		t.Errorf("query syntax leaked: %v", err)
	}
	s.ReplaceIndexedFiles(ctx, []IndexedFile{{Path: "MEMORY.md", Body: "postgres handbook"}})
	hits, _ = s.Search(ctx, "postgres", 10)
	if len(hits) != 2 {
		t.Errorf("with files: %+v", hits)
	}
	s.ForgetThread(ctx, "a")
	hits, _ = s.Search(ctx, "postgres", 10)
	if len(hits) != 1 || hits[0].Kind != "file" {
		t.Errorf("after forget: %+v", hits)
	}
}

func TestBaselineRoundTrip(t *testing.T) {
	s, _ := newStore(t)
	if _, ok, _ := s.Baseline(ctx); ok {
		t.Fatal("fresh store has a baseline")
	}
	files := []BaselineFile{{Path: "MEMORY.md", Mode: 0o100644, Content: []byte("a")}, {Path: "empty", Mode: 0o100755}}
	s.SaveBaseline(ctx, files)
	got, ok, err := s.Baseline(ctx)
	if err != nil || !ok || len(got) != 2 || string(got[0].Content) != "a" || got[1].Mode != 0o100755 {
		t.Errorf("%+v %v %v", got, ok, err)
	}
	s.SaveBaseline(ctx, nil)
	got, ok, _ = s.Baseline(ctx)
	if !ok || len(got) != 0 {
		t.Errorf("empty baseline: %v %v", got, ok)
	}
}

func TestActivityRecords(t *testing.T) {
	s, _ := newStore(t)
	s.AddTokenUsage(ctx, TokenUsage{Stage: "extract", Provider: "openai", InputTokens: 10, OutputTokens: 5, TotalTokens: 15})
	s.AddTokenUsage(ctx, TokenUsage{Stage: "extract", Provider: "openai", InputTokens: 1, OutputTokens: 1, TotalTokens: 2})
	s.RecordStageRun(ctx, StageRun{Stage: "prune", StartedAt: s.now(), FinishedAt: s.now(), Status: "ok"})
	s.SaveRateLimit(ctx, RateLimitState{Provider: "openai", RemainingPercent: 40, ObservedAt: s.now()})
	st, err := s.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Spend) != 1 || st.Spend[0].TotalTokens != 17 || len(st.StageRuns) != 1 || len(st.RateLimits) != 1 {
		t.Errorf("status %+v", st)
	}
	r, ok, _ := s.RateLimit(ctx, "openai")
	if !ok || r.RemainingPercent != 40 {
		t.Errorf("rate limit %+v", r)
	}
}

func TestThreadPrefixLookup(t *testing.T) {
	s, _ := newStore(t)
	addThread(t, s, "019e1625-789d-76c0-80ab-3724b5ddb799", s.now())
	if th, err := s.Thread(ctx, "019e1625"); err != nil || th.ID != "019e1625-789d-76c0-80ab-3724b5ddb799" {
		t.Errorf("%v %v", th.ID, err)
	}
	if _, err := s.Thread(ctx, "01"); !errors.Is(err, ErrNotFound) {
		t.Error("short prefix matched")
	}
}

func mustSearch(t *testing.T, s *Store, q string) []Hit {
	t.Helper()
	hits, err := s.Search(ctx, q, 50)
	if err != nil {
		t.Fatal(err)
	}
	return hits
}
