package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/store"
)

// TestOneAnswerToEligibleAndSearchable asks extract, threads show, status,
// search and eval the same two questions about one home, built so that
// their own copies of the rules used to disagree: which threads the next
// extract claims (a session run in the memory folder, where an agent
// consolidation works, is never claimed; threads show used to call it
// eligible), and which raw memories a search finds (one whose thread was
// disabled is not; search used to find it while eval's replay hid it).
func TestOneAnswerToEligibleAndSearchable(t *testing.T) {
	ctx := context.Background()
	quiet := newTestIO(false)
	quiet.Quiet = true
	f := newTestFactory(t, quiet.IOStreams, nil)
	home, _ := f.Home()
	src := filepath.Join(filepath.Dir(home), "transcripts")
	const (
		plain    = "00000000-0000-4000-8000-00000000000a" // extracted, in memory
		retired  = "00000000-0000-4000-8000-00000000000b" // extracted, then disabled
		agentRun = "00000000-0000-4000-8000-00000000000c" // ran in the memory folder
		fresh    = "00000000-0000-4000-8000-00000000000d" // not extracted yet
	)
	idle := testNow.Add(-24 * time.Hour)
	writeSession(t, src, plain, "/src/shop", "zebrafish", idle)
	writeSession(t, src, retired, "/src/shop", "narwhal", idle)
	writeSession(t, src, agentRun, filepath.Join(home, "memories"), "walrus", idle)
	writeSession(t, src, fresh, "/src/shop", "axolotl", idle)
	writeConfig(t, f, "[memories]\nmax_unused_days = 365\n[provider]\nkind = \"heuristic\"\n[[sources]]\nkind = \"jsonl\"\npath = \""+src+"\"\n")

	if err := runExtract(ctx, &ExtractOptions{IO: quiet.IOStreams, Config: f.Config, Pipeline: f.Pipeline,
		ExtractFlags: ExtractFlags{Threads: []string{plain, retired}}}); err != nil {
		t.Fatal(err)
	}
	if err := runThreadsMode(ctx, &ThreadsModeOptions{IO: quiet.IOStreams, Config: f.Config, OpenStore: f.OpenStore, ID: retired, Mode: "disabled"}); err != nil {
		t.Fatal(err)
	}
	wantEligible, wantSearchable := []string{fresh}, []string{plain}

	// extract: what a dry run would claim.
	ios := newTestIO(false)
	if err := runExtract(ctx, &ExtractOptions{IO: ios.IOStreams, Config: f.Config, Pipeline: f.Pipeline, JSON: true,
		ExtractFlags: ExtractFlags{DryRun: true, Max: ptrTo(100)}}); err != nil {
		t.Fatal(err)
	}
	var dry struct {
		Jobs []struct {
			ThreadID string `json:"thread_id"`
		} `json:"jobs"`
	}
	decode(t, ios.out.Bytes(), &dry)
	var claimed []string
	for _, j := range dry.Jobs {
		claimed = append(claimed, j.ThreadID)
	}
	if !slices.Equal(claimed, wantEligible) {
		t.Errorf("extract --dry-run claims %v, want %v", claimed, wantEligible)
	}

	// threads show: each thread's explanation, and its memory.
	var eligible, searchable []string
	for _, id := range []string{plain, retired, agentRun, fresh} {
		ios := newTestIO(false)
		if err := runThreadsShow(ctx, &ThreadsShowOptions{IO: ios.IOStreams, Config: f.Config, Pipeline: f.Pipeline, JSON: true, ID: id}); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Memory *struct {
				Searchable bool `json:"searchable"`
			} `json:"memory"`
			Eligibility struct {
				Eligible bool `json:"eligible"`
			} `json:"eligibility"`
		}
		decode(t, ios.out.Bytes(), &doc)
		if doc.Eligibility.Eligible {
			eligible = append(eligible, id)
		}
		if doc.Memory != nil && doc.Memory.Searchable {
			searchable = append(searchable, id)
		}
	}
	if !slices.Equal(eligible, wantEligible) || !slices.Equal(searchable, wantSearchable) {
		t.Errorf("threads show: eligible %v, searchable %v; want %v and %v", eligible, searchable, wantEligible, wantSearchable)
	}

	// status: the counts of both.
	ios = newTestIO(false)
	if err := runStatus(ctx, &StatusOptions{IO: ios.IOStreams, Config: f.Config, Pipeline: f.Pipeline, Now: f.Now, JSON: true}); err != nil {
		t.Fatal(err)
	}
	var st struct {
		Eligible   *int `json:"eligible_threads"`
		Searchable *int `json:"searchable_memories"`
	}
	decode(t, ios.out.Bytes(), &st)
	if st.Eligible == nil || *st.Eligible != len(wantEligible) || st.Searchable == nil || *st.Searchable != len(wantSearchable) {
		t.Errorf("status: eligible_threads %v, searchable_memories %v; want %d and %d", st.Eligible, st.Searchable, len(wantEligible), len(wantSearchable))
	}

	// search: finds the memory in memory, not the disabled one.
	for word, want := range map[string][]string{"zebrafish": {plain}, "narwhal": nil} {
		ios := newTestIO(false)
		if err := runSearch(ctx, &SearchOptions{IO: ios.IOStreams, Config: f.Config, OpenStore: f.OpenStore, Now: f.Now, MemoryRoot: f.MemoryRoot,
			JSON: true, Query: word, Limit: 10, Scope: ProjectScope{AllProjects: true}}); err != nil {
			t.Fatal(err)
		}
		var hits []store.Hit
		decode(t, ios.out.Bytes(), &hits)
		var found []string
		for _, h := range hits {
			if h.ThreadID != "" && !slices.Contains(found, h.ThreadID) {
				found = append(found, h.ThreadID)
			}
		}
		if !slices.Equal(found, want) {
			t.Errorf("search %s finds %v, want %v", word, found, want)
		}
	}

	// eval: its replay, kept in dir, extracted the sessions extract --all
	// claims (never the one in the memory folder; not the one the user
	// disabled, which eval leaves out), and its search finds exactly the
	// memories in memory.
	dir := filepath.Join(t.TempDir(), "replay")
	ios = newTestIO(false)
	if err := runEval(ctx, &EvalOptions{IO: ios.IOStreams, Config: f.Config, Pipeline: f.Pipeline, Getenv: f.Getenv, JSON: true, Dir: dir}); err != nil {
		t.Fatal(err)
	}
	scratch, err := store.Open(ctx, filepath.Join(dir, store.FileName("v1")))
	if err != nil {
		t.Fatal(err)
	}
	defer scratch.Close()
	outs, err := scratch.AllOutputs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var replayed []string
	for _, o := range outs {
		replayed = append(replayed, o.ThreadID)
		th, err := scratch.Thread(ctx, o.ThreadID)
		if err != nil {
			t.Fatal(err)
		}
		hits, err := scratch.Search(ctx, map[string]string{plain: "zebrafish", fresh: "axolotl"}[o.ThreadID], 10)
		if err != nil {
			t.Fatal(err)
		}
		if found := len(hits) > 0; found != store.Searchable(th, o) {
			t.Errorf("eval's replay: %s is found %v, searchable %v", o.ThreadID, found, store.Searchable(th, o))
		}
	}
	slices.Sort(replayed)
	if want := []string{plain, fresh}; !slices.Equal(replayed, want) {
		t.Errorf("eval replayed the memories of %v, want %v (extract --all, less the disabled thread)", replayed, want)
	}
}

// writeSession writes one JSONL session that ran in cwd and speaks of
// word, last updated at updated.
func writeSession(t *testing.T, dir, id, cwd, word string, updated time.Time) {
	t.Helper()
	ts := updated.UTC().Format(time.RFC3339)
	lines := []string{
		fmt.Sprintf(`{"type":"session","id":%q,"cwd":%q,"source":"cli","timestamp":%q}`, id, cwd, ts),
		fmt.Sprintf(`{"type":"message","role":"user","text":"fix the %s importer: it drops the last row","timestamp":%q}`, word, ts),
		fmt.Sprintf(`{"type":"tool_call","id":"c1","name":"shell","command":"go test ./%s","timestamp":%q}`, word, ts),
		fmt.Sprintf(`{"type":"tool_result","id":"c1","output":"ok %s 0.1s","exit_code":0,"timestamp":%q}`, word, ts),
		fmt.Sprintf(`{"type":"message","role":"assistant","text":"The %s importer keeps the last row now.","final":true,"timestamp":%q}`, word, ts),
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// decode reads one JSON document, failing the test on an error.
func decode(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
}
