package pipeline

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/extract"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/prune"
	"github.com/memctl/memctl/internal/scan"
	"github.com/memctl/memctl/internal/store"
)

var bothVersions = []memversion.Version{memversion.V1, memversion.V2}

// testNow is the clock of the test homes: a day after the sessions of
// writeSessions, so they are idle and within the age window.
func testNow() time.Time { return time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC) }

// writeSessions writes one JSONL session per id into dir, run in cwd.
func writeSessions(t *testing.T, dir, cwd string, ids ...string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		text := strings.Join([]string{
			`{"type":"session","id":"` + id + `","cwd":"` + cwd + `","source":"cli","timestamp":"2026-01-01T09:00:00Z"}`,
			`{"type":"message","role":"user","text":"fix the flaky parser test in ` + id + `","timestamp":"2026-01-01T09:00:01Z"}`,
			`{"type":"tool_call","id":"c1","name":"shell","command":"go test ./parser/","timestamp":"2026-01-01T09:00:02Z"}`,
			`{"type":"tool_result","id":"c1","output":"ok","exit_code":0,"timestamp":"2026-01-01T09:00:03Z"}`,
			`{"type":"message","role":"assistant","text":"Fixed the race in the parser test.","final":true,"timestamp":"2026-01-01T09:00:04Z"}`,
		}, "\n") + "\n"
		if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// testHome is a Home in a temporary folder generating both versions,
// offline, reading the JSONL sessions in src. Its stores are opened
// through open (nil: the Home's own).
func testHome(t *testing.T, src string, open OpenStore, rep Reporter) *Home {
	t.Helper()
	cfg := config.Default()
	cfg.Memories.DualWrite = true
	cfg.Provider.Kind = "heuristic"
	cfg.Sources = []config.Source{{Kind: "jsonl", Path: src}}
	return New(cfg, Env{Dir: t.TempDir(), Now: testNow, OpenStore: open, Reporter: rep})
}

// counting opens each version's store in dir, as a Home does, counts the
// opens and fails a version listed in broken.
func counting(dir string, opened map[memversion.Version]int, broken map[memversion.Version]error) OpenStore {
	return func(ctx context.Context, v memversion.Version) (*store.Store, error) {
		opened[v]++
		if err := broken[v]; err != nil {
			return nil, err
		}
		return store.Open(ctx, filepath.Join(dir, store.FileName(v)), store.WithClock(testNow))
	}
}

// recorder is a Reporter that keeps the events it is told.
type recorder struct {
	Quiet
	extracted []memversion.Version
	firsts    []bool
	pruned    []error
}

func (r *recorder) Extracted(v memversion.Version, _ extract.RunResult, _ scan.Result, first bool) {
	r.extracted = append(r.extracted, v)
	r.firsts = append(r.firsts, first)
}

func (r *recorder) Pruned(_ memversion.Version, _ prune.Result, err error) {
	r.pruned = append(r.pruned, err)
}

// TestRunRunsEveryVersionPastAFailure: as in Codex, each version is its
// own pipeline, so a failed one neither stops the next nor hides its
// error; a prune error is reported and the run goes on.
func TestRunRunsEveryVersionPastAFailure(t *testing.T) {
	src := filepath.Join(t.TempDir(), "sessions")
	writeSessions(t, src, "/src/app", "s1", "s2")
	broken := errors.New("store locked")
	rep := &recorder{}
	dir := t.TempDir()
	opened := map[memversion.Version]int{}
	h := testHome(t, src, counting(dir, opened, map[memversion.Version]error{memversion.V1: broken}), rep)
	runs, err := h.Run(context.Background(), RunRequest{})
	if !errors.Is(err, broken) {
		t.Fatalf("err = %v, want the first version's", err)
	}
	if len(runs.Reports) != 2 || runs.Reports[1].Version != memversion.V2 || runs.Claimed != 2 || runs.FailedJobs != 0 {
		t.Errorf("runs = %+v", runs)
	}
	if len(rep.extracted) != 1 || rep.extracted[0] != memversion.V2 || rep.firsts[0] {
		t.Errorf("extracted %v (first %v), want v2 alone, not first", rep.extracted, rep.firsts)
	}
	if len(rep.pruned) != 2 || !errors.Is(rep.pruned[0], broken) || rep.pruned[1] != nil {
		t.Errorf("prune reports %v, want v1's error then none", rep.pruned)
	}
	if c := runs.Reports[1].Consolidate; c == nil || !c.Status.Succeeded() {
		t.Errorf("v2 consolidation %+v, want a success", c)
	}
}

// TestPlanIsRefusedBeforeAnyStage: a config that cannot work stops the
// run before any version prunes, opens a store or claims a thread.
func TestPlanIsRefusedBeforeAnyStage(t *testing.T) {
	opened := map[memversion.Version]int{}
	h := testHome(t, t.TempDir(), counting(t.TempDir(), opened, nil), nil)
	h.cfg.Redaction.ExtraPatterns = []string{"(unclosed"}
	runs, err := h.Run(context.Background(), RunRequest{})
	var cerr *config.Error
	if !errors.As(err, &cerr) || cerr.Key != "redaction.extra_patterns" || len(runs.Reports) != 0 || len(opened) != 0 {
		t.Errorf("err %v, reports %d, opened %v; want the config error and nothing run", err, len(runs.Reports), opened)
	}
}
