package store

import (
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/owner"
)

// deadOwner returns an owner id naming this host and a process that has
// exited: what a killed memctl leaves in its leases.
func deadOwner(t *testing.T) string {
	t.Helper()
	c := exec.Command("/bin/sh", "-c", "exit 0")
	if err := c.Run(); err != nil {
		t.Skipf("no shell to make a dead process: %v", err)
	}
	parts := strings.Split(owner.ID(), "/")
	parts[2] = strconv.Itoa(c.Process.Pid)
	return strings.Join(parts, "/")
}

// After a disk-full extract, 51 jobs stayed running for an hour
// and the next run said "claimed by another process".
func TestReapAbandonedFreesClaimsOfExitedProcesses(t *testing.T) {
	s, _ := newStore(t)
	dead, live := deadOwner(t), owner.ID()
	for _, id := range []string{"t-dead", "t-live", "t-next"} {
		addThread(t, s, id, time.Unix(100, 0))
	}
	if o, _, err := s.TryClaimStage1(ctx, "t-dead", dead, 100, 2); err != nil || o != Claimed {
		t.Fatalf("claim by the dead owner: %s %v", o, err)
	}
	if o, _, err := s.TryClaimStage1(ctx, "t-live", live, 100, 2); err != nil || o != Claimed {
		t.Fatalf("claim by this process: %s %v", o, err)
	}
	// The dead owner's claim counts against the running cap until reaped.
	if o, _ := claim(t, s, "t-next", 100, 2); o != SkippedRunning {
		t.Fatalf("third claim under a cap of 2: %s", o)
	}
	if o, _ := claim(t, s, "t-dead", 100, 3); o != SkippedRunning {
		t.Fatalf("before reaping, the dead owner's thread: %s", o)
	}
	held, err := s.HeldLeases(ctx)
	if err != nil || len(held) != 2 {
		t.Fatalf("held leases: %+v %v", held, err)
	}
	for _, h := range held {
		if want := h.WorkerID == dead; h.Gone != want {
			t.Errorf("lease of %s held by %s: Gone = %v, want %v", h.Key, h.WorkerID, h.Gone, want)
		}
	}

	n, err := s.ReapAbandoned(ctx)
	if err != nil || n != 1 {
		t.Fatalf("ReapAbandoned = %d, %v; want 1", n, err)
	}
	j, _ := s.Job(ctx, KindStage1, "t-dead")
	if j.Status != "pending" || j.LeaseUntil != nil || j.RetryRemaining != DefaultRetries || !strings.Contains(j.LastError, "abandoned: process ") {
		t.Errorf("reaped job: %+v", j)
	}
	if o, _ := claim(t, s, "t-dead", 100, 3); o != Claimed {
		t.Errorf("after reaping, the dead owner's thread: %s", o)
	}
	if o, _ := claim(t, s, "t-live", 100, 3); o != SkippedRunning {
		t.Errorf("a live owner's thread: %s", o)
	}
}

// The consolidation lock stayed held after its process exited,
// so even --force was skipped.
func TestClaimGlobalTakesBackTheLockOfAnExitedProcess(t *testing.T) {
	s, _ := newStore(t)
	g, err := s.ClaimGlobal(ctx, owner.ID(), false)
	if err != nil || g.Status != GlobalClaimed {
		t.Fatalf("%+v %v", g, err)
	}
	if g2, _ := s.ClaimGlobal(ctx, "w2", true); g2.Status != GlobalSkippedRunning {
		t.Fatalf("a live holder's lock: %s", g2.Status)
	}
	if err := s.ReleaseGlobal(ctx, g.Token); err != nil {
		t.Fatal(err)
	}
	dead := deadOwner(t)
	g, err = s.ClaimGlobal(ctx, dead, false)
	if err != nil || g.Status != GlobalClaimed {
		t.Fatalf("%+v %v", g, err)
	}
	held, _ := s.HeldLeases(ctx)
	if len(held) != 1 || held[0].Kind != KindConsolidate || !held[0].Gone {
		t.Errorf("held leases: %+v", held)
	}
	g2, err := s.ClaimGlobal(ctx, "w2", false)
	if err != nil || g2.Status != GlobalClaimed {
		t.Fatalf("the lock of an exited process, without --force: %+v %v", g2, err)
	}
	if ok, _ := s.HeartbeatGlobal(ctx, g.Token); ok {
		t.Error("the exited holder's token still owns the lock")
	}
}

// Of two parallel runs, the first consolidated none of the raw
// memories the second was extracting, and the six-hour cooldown then kept
// them out of the folder.
func TestRawMemoryMissedByAConsolidationSkipsTheCooldown(t *testing.T) {
	s, c := newStore(t)
	for _, id := range []string{"early", "during", "after"} {
		addThread(t, s, id, time.Unix(100, 0))
	}
	// "early" is claimed (a second process extracts it) before the
	// consolidation claims the lock...
	_, tokEarly := claim(t, s, "early", 100, 8)
	c.add(time.Second)
	g, err := s.ClaimGlobal(ctx, "consolidator", false)
	if err != nil || g.Status != GlobalClaimed {
		t.Fatalf("%+v %v", g, err)
	}
	// ...and "during" lands while it runs.
	_, tokDuring := claim(t, s, "during", 100, 8)
	c.add(time.Second)
	succeed(t, s, "during", tokDuring, 100)
	if ok, _, err := s.CommitGlobal(ctx, GlobalCommit{Token: g.Token, Watermark: 1, RequestsUpTo: g.RequestsUpTo()}); err != nil || !ok {
		t.Fatal(ok, err)
	}
	reqs, _ := s.ConsolidationRequests(ctx)
	if len(reqs) != 1 || reqs[0].Reason != MissedRequest || reqs[0].Regenerate {
		t.Fatalf("after a landing during the consolidation: %+v", reqs)
	}
	// "early" lands after the consolidation finished; it was in flight
	// the whole time. One request stays open, newer than the first.
	c.add(time.Minute)
	succeed(t, s, "early", tokEarly, 100)
	reqs2, _ := s.ConsolidationRequests(ctx)
	if len(reqs2) != 1 || reqs2[0].ID <= reqs[0].ID {
		t.Fatalf("after a landing of a job claimed before the consolidation: %+v", reqs2)
	}
	g2, err := s.ClaimGlobal(ctx, "consolidator", false)
	if err != nil || g2.Status != GlobalClaimed {
		t.Fatalf("a consolidation that missed raw memories must not hold the cooldown: %+v %v", g2, err)
	}
	if ok, _, err := s.CommitGlobal(ctx, GlobalCommit{Token: g2.Token, Watermark: 1, RequestsUpTo: g2.RequestsUpTo()}); err != nil || !ok {
		t.Fatal(ok, err)
	}
	// New work claimed after the consolidation waits for the cooldown, as
	// in Codex.
	c.add(time.Minute)
	_, tokAfter := claim(t, s, "after", 100, 8)
	c.add(time.Minute)
	succeed(t, s, "after", tokAfter, 100)
	if reqs, _ := s.ConsolidationRequests(ctx); len(reqs) != 0 {
		t.Errorf("a job claimed after the consolidation asked for another: %+v", reqs)
	}
	if g3, _ := s.ClaimGlobal(ctx, "consolidator", false); g3.Status != GlobalSkippedCooldown {
		t.Errorf("new work after the consolidation: %s, want the cooldown", g3.Status)
	}
}

// "disk I/O error (4874)" must say the disk is full.
func TestWriteOnAFullDiskSaysSo(t *testing.T) {
	s, _ := newStore(t)
	addThread(t, s, "t1", time.Unix(100, 0))
	// A real SQLITE_FULL: one connection, capped at the pages it has.
	s.db.SetMaxOpenConns(1)
	var pages int
	if err := s.db.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(ctx, "PRAGMA max_page_count = "+strconv.Itoa(pages+1)); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("a memory that does not fit ", 20000)
	write := func() error {
		_, tok := claim(t, s, "t1", 100, 8)
		_, err := s.MarkStage1Succeeded(ctx, "t1", tok, 100, big, big, nil)
		s.db.ExecContext(ctx, "DELETE FROM jobs")
		return err
	}

	s.freeBytes = func(string) (uint64, bool) { return 12 << 10, true }
	err := write()
	if !errors.Is(err, ErrDiskFull) {
		t.Fatalf("write with 12 KiB left: %v, want ErrDiskFull", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "the disk holding ") || !strings.Contains(msg, "is full (12 KiB free)") {
		t.Errorf("message: %s", msg)
	}

	// The same SQLITE_FULL with room on the disk is a page limit (or a
	// full temporary directory), not this disk.
	s.freeBytes = func(string) (uint64, bool) { return 50 << 30, true }
	if err := write(); err == nil || errors.Is(err, ErrDiskFull) {
		t.Errorf("write with 50 GiB left: %v, want SQLite's error as it is", err)
	}
	// Where the space cannot be read, SQLite's word is taken.
	s.freeBytes = func(string) (uint64, bool) { return 0, false }
	if err := write(); !errors.Is(err, ErrDiskFull) || strings.Contains(err.Error(), "free)") {
		t.Errorf("write, free space unknown: %v", err)
	}
}
