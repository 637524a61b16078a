package store

import (
	"testing"
	"time"
)

// TestFirstRunBacklog: a version is before its first run until it
// extracts a session of its own (an imported memory does not count); the
// first backlog recorded stays; it is open until finished; clear puts the
// version back before its first run.
func TestFirstRunBacklog(t *testing.T) {
	s, c := newStore(t)
	never := func(want bool) {
		t.Helper()
		if got, err := s.NeverExtracted(ctx); err != nil || got != want {
			t.Errorf("NeverExtracted = %v, %v; want %v", got, err, want)
		}
	}
	never(true)
	at := c.now().Add(-time.Hour)
	if _, err := s.ImportMemory(ctx, PortableMemory{ThreadID: "remote-1", SourceUpdatedAt: at.Unix(), GeneratedAt: at.Unix(),
		RawMemory: "use make itest", RolloutSummary: "# itest", SourceKind: "codex", Cwd: "/laptop/app", Preview: "run the tests",
		CreatedAt: at, UpdatedAt: at}, "laptop-1"); err != nil {
		t.Fatal(err)
	}
	never(true) // a machine that synced first still has its own history to take

	if b, err := s.Backlog(ctx); b != nil || err != nil || b.Open() {
		t.Fatalf("before the first run: %+v, %v", b, err)
	}
	until := c.now()
	b, err := s.StartBacklog(ctx, until, 17)
	if err != nil || !b.Open() || !b.Until.Equal(until) || b.Sessions != 17 {
		t.Fatalf("started: %+v, %v", b, err)
	}
	never(false)
	// Another process's first run, a second later, keeps the first one's.
	c.add(time.Second)
	if b, err := s.StartBacklog(ctx, c.now(), 3); err != nil || !b.Until.Equal(until) || b.Sessions != 17 {
		t.Errorf("a second start replaced the backlog: %+v, %v", b, err)
	}
	if err := s.FinishBacklog(ctx); err != nil {
		t.Fatal(err)
	}
	if b, _ := s.Backlog(ctx); b == nil || b.Open() || b.TakenAt == nil {
		t.Errorf("finished: %+v", b)
	}
	if err := s.Clear(ctx); err != nil {
		t.Fatal(err)
	}
	never(true)

	memWith(t, s, "here", c.now().Unix())
	never(false) // extracted without a backlog (--max, --thread): no first run later
}
