package consolidate

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/model"
)

// TestNothingToConsolidateCallsNoModel: with no raw memory, note or
// extension resource, the configured consolidator (a model here, which
// fails if called) is not asked: the offline one writes the empty memory,
// the run succeeds, and its success holds back no later run. The first
// raw memory is consolidated a minute later, by the configured one.
func TestNothingToConsolidateCallsNoModel(t *testing.T) {
	e := newEnv(t)
	e.jobs.selection = nil
	modelCons := &funcConsolidator{fn: func(context.Context, *Workspace) (model.Usage, error) {
		return model.Usage{}, errors.New("the model was called")
	}}
	for _, dry := range []bool{true, false} {
		opts := e.opts(modelCons)
		opts.DryRun = dry
		res, err := Run(context.Background(), e.jobs, opts)
		if err != nil || !res.NothingToConsolidate || res.Consolidator != "heuristic" {
			t.Fatalf("dry run %v: %+v, %v; want nothing to consolidate, done offline", dry, res, err)
		}
	}
	if modelCons.calls.Load() != 0 {
		t.Fatalf("the model was called %d times to consolidate nothing", modelCons.calls.Load())
	}
	for _, f := range []string{memdir.MemoryFile, memdir.SummaryFile} {
		if !exists(filepath.Join(e.root, f)) {
			t.Errorf("the empty memory has no %s", f)
		}
	}
	if !e.jobs.leftEmpty || e.jobs.succeeds != 1 {
		t.Errorf("commit: left empty %v, successes %d; want an empty success", e.jobs.leftEmpty, e.jobs.succeeds)
	}

	e.clock.Advance(time.Minute)
	e.jobs.selection = sampleSelection(t)[:1]
	cons := heuristicThen(nil)
	res, err := e.run(t, cons)
	if err != nil || res.Status != StatusSucceeded || res.NothingToConsolidate || cons.calls.Load() != 1 {
		t.Fatalf("the first raw memory, a minute later: %+v, %v, %d calls; want it consolidated at once", res, err, cons.calls.Load())
	}
	e.clock.Advance(time.Minute)
	if res, err := e.run(t, cons); err != nil || res.Status != ClaimCooldown {
		t.Errorf("after a consolidation that made memory: %+v, %v; want the cooldown", res, err)
	}
}

// TestANoteIsSomethingToConsolidate: a note alone, or an extension's
// resource alone, is input: the configured consolidator runs.
func TestANoteIsSomethingToConsolidate(t *testing.T) {
	for name, file := range map[string]string{
		"note":     memdir.NotesDir + "/deploy.md",
		"resource": memdir.ExtensionsDir + "/tickets/" + memdir.ExtensionResourcesDir + "/2026-01-01T00-00-00-a.md",
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			e.jobs.selection = nil
			writeFile(t, filepath.Join(e.root, filepath.FromSlash(file)), "deploys go through the staging cluster first\n")
			cons := heuristicThen(nil)
			res, err := e.run(t, cons)
			if err != nil || res.NothingToConsolidate || cons.calls.Load() != 1 || e.jobs.leftEmpty {
				t.Errorf("%+v, %v, %d calls, left empty %v; want the consolidator run", res, err, cons.calls.Load(), e.jobs.leftEmpty)
			}
		})
	}
}
