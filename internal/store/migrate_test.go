package store

import (
	"database/sql"
	"path/filepath"
	"testing"
)

// TestMigrationFromVersion1 opens a database written by the first schema
// (search documents inside the FTS table) and checks that the upgrade
// keeps every raw memory searchable.
func TestMigrationFromVersion1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.sqlite")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	v1, err := migrationFS.ReadFile("migrations/0001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{string(v1), `PRAGMA user_version = 1`,
		`INSERT INTO stage1_outputs (thread_id, source_updated_at, raw_memory, rollout_summary, generated_at) VALUES ('a', 1, 'flaky postgres migration', 'summary of a', 1)`,
		`INSERT INTO search_index (kind, thread_id, path, body) VALUES ('raw_memory', 'a', '', 'flaky postgres migration')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q[:min(len(q), 40)], err)
		}
	}
	db.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var v int
	s.db.QueryRow(`PRAGMA user_version`).Scan(&v)
	if v != SchemaVersion() {
		t.Errorf("user_version %d, want %d", v, SchemaVersion())
	}
	hits, err := s.Search(ctx, "postgres", 10)
	if err != nil || len(hits) != 1 || hits[0].ThreadID != "a" {
		t.Errorf("after the upgrade: %+v %v", hits, err)
	}
	if hits, _ := s.Search(ctx, "summary", 10); len(hits) != 1 || hits[0].Kind != "rollout_summary" {
		t.Errorf("summaries not re-indexed: %+v", hits)
	}
}

// TestMigrationGivesEveryMemoryItsOrigin opens a database of schema 8
// holding a memory extracted here, one the user edited, one from another
// machine, a conflicting copy and one from a bundle: after the upgrade
// each names where it came from.
func TestMigrationGivesEveryMemoryItsOrigin(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v8.sqlite")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.version > 8 {
			continue
		}
		if _, err := db.Exec(m.sql); err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
	}
	for _, q := range []string{`PRAGMA user_version = 8`,
		`INSERT INTO threads (id, source_kind, rollout_path, source, created_at_ms, updated_at_ms) VALUES
		   ('here', 'codex', '/r', 'cli', 1, 1), ('edited', 'codex', '/r', 'cli', 1, 1), ('laptop', 'imported', '', 'laptop-1', 1, 1),
		   ('copy~ab', 'imported', '', 'sync-conflict:laptop-2', 1, 1), ('bundled', 'imported', '', 'bundle:team.jsonl', 1, 1)`,
		`INSERT INTO stage1_outputs (thread_id, source_updated_at, raw_memory, rollout_summary, generated_at, edited_at) VALUES
		   ('here', 1, 'a', 'a', 1, NULL), ('edited', 1, 'b', 'b', 1, 5), ('laptop', 1, 'c', 'c', 1, NULL),
		   ('copy~ab', 1, 'd', 'd', 1, NULL), ('bundled', 1, 'e', 'e', 1, 7)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q[:min(len(q), 40)], err)
		}
	}
	db.Close()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := map[string]string{"here": "session", "edited": "user", "laptop": "sync laptop-1", "copy~ab": "sync laptop-2", "bundled": "import bundle:team.jsonl"}
	for id, w := range want {
		m, err := s.Memory(ctx, id)
		if err != nil || m.From.String() != w {
			t.Errorf("%s: origin %q (%v), want %q", id, m.From, err, w)
		}
	}
}
