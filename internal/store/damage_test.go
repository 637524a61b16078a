package store

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// seededDB makes a database of n raw memories with their threads, one
// memory forgotten, closed.
func seededDB(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), FileName("v1"))
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := seedOutputs(ctx, s, n, newMemoryGen(7)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(`INSERT INTO forgotten_memories (thread_id, forgotten_at) VALUES ('gone', 1)`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	return path
}

// corruptLeaf overwrites one leaf page of table (the second one SQLite
// lists) with garbage and returns the ids of the rows that cannot be
// read since, each looked up alone.
func corruptLeaf(t *testing.T, path, table string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var page, pageSize int
	if err := db.QueryRow(`SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno LIMIT 1 OFFSET 1`, table).Scan(&page); err != nil {
		t.Fatal(err)
	}
	db.QueryRow("PRAGMA page_size").Scan(&pageSize)
	type row struct {
		rowid int64
		id    string
	}
	var all []row
	rows, _ := db.Query(`SELECT rowid, thread_id FROM ` + table)
	for rows.Next() {
		var r row
		rows.Scan(&r.rowid, &r.id)
		all = append(all, r)
	}
	rows.Close()
	db.Close()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	garbage := []byte(strings.Repeat("\xa5\x5a", pageSize/2))
	if _, err := f.WriteAt(garbage, int64(page-1)*int64(pageSize)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	db, _ = sql.Open("sqlite", "file:"+path)
	var lost []string
	for _, r := range all {
		var id string
		if err := db.QueryRow(`SELECT thread_id FROM `+table+` WHERE rowid = ?`, r.rowid).Scan(&id); err != nil || id != r.id {
			lost = append(lost, r.id)
		}
	}
	if len(lost) == 0 || len(lost) > 10 {
		t.Fatalf("the damaged page held %d rows", len(lost))
	}
	return lost
}

// damageHeader overwrites the first 100 bytes (SQLite's header).
func damageHeader(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(strings.Repeat("not a database header! ", 5)[:100]), 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func TestOpenRefusesAnEmptyDatabaseFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName("v1"))
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(ctx, path)
	var de *DamagedError
	if !errors.As(err, &de) || !de.Empty || !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "the file is empty (0 bytes)") {
		t.Fatalf("open of an empty file: %v", err)
	}
	if fi, _ := os.Stat(path); fi.Size() != 0 {
		t.Error("the empty file was written to")
	}
}

func TestOpenMakesANewDatabaseWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName("v1"))
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".new-") {
			t.Errorf("a temporary file is left: %s", e.Name())
		}
	}
	db, _ := sql.Open("sqlite", "file:"+path+"?mode=ro")
	defer db.Close()
	var version int
	var mode string
	db.QueryRow("PRAGMA user_version").Scan(&version)
	db.QueryRow("PRAGMA journal_mode").Scan(&mode)
	if version != SchemaVersion() || mode != "wal" {
		t.Errorf("a new database at schema %d, journal %s", version, mode)
	}
}

func TestOpenNamesADamagedHeader(t *testing.T) {
	path := seededDB(t, 10)
	damageHeader(t, path)
	_, err := Open(ctx, path)
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "is damaged: it is not a SQLite database") {
		t.Fatalf("open: %v", err)
	}
}

func TestQuickCheckFindsACorruptPage(t *testing.T) {
	path := seededDB(t, 300)
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if p, err := s.QuickCheck(ctx, 10); err != nil || len(p) != 0 {
		t.Fatalf("a sound database: %v %v", p, err)
	}
	s.Close()
	corruptLeaf(t, path, "stage1_outputs")
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatalf("the header is sound, so open works: %v", err)
	}
	defer s.Close()
	p, err := s.QuickCheck(ctx, 10)
	if err != nil || len(p) == 0 {
		t.Fatalf("quick_check after a corrupt page: %v %v", p, err)
	}
	if _, err := s.AllOutputs(ctx); !IsDamaged(err) {
		t.Errorf("reading the memories: %v, want a damaged-database error", err)
	}
}

func TestRefreshBackupKeepsOneRecentCopy(t *testing.T) {
	path := seededDB(t, 20)
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, ok := StatBackup(path); ok {
		t.Fatal("a backup before any")
	}
	wrote, err := s.RefreshBackup(ctx, BackupInterval)
	if err != nil || !wrote {
		t.Fatalf("first backup: %v %v", wrote, err)
	}
	b, ok := StatBackup(path)
	if !ok || b.Path != filepath.Join(filepath.Dir(path), "backups", FileName("v1")) {
		t.Fatalf("backup: %+v %v", b, ok)
	}
	if fi, _ := os.Stat(b.Path); fi.Mode().Perm() != 0o600 {
		t.Errorf("backup mode %v", fi.Mode().Perm())
	}
	// Within the interval nothing is written.
	if wrote, err := s.RefreshBackup(ctx, BackupInterval); err != nil || wrote {
		t.Errorf("a second backup within the interval: %v %v", wrote, err)
	}
	// The backup is a whole database with every memory.
	bk, err := Open(ctx, filepath.Join(t.TempDir(), "restored.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	bk.Close()
	data, _ := os.ReadFile(b.Path)
	restored := filepath.Join(t.TempDir(), FileName("v1"))
	os.WriteFile(restored, data, 0o600)
	r, err := Open(ctx, restored)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := r.AllOutputs(ctx)
	r.Close()
	if err != nil || len(outs) != 20 {
		t.Errorf("restored backup: %d memories, %v", len(outs), err)
	}
	// Older than the interval: replaced. A corrupt database cannot be
	// copied whole, and the old backup stays.
	old := time.Now().Add(-2 * BackupInterval)
	os.Chtimes(b.Path, old, old)
	s.Close()
	corruptLeaf(t, path, "stage1_outputs")
	s, _ = Open(ctx, path)
	if wrote, err := s.RefreshBackup(ctx, BackupInterval); err == nil || wrote || !IsDamaged(err) {
		t.Errorf("a backup of a corrupt database: %v %v", wrote, err)
	}
	if after, ok := StatBackup(path); !ok || !after.ModTime.Equal(old.UTC().Truncate(time.Second)) && after.ModTime.Unix() != old.Unix() {
		t.Errorf("the old backup was replaced: %+v", after)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(b.Path), ".*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestSalvageReadsAroundACorruptPage(t *testing.T) {
	path := seededDB(t, 300)
	lost := corruptLeaf(t, path, "stage1_outputs")
	before, _ := os.ReadFile(path)
	st, rep, err := Salvage(ctx, path, filepath.Join(t.TempDir(), "salvage.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("the damaged file was written to")
	}
	if rep.Complete() || rep.HeaderRepaired {
		t.Errorf("report: %+v", rep)
	}
	got := map[string]SalvageTable{}
	for _, tb := range rep.Tables {
		got[tb.Name] = tb
	}
	if got["threads"].Rows != 300 || len(got["threads"].Skipped) != 0 || got["forgotten_memories"].Rows != 1 {
		t.Errorf("threads and forgets: %+v", rep.Tables)
	}
	outs := got["stage1_outputs"]
	if outs.Rows != 300-len(lost) || len(outs.Skipped) == 0 {
		t.Errorf("stage1_outputs: %d rows read, %d lost on the page, skipped %v", outs.Rows, len(lost), outs.Skipped)
	}
	mems, err := st.PortableMemories(ctx, "")
	if err != nil || len(mems) != 300-len(lost) {
		t.Fatalf("salvaged memories: %d, %v", len(mems), err)
	}
	for _, m := range mems {
		for _, id := range lost {
			if m.ThreadID == id {
				t.Errorf("a memory of the damaged page came back: %s", id)
			}
		}
		if m.RawMemory == "" || m.CreatedAt.IsZero() {
			t.Errorf("a salvaged memory lacks its text or thread: %+v", m.ThreadID)
		}
	}
}

func TestSalvageRepairsADamagedHeader(t *testing.T) {
	path := seededDB(t, 50)
	damageHeader(t, path)
	st, rep, err := Salvage(ctx, path, filepath.Join(t.TempDir(), "salvage.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if !rep.HeaderRepaired || rep.PageSize != 4096 || !rep.Complete() {
		t.Errorf("report: %+v", rep)
	}
	mems, err := st.PortableMemories(ctx, "")
	if err != nil || len(mems) != 50 {
		t.Errorf("salvaged memories: %d, %v", len(mems), err)
	}
}

func TestSalvageOfAnEmptyFileReadsNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName("v1"))
	os.WriteFile(path, nil, 0o600)
	st, rep, err := Salvage(ctx, path, filepath.Join(t.TempDir(), "salvage.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if !rep.Empty || rep.Complete() {
		t.Errorf("report: %+v", rep)
	}
}

func TestForgetAndClearDropTheBackup(t *testing.T) {
	path := seededDB(t, 3)
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, step := range []struct {
		name string
		do   func() error
	}{
		{"forget", func() error { return s.ForgetMemory(ctx, "019b0000-0000-7000-8000-000000000000") }},
		{"forget thread", func() error { return s.ForgetThread(ctx, "019b0001-0000-7000-8000-000000000001") }},
		{"clear", func() error { return s.Clear(ctx) }},
	} {
		if wrote, err := s.RefreshBackup(ctx, 0); err != nil || !wrote {
			t.Fatalf("backup: %v %v", wrote, err)
		}
		if err := step.do(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if b, ok := StatBackup(path); ok {
			t.Errorf("after %s the backup %s still holds the text", step.name, b.Path)
		}
	}
}
