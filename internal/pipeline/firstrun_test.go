package pipeline

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/store"
)

// monthsLater is the clock of a home whose sessions (writeSessions: 1
// January) are two months old: outside the ten-day window.
func monthsLater() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }

// oldHome is a v1 home, offline, one extraction at a time, over dir's
// store and the JSONL sessions in src.
func oldHome(dir, src string, rep Reporter) *Home {
	cfg := config.Default()
	cfg.Provider.Kind = "heuristic"
	cfg.Extract.Concurrency = 1
	cfg.Sources = []config.Source{{Kind: "jsonl", Path: src}}
	return New(cfg, Env{Dir: dir, Now: monthsLater, Reporter: rep})
}

// interrupter is a Reporter that cancels the run once n extractions are
// done, as Ctrl-C would.
type interrupter struct {
	Quiet
	n      int
	cancel context.CancelFunc
}

func (r *interrupter) Progress(string, string) (func(int, int), func()) {
	return func(done, _ int) {
		if done >= r.n {
			r.cancel()
		}
	}, func() {}
}

// TestInterruptedFirstRunIsFinished: a first run over six sessions two
// months old, stopped after two, leaves four; the next extraction takes
// those four (the windows would take none), and status (Candidacy) and
// threads show (Explain) say so before it runs. Then the backlog is taken
// and the windows hold again.
func TestInterruptedFirstRunIsFinished(t *testing.T) {
	dir, src := t.TempDir(), filepath.Join(t.TempDir(), "sessions")
	var ids []string
	for i := range 6 {
		ids = append(ids, fmt.Sprintf("s%d", i))
	}
	writeSessions(t, src, "/src/app", ids...)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, _, err := oldHome(dir, src, &interrupter{n: 2, cancel: cancel}).Extract(ctx, ExtractRequest{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("the interrupted first run: %v", err)
	}

	h := oldHome(dir, src, nil)
	bg := context.Background()
	st, err := h.OpenStore(bg, memversion.V1)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, _ := st.Status(bg)
	left := 6 - s.RawMemories
	if s.RawMemories < 2 || left == 0 {
		t.Fatalf("after the interruption: %d raw memories; the test needs some taken and some left", s.RawMemories)
	}
	c, err := h.Candidacy(bg, st)
	if err != nil || c.Eligible != left || c.Takes != left || c.FirstRun == nil || c.FirstRun.State != FirstRunContinues {
		t.Fatalf("status before the rerun: %+v, %v; want %d eligible and taken, the first run continued", c, err, left)
	}
	var eligible []string
	for _, id := range ids {
		th, _ := st.Thread(bg, id)
		e, err := h.Explain(bg, st, th)
		if err != nil {
			t.Fatal(err)
		}
		if e.Eligible {
			eligible = append(eligible, id)
		}
	}
	if len(eligible) != left {
		t.Fatalf("threads show calls %d threads eligible, status %d", len(eligible), left)
	}
	// --thread takes a past session it names, as threads show says.
	if res, _, err := h.Extract(bg, ExtractRequest{Threads: eligible[:1]}); err != nil || res.Claimed != 1 {
		t.Fatalf("extract --thread %s: %+v, %v; want it claimed", eligible[0], res, err)
	}
	left--

	res, _, err := h.Extract(bg, ExtractRequest{})
	if err != nil || res.Claimed != left || res.Succeeded != left {
		t.Fatalf("the rerun: %+v, %v; want the %d left", res, err, left)
	}
	if b, _ := st.Backlog(bg); b == nil || b.Open() {
		t.Errorf("every past session is taken, but the backlog is %+v", b)
	}
	// The first run is over: an old session written now is past the window.
	writeSessions(t, src, "/src/app", "late")
	res, _, err = h.Extract(bg, ExtractRequest{})
	if err != nil || res.Claimed != 0 || res.NotClaimed[store.ReasonTooOld] != 1 {
		t.Errorf("after the first run: %+v, %v; want the late old session left to the window", res, err)
	}
}

// TestAllWidensTheFirstRun: --all on a first run takes every past
// session, not the two of max_rollouts_per_startup.
func TestAllWidensTheFirstRun(t *testing.T) {
	src := filepath.Join(t.TempDir(), "sessions")
	writeSessions(t, src, "/src/app", "s0", "s1", "s2", "s3", "s4", "s5")
	h := oldHome(t.TempDir(), src, nil)
	res, _, err := h.Extract(context.Background(), ExtractRequest{All: true})
	if err != nil || res.Claimed != 6 {
		t.Errorf("extract --all on a first run: %+v, %v; want all 6", res, err)
	}
}

// TestNoSessionIsNoFirstRun: a run that finds no session does not use up
// the first run; sessions found later are taken as a first run's.
func TestNoSessionIsNoFirstRun(t *testing.T) {
	dir, src := t.TempDir(), filepath.Join(t.TempDir(), "sessions")
	writeSessions(t, src, "/src/app")
	h := oldHome(dir, src, nil)
	if res, _, err := h.Extract(context.Background(), ExtractRequest{}); err != nil || res.Claimed != 0 {
		t.Fatalf("empty: %+v, %v", res, err)
	}
	writeSessions(t, src, "/src/app", "s0", "s1", "s2")
	res, _, err := h.Extract(context.Background(), ExtractRequest{})
	if err != nil || res.Claimed != 3 {
		t.Errorf("the first run with sessions: %+v, %v; want all 3", res, err)
	}
}
