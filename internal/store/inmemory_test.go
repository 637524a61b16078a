package store

import (
	"fmt"
	"testing"
	"time"
)

// TestInMemoryRuleAgrees: a raw memory is consolidated and found by search
// exactly when InMemory (the Go form of inMemorySQL) says its thread is in
// memory; a memory with no thread row is never taken out. The SQL of
// Search, SearchableMemories and Selection and the Go of Searchable must
// agree on every row.
func TestInMemoryRuleAgrees(t *testing.T) {
	s, _ := newStore(t)
	now := s.now()
	modes := map[string]string{"on": "enabled", "off": "disabled", "polluted": "polluted"}
	for id, mode := range modes {
		addThread(t, s, id, now.Add(-time.Hour))
		_, tok := claim(t, s, id, now.Add(-time.Hour).Unix(), 100)
		succeed(t, s, id, tok, now.Add(-time.Hour).Unix())
		if mode != "enabled" {
			if err := s.SetMemoryMode(ctx, id, mode); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A raw memory whose thread row is gone (an older store's leftover).
	if _, err := s.db.Exec(`INSERT INTO stage1_outputs (thread_id, source_updated_at, raw_memory, rollout_summary, generated_at) VALUES ('orphan', 1, 'raw orphan', 'summary orphan', ?)`, now.Unix()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(`INSERT INTO search_docs (kind, thread_id, path, body) VALUES ('raw_memory', 'orphan', '', 'raw orphan')`); err != nil {
		t.Fatal(err)
	}

	selected := map[string]bool{}
	sel, err := s.Selection(ctx, 100, 30)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range sel {
		selected[m.ThreadID] = true
	}
	want := 0
	for _, id := range []string{"on", "off", "polluted", "orphan"} {
		th, err := s.Thread(ctx, id)
		goIn := err != nil || InMemory(th) // no thread row: in memory
		hits, err := s.Search(ctx, "raw "+id, 10)
		if err != nil {
			t.Fatal(err)
		}
		found := len(hits) > 0 && hits[0].ThreadID == id
		if found != goIn {
			t.Errorf("%s: search finds it %v, InMemory says %v", id, found, goIn)
		}
		if out, err := s.Output(ctx, id); err == nil && th.ID != "" && Searchable(th, out) != found {
			t.Errorf("%s: Searchable says %v, search finds it %v", id, Searchable(th, out), found)
		}
		if id != "orphan" && selected[id] != goIn {
			t.Errorf("%s: selected for consolidation %v, InMemory says %v", id, selected[id], goIn)
		}
		if goIn {
			want++
		}
	}
	if n, err := s.SearchableMemories(ctx); err != nil || n != want {
		t.Errorf("SearchableMemories = %d, %v; want %d", n, err, want)
	}
}

// TestSearchRanksPastMemoriesOutOfMemory: when more memories out of
// memory than the search reads beyond its limit rank above the one in
// memory, the search ranks further and still finds it.
func TestSearchRanksPastMemoriesOutOfMemory(t *testing.T) {
	s, _ := newStore(t)
	at := s.now().Add(-time.Hour)
	for i := range searchSlack + 4 {
		id := fmt.Sprintf("off-%02d", i)
		addThread(t, s, id, at)
		_, tok := claim(t, s, id, at.Unix(), 100)
		if ok, err := s.MarkStage1Succeeded(ctx, id, tok, at.Unix(), "walrus walrus walrus tusk", "walrus", nil); err != nil || !ok {
			t.Fatal(ok, err)
		}
		if err := s.SetMemoryMode(ctx, id, "disabled"); err != nil {
			t.Fatal(err)
		}
	}
	addThread(t, s, "on", at)
	_, tok := claim(t, s, "on", at.Unix(), 100)
	if ok, err := s.MarkStage1Succeeded(ctx, "on", tok, at.Unix(), "a note on a walrus and a long tail of other words that dilute it", "", nil); err != nil || !ok {
		t.Fatal(ok, err)
	}
	hits, err := s.Search(ctx, "walrus", 1)
	if err != nil || len(hits) != 1 || hits[0].ThreadID != "on" {
		t.Errorf("search walrus = %+v, %v; want the one memory in memory", hits, err)
	}
}
