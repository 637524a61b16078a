package consolidate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/evidence"
	"github.com/memctl/memctl/internal/memdir"
)

// evidenceJobs is fakeJobs with the evidence of each raw memory.
type evidenceJobs struct {
	*fakeJobs
	records  map[string]evidence.Record
	verdicts map[string][]evidence.Verdict
}

var _ evidenceKeeper = (*evidenceJobs)(nil)

func (j *evidenceJobs) Evidence(_ context.Context, ids []string) ([]evidence.Record, error) {
	var out []evidence.Record
	for _, id := range ids {
		if r, ok := j.records[id]; ok {
			out = append(out, r)
		}
	}
	return out, nil
}

func (j *evidenceJobs) RecordVerdicts(_ context.Context, id string, _ []evidence.Item, v []evidence.Verdict) error {
	j.verdicts[id] = v
	return nil
}

// TestStaleMemoryIsDemotedOrDropped: the billing CI memory rests on two
// files, one of which is deleted (demoted: its tips leave the summary,
// its index line says why); the SQLite memory rests on one file, deleted
// (dropped from the summary); MEMORY.md keeps both, marked.
func TestStaleMemoryIsDemotedOrDropped(t *testing.T) {
	e := newEnv(t)
	project := t.TempDir()
	for _, f := range []string{".github/workflows/ci.yml", "docker-compose.yml", "internal/store/store.go"} {
		writeFile(t, filepath.Join(project, f), "line one of "+f+"\nline two\n")
	}
	capture := func(refs string) []evidence.Item {
		items := evidence.Capture(project, evidence.Refs(refs), evidence.CaptureOptions{})
		if len(items) == 0 {
			t.Fatalf("nothing captured of %q", refs)
		}
		return items
	}
	ci, sqlite := e.jobs.selection[0].ThreadID, e.jobs.selection[1].ThreadID
	jobs := &evidenceJobs{fakeJobs: e.jobs, verdicts: map[string][]evidence.Verdict{}, records: map[string]evidence.Record{
		ci:     {ThreadID: ci, Items: capture(".github/workflows/ci.yml docker-compose.yml")},
		sqlite: {ThreadID: sqlite, Items: capture("internal/store/store.go")},
	}}
	os.Remove(filepath.Join(project, ".github/workflows/ci.yml"))
	os.Remove(filepath.Join(project, "internal/store/store.go"))

	res, err := Run(context.Background(), jobs, e.opts(NewHeuristic()))
	if err != nil || res.Status != StatusSucceeded {
		t.Fatalf("run: %+v %v", res, err)
	}
	summary := readFile(t, filepath.Join(e.root, memdir.SummaryFile))
	if strings.Contains(summary, "pinning it to postgres:16.3") || strings.Contains(summary, "busy_timeout and journal_mode") {
		t.Errorf("a stale memory's tips are still in the summary:\n%s", summary)
	}
	if !strings.Contains(summary, "(stale: .github/workflows/ci.yml was deleted)") {
		t.Errorf("the demoted memory's index line does not say it is stale:\n%s", summary)
	}
	if strings.Contains(summary, "### /home/dev/src/memctl") || strings.Contains(summary, "in under two seconds") {
		t.Errorf("the dropped memory is still in the summary:\n%s", summary)
	}
	if !strings.Contains(summary, "keep CI changes minimal") {
		t.Errorf("a stale memory's preferences (the user's words) must stay:\n%s", summary)
	}
	handbook := readFile(t, filepath.Join(e.root, memdir.MemoryFile))
	for _, want := range []string{"stale_evidence: .github/workflows/ci.yml was deleted", "stale_evidence: internal/store/store.go was deleted",
		"## Possibly stale", "pinning it to postgres:16.3"} {
		if !strings.Contains(handbook, want) {
			t.Errorf("MEMORY.md lacks %q", want)
		}
	}
	stem := memdir.RolloutSummaryStem(ci, e.jobs.selection[0].SourceUpdatedAt, e.jobs.selection[0].RolloutSlug)
	if s := readFile(t, filepath.Join(e.root, memdir.RolloutSummariesDir, stem+".md")); !strings.Contains(s, "stale_evidence: .github/workflows/ci.yml was deleted; verify") {
		t.Errorf("the rollout summary does not carry the stale line:\n%s", s)
	}
	if v := jobs.verdicts[ci]; len(v) != 2 || v[0].State != evidence.StateGone || v[1].State != evidence.StateOK {
		t.Errorf("verdicts of %s: %+v", ci, v)
	}
	recs, err := evidence.ReadIndex(filepath.Join(e.root, memdir.EvidenceIndexFile))
	if err != nil || len(recs) != 2 {
		t.Fatalf("index: %+v %v", recs, err)
	}
	handled := map[string]string{}
	for _, r := range recs {
		handled[r.ThreadID] = r.Handled
		if !strings.HasPrefix(r.RolloutFile, memdir.RolloutSummariesDir+"/") || r.Description == "" {
			t.Errorf("index record %+v", r)
		}
	}
	if handled[ci] != evidence.HandledDemoted || handled[sqlite] != evidence.HandledDropped {
		t.Errorf("handled %v", handled)
	}
	// The index is memctl's cache, not memory: never in the baseline.
	for _, f := range e.jobs.baseline {
		if f.Path == memdir.EvidenceIndexFile {
			t.Error("the evidence index is in the baseline")
		}
	}

	// The file comes back: the next run puts the memory back in full.
	writeFile(t, filepath.Join(project, "internal/store/store.go"), "line one of internal/store/store.go\nline two\n")
	res, err = Run(context.Background(), jobs, Options{Root: e.root, Version: "v1", MaxRaw: 256, MaxUnusedDays: 30,
		Consolidator: NewHeuristic(), WorkerID: "w", Now: e.clock.Now, Force: true})
	if err != nil || res.Status != StatusSucceeded {
		t.Fatalf("second run: %+v %v", res, err)
	}
	if summary := readFile(t, filepath.Join(e.root, memdir.SummaryFile)); !strings.Contains(summary, "busy_timeout and journal_mode") {
		t.Errorf("a memory whose file came back is still left out:\n%s", summary)
	}
}
