package pipeline

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/consolidate"
	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/store"
)

func lastRun(t *testing.T, h *Home, v memversion.Version, stage string) store.StageRun {
	t.Helper()
	st, err := h.OpenStore(context.Background(), v)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.StageRuns(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if r.Stage == stage {
			return r
		}
	}
	t.Fatalf("%s: no %s stage recorded in %+v", v, stage, runs)
	return store.StageRun{}
}

// TestScanScansEveryStoreAndReportsTheFirst: every version's store gets
// the scan and its record; the result is the first version's.
func TestScanScansEveryStoreAndReportsTheFirst(t *testing.T) {
	src := filepath.Join(t.TempDir(), "transcripts")
	writeSessions(t, src, "/src/app", "s1")
	opened := map[memversion.Version]int{}
	h := testHome(t, src, counting(t.TempDir(), opened, nil), nil)
	res, err := h.Scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Scanned != 1 {
		t.Errorf("result %+v, want the one transcript scanned", res)
	}
	for _, v := range bothVersions {
		if opened[v] != 1 {
			t.Errorf("%s opened %d times, want once", v, opened[v])
		}
		if r := lastRun(t, h, v, "scan"); r.Status != "ok" || !strings.HasPrefix(r.Detail, "scanned 1,") {
			t.Errorf("%s: scan recorded as %+v", v, r)
		}
	}
}

// TestPruneAddsUpEveryVersion: an empty store prunes nothing, and the
// total lists no thread but is never null.
func TestPruneAddsUpEveryVersion(t *testing.T) {
	opened := map[memversion.Version]int{}
	h := testHome(t, t.TempDir(), counting(t.TempDir(), opened, nil), nil)
	total, err := h.Prune(context.Background(), PruneRequest{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if total.Pruned != 0 || total.ThreadIDs == nil || !total.DryRun || opened[memversion.V1] != 1 || opened[memversion.V2] != 1 {
		t.Errorf("total %+v, opened %v", total, opened)
	}
}

// TestConsolidateGoesPastAFailedRun: a failed_… run is reported and the
// next version still runs, its error returned at the end; any other error
// stops at once with nothing to report.
func TestConsolidateGoesPastAFailedRun(t *testing.T) {
	opened := map[memversion.Version]int{}
	h := testHome(t, t.TempDir(), counting(t.TempDir(), opened, nil), nil)
	h.cfg.Consolidation.Mode = config.ModeAgent
	h.cfg.Consolidation.AgentCommand = []string{"sh", "-c", "exit 3"}
	// A note in each version's folder: something for the agent to
	// consolidate (with nothing, no agent runs).
	for _, v := range bothVersions {
		note := filepath.Join(h.MemoryRoot(v), filepath.FromSlash(memdir.NotesDir), "deploy.md")
		if err := os.MkdirAll(filepath.Dir(note), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(note, []byte("deploys go through staging first\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	results, err := h.Consolidate(context.Background(), ConsolidateRequest{})
	var failed *consolidate.FailedError
	if !errors.As(err, &failed) || len(results) != 2 || !results[0].Status.Failed() || !results[1].Status.Failed() {
		t.Errorf("after a failed run: results %+v, err %v", results, err)
	}

	broken := errors.New("store locked")
	opened = map[memversion.Version]int{}
	h = testHome(t, t.TempDir(), counting(t.TempDir(), opened, map[memversion.Version]error{memversion.V1: broken}), nil)
	results, err = h.Consolidate(context.Background(), ConsolidateRequest{})
	if !errors.Is(err, broken) || results != nil || opened[memversion.V2] != 0 {
		t.Errorf("after a store error: opened %v, results %+v, err %v", opened, results, err)
	}
}

// TestExtractScansThenExtractsEachStore: each version is scanned and
// extracted on one handle, the extractions add up, and a failure stops
// the loop.
func TestExtractScansThenExtractsEachStore(t *testing.T) {
	src := filepath.Join(t.TempDir(), "sessions")
	writeSessions(t, src, "/src/app", "s1", "s2", "s3")
	opened := map[memversion.Version]int{}
	dir := t.TempDir()
	h := testHome(t, src, counting(dir, opened, nil), nil)
	res, scanned, err := h.Extract(context.Background(), ExtractRequest{Max: 1})
	if err != nil {
		t.Fatal(err)
	}
	if scanned.Scanned != 3 || res.Claimed != 2 || res.Succeeded != 2 || res.NotClaimed["over_limit"] != 4 {
		t.Errorf("scanned %+v, merged %+v", scanned, res)
	}
	if !reflect.DeepEqual(opened, map[memversion.Version]int{memversion.V1: 1, memversion.V2: 1}) {
		t.Errorf("opened %v, want each version once (scan and extraction share the handle)", opened)
	}

	broken := errors.New("disk gone")
	opened = map[memversion.Version]int{}
	h = testHome(t, src, counting(dir, opened, map[memversion.Version]error{memversion.V2: broken}), nil)
	if _, _, err := h.Extract(context.Background(), ExtractRequest{Max: 1}); !errors.Is(err, broken) || opened[memversion.V1] != 1 {
		t.Errorf("a failed version: err %v, opened %v", err, opened)
	}
}
