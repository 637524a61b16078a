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
