package store

import (
	"slices"
	"testing"
	"time"
)

// TestCandidateRulesAgreeWithTheQuery runs the candidate query and the
// rules' Go predicates over one table of threads, under several filters:
// a thread is a candidate exactly when every rule that applies holds.
func TestCandidateRulesAgreeWithTheQuery(t *testing.T) {
	s, _ := newStore(t)
	now := s.now()
	hour := time.Hour
	base := Thread{SourceKind: "codex", Source: "cli", Interactive: true, Preview: "fix the build", MemoryMode: "enabled"}
	threads := map[string]func(*Thread){
		"fresh-idle":     func(th *Thread) { th.UpdatedAt = now.Add(-13 * hour) },
		"busy":           func(th *Thread) { th.UpdatedAt = now.Add(-hour) },
		"idle-edge":      func(th *Thread) { th.UpdatedAt = now.Add(-12 * hour) },
		"age-edge":       func(th *Thread) { th.UpdatedAt = now.Add(-30 * 24 * hour) },
		"too-old":        func(th *Thread) { th.UpdatedAt = now.Add(-31 * 24 * hour) },
		"exec":           func(th *Thread) { th.Source, th.Interactive = "exec", false },
		"sub-agent":      func(th *Thread) { th.Source, th.Interactive, th.Subagent = `{"subagent":"review"}`, false, true },
		"sub-agent-tty":  func(th *Thread) { th.Subagent = true },
		"archived":       func(th *Thread) { th.Archived = true },
		"no-preview":     func(th *Thread) { th.Preview = "" },
		"disabled":       func(th *Thread) { th.MemoryMode = "disabled" },
		"polluted":       func(th *Thread) { th.MemoryMode = "polluted" },
		"imported":       func(th *Thread) { th.SourceKind = SourceImported },
		"in-memories":    func(th *Thread) { th.Cwd = "/home/u/.memctl/memories" },
		"under-memories": func(th *Thread) { th.Cwd = "/home/u/.memctl/memories/sub" },
		"beside-memory":  func(th *Thread) { th.Cwd = "/home/u/.memctl/memories-old" },
	}
	for id, change := range threads {
		th := base
		th.ID, th.Path, th.Cwd = id, "/x/"+id+".jsonl", "/work/"+id
		th.UpdatedAt = now.Add(-20 * hour)
		change(&th)
		th.CreatedAt = th.UpdatedAt
		if _, err := s.UpsertThread(ctx, th, UpsertPolicy{GenerateMemories: true}); err != nil {
			t.Fatal(err)
		}
	}
	stored, err := s.ListThreads(ctx, ThreadFilter{})
	if err != nil || len(stored) != len(threads) {
		t.Fatalf("%d threads stored of %d: %v", len(stored), len(threads), err)
	}
	filters := map[string]CandidateFilter{
		"codex defaults": {MaxAgeDays: 30, MinIdleHours: 12, InteractiveOnly: true, ExcludeCwdUnder: []string{"/home/u/.memctl/memories/"}},
		"all windows":    {AllWindows: true, InteractiveOnly: true},
		"every source":   {MaxAgeDays: 30, MinIdleHours: 12},
		"no idle wait":   {MaxAgeDays: 1, MinIdleHours: 0, ExcludeCwdUnder: []string{"", "/home/u/.memctl/memories"}},
	}
	for name, f := range filters {
		got, err := s.Candidates(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var fromSQL, fromGo []string
		for _, th := range got {
			fromSQL = append(fromSQL, th.ID)
		}
		for _, tw := range stored {
			if eligibleByRules(tw.Thread, f, now) {
				fromGo = append(fromGo, tw.ID)
			}
		}
		slices.Sort(fromSQL)
		slices.Sort(fromGo)
		if !slices.Equal(fromSQL, fromGo) {
			t.Errorf("%s: the query claims %v, the rules say %v", name, fromSQL, fromGo)
		}
		if len(fromSQL) == 0 {
			t.Errorf("%s: no candidate at all; the table does not exercise the filter", name)
		}
	}
}

func eligibleByRules(th Thread, f CandidateFilter, now time.Time) bool {
	for _, r := range CandidateRules() {
		if r.Window && f.AllWindows {
			continue
		}
		if !r.Holds(th, f, now) {
			return false
		}
	}
	return true
}
