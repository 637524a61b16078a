package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// forgetMarker is a secret the redactor has no rule for (a codename the
// user chose): only forget can take it out.
const forgetMarker = "zqxvplugh4711wombat"

// sqliteBytes is the database of machine m as its files hold it: the main
// file, the WAL and the shared-memory index, whatever a reader of the disk
// would find.
func sqliteBytes(t *testing.T, m *machine) string {
	t.Helper()
	var b strings.Builder
	for _, suffix := range []string{"", "-wal", "-shm"} {
		raw, err := os.ReadFile(filepath.Join(m.home, "memories_1.sqlite"+suffix))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		b.Write(raw)
	}
	return b.String()
}

func folderText(t *testing.T, m *machine) string {
	t.Helper()
	return readTree(t, filepath.Join(m.home, "memories"))
}

func (m *machine) generationIDs() []int64 {
	m.w.t.Helper()
	var h struct {
		Generations []struct {
			ID int64 `json:"id"`
		} `json:"generations"`
	}
	if err := json.Unmarshal([]byte(m.memctl("history", "--json")), &h); err != nil {
		m.w.t.Fatal(err)
	}
	var ids []int64
	for _, g := range h.Generations {
		ids = append(ids, g.ID)
	}
	return ids
}

// TestForgottenSecretIsNowhereInTheDatabase: a memory holding a secret is
// consolidated into two generations, then forgotten. Right after the
// forget, no byte of the database's files holds the secret (the memory,
// its search index, the generations built from it, the baseline, freed
// pages); rollback, even forced, cannot bring a generation built from it
// back; and the consolidation that follows rebuilds the folder without it
// and records no trace of it either.
func TestForgottenSecretIsNowhereInTheDatabase(t *testing.T) {
	w := newSyncWorld(t)
	a := w.a
	const forgotten = "11111111-0000-4000-8000-000000000001"
	a.session(forgotten, "Never deploy from a laptop in this repository, because the release pipeline signs the build with the key "+forgetMarker+".")
	a.session("22222222-0000-4000-8000-000000000002", "Always run make check before pushing, because CI is slow.")
	a.memctl("run", "--all")
	a.session("33333333-0000-4000-8000-000000000003", "Never commit generated files, because the build makes them.")
	a.memctl("run", "--all")
	if gens := a.generationIDs(); len(gens) < 2 {
		t.Fatalf("generations %v, want two or more", gens)
	}
	if !strings.Contains(sqliteBytes(t, a), forgetMarker) || !strings.Contains(folderText(t, a), forgetMarker) {
		t.Fatal("the secret never reached the database and the folder: the test proves nothing")
	}

	a.memctl("memories", "forget", "11111111")
	if db := sqliteBytes(t, a); strings.Contains(db, forgetMarker) {
		i := strings.Index(db, forgetMarker)
		t.Errorf("right after the forget the database's files still hold the secret: …%q…", db[max(0, i-80):i+len(forgetMarker)])
	}
	if h := a.memctl("history"); !strings.Contains(h, "purged") {
		t.Errorf("history does not mark the purged generations:\n%s", h)
	}
	if _, errOut, _ := runCLI(t, a.env, "", "history", "show", "1"); !strings.Contains(errOut, "was purged") {
		t.Errorf("history show 1: %s", errOut)
	}
	for _, id := range a.generationIDs() {
		_, errOut, code := runCLI(t, a.env, "", "rollback", "--force", strconv.FormatInt(id, 10))
		if code == 0 {
			t.Errorf("rollback --force %d succeeded", id)
		} else if !strings.Contains(errOut, "purged") && !strings.Contains(errOut, "holds it already") {
			t.Errorf("rollback --force %d: %s", id, errOut)
		}
	}
	if strings.Contains(sqliteBytes(t, a), forgetMarker) {
		t.Error("a refused rollback put the secret back into the database")
	}

	a.memctl("consolidate")
	if strings.Contains(folderText(t, a), forgetMarker) {
		t.Error("the memory folder still holds the secret after the consolidation that follows a forget")
	}
	if !strings.Contains(folderText(t, a), "make check") {
		t.Error("the consolidation after the forget lost the other memories")
	}
	if strings.Contains(sqliteBytes(t, a), forgetMarker) {
		t.Error("the consolidation after the forget wrote the secret into the database again")
	}
	if s := a.memctl("search", "--all-projects", forgetMarker); strings.Contains(s, forgetMarker) {
		t.Errorf("search still finds it:\n%s", s)
	}
}
