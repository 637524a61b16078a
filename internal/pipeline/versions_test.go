package pipeline

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/consolidate"
	"github.com/memctl/memctl/internal/extract"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/store"
)

var bothVersions = []memversion.Version{memversion.V1, memversion.V2}

// storesIn opens each version's store in its own file under dir, as the
// home does, and counts the opens.
func storesIn(t *testing.T, dir string, opened map[memversion.Version]int) OpenStore {
	t.Helper()
	return func(ctx context.Context, v memversion.Version) (*store.Store, error) {
		opened[v]++
		return store.Open(ctx, filepath.Join(dir, v.String()+".sqlite"))
	}
}

func lastRun(t *testing.T, open OpenStore, v memversion.Version, stage string) store.StageRun {
	t.Helper()
	st, err := open(context.Background(), v)
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

// TestScanVersionsScansEveryStoreAndReportsTheFirst: every version's
// store gets the scan and its record; the result is the first version's.
func TestScanVersionsScansEveryStoreAndReportsTheFirst(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "transcripts")
	if err := os.MkdirAll(src, 0o700); err != nil {
		t.Fatal(err)
	}
	line := `{"type":"session","id":"s1","cwd":"/src/app","started_at":"2026-01-01T10:00:00Z"}` + "\n"
	if err := os.WriteFile(filepath.Join(src, "s1.jsonl"), []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	opened := map[memversion.Version]int{}
	open := storesIn(t, dir, opened)
	now := func() time.Time { return time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC) }
	res, err := ScanVersions(context.Background(), open, bothVersions, ScanStage{
		Sources: []sessions.Source{{Kind: sessions.KindJSONL, Path: src}}, Config: config.Default(),
		Redact: func(s string) string { return s }, Now: now})
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
		if r := lastRun(t, open, v, "scan"); r.Status != "ok" || !strings.HasPrefix(r.Detail, "scanned 1,") {
			t.Errorf("%s: scan recorded as %+v", v, r)
		}
	}
}

// TestPruneVersionsAddsUpEveryVersion: an empty store prunes nothing, and
// the total lists no thread but is never null.
func TestPruneVersionsAddsUpEveryVersion(t *testing.T) {
	opened := map[memversion.Version]int{}
	open := storesIn(t, t.TempDir(), opened)
	total, err := PruneVersions(context.Background(), open, bothVersions, 30, true, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if total.Pruned != 0 || total.ThreadIDs == nil || !total.DryRun || opened[memversion.V1] != 1 || opened[memversion.V2] != 1 {
		t.Errorf("total %+v, opened %v", total, opened)
	}
}

// TestConsolidateVersionsGoesPastAFailedRun: a failed_… run is reported
// and the next version still runs, its error returned at the end; any
// other error stops at once with nothing to report.
func TestConsolidateVersionsGoesPastAFailedRun(t *testing.T) {
	failed := errors.New("consolidate: failed_claim")
	var ran []memversion.Version
	results, err := ConsolidateVersions(context.Background(), bothVersions, func(_ context.Context, v memversion.Version) (consolidate.Result, error) {
		ran = append(ran, v)
		if v == memversion.V1 {
			return consolidate.Result{Status: consolidate.StatusFailedClaim}, failed
		}
		return consolidate.Result{Status: consolidate.StatusSucceeded}, nil
	})
	if !errors.Is(err, failed) || !reflect.DeepEqual(ran, bothVersions) || len(results) != 2 || results[1].Status != consolidate.StatusSucceeded {
		t.Errorf("after a failed run: ran %v, results %+v, err %v", ran, results, err)
	}

	broken := errors.New("store locked")
	ran = nil
	results, err = ConsolidateVersions(context.Background(), bothVersions, func(_ context.Context, v memversion.Version) (consolidate.Result, error) {
		ran = append(ran, v)
		return consolidate.Result{}, broken
	})
	if !errors.Is(err, broken) || results != nil || len(ran) != 1 {
		t.Errorf("after a store error: ran %v, results %+v, err %v", ran, results, err)
	}
}

// TestExtractVersionsScansThenExtractsEachStore: each version is scanned
// and extracted on one handle, the extractions add up, and a failure
// stops the loop.
func TestExtractVersionsScansThenExtractsEachStore(t *testing.T) {
	opened := map[memversion.Version]int{}
	open := storesIn(t, t.TempDir(), opened)
	stage := ScanStage{Config: config.Default(), Redact: func(s string) string { return s }, Now: time.Now}
	var extracted []memversion.Version
	res, _, err := ExtractVersions(context.Background(), open, bothVersions, stage, func(_ context.Context, st *store.Store, v memversion.Version) (extract.RunResult, error) {
		extracted = append(extracted, v)
		if _, err := st.StageRuns(context.Background()); err != nil {
			t.Errorf("%s: the store handed over is closed: %v", v, err)
		}
		return extract.RunResult{Claimed: 2, Succeeded: 1, Failed: 1, NotClaimed: map[string]int{"idle": 1}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(extracted, bothVersions) || res.Claimed != 4 || res.Failed != 2 || res.NotClaimed["idle"] != 2 {
		t.Errorf("extracted %v, merged %+v", extracted, res)
	}
	for _, v := range bothVersions {
		if opened[v] != 1 {
			t.Errorf("%s opened %d times, want once (scan and extraction share the handle)", v, opened[v])
		}
	}

	broken := errors.New("provider down")
	extracted = nil
	if _, _, err := ExtractVersions(context.Background(), open, bothVersions, stage, func(_ context.Context, _ *store.Store, v memversion.Version) (extract.RunResult, error) {
		extracted = append(extracted, v)
		return extract.RunResult{}, broken
	}); !errors.Is(err, broken) || len(extracted) != 1 {
		t.Errorf("a failed extraction: err %v, extracted %v", err, extracted)
	}
}
