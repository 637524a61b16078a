package pipeline

import (
	"context"
	"errors"
	"testing"

	"github.com/memctl/memctl/internal/extract"
	"github.com/memctl/memctl/internal/memversion"
)

// TestRunVersionsRunsEveryVersionPastAFailure: as in Codex, each version
// is its own pipeline, so a failed one neither stops the next nor hides
// its jobs from the totals.
func TestRunVersionsRunsEveryVersionPastAFailure(t *testing.T) {
	broken := errors.New("store locked")
	var firsts []bool
	runs, err := RunVersions(context.Background(), []memversion.Version{"v1", "v2"},
		func(_ context.Context, v memversion.Version, first bool) (Report, error) {
			firsts = append(firsts, first)
			rep := Report{Version: v, Extract: &extract.RunResult{Claimed: 3, Failed: 1}}
			if v == "v1" {
				return rep, broken
			}
			return rep, nil
		})
	if !errors.Is(err, broken) {
		t.Fatalf("err = %v, want the first version's", err)
	}
	if len(runs.Reports) != 2 || runs.Reports[1].Version != "v2" || runs.Claimed != 6 || runs.FailedJobs != 2 {
		t.Errorf("runs = %+v", runs)
	}
	if len(firsts) != 2 || !firsts[0] || firsts[1] {
		t.Errorf("first flags = %v, want [true false]", firsts)
	}
}
