package cmd

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/store"
)

// A database written by a newer memctl is refused (nothing migrated
// back), exit 1, with a hint naming the way out.
func TestNewerDatabaseIsRefusedWithAHint(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, store.FileName("v1"))
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", store.SchemaVersion()+1)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before, _ := os.ReadFile(path)

	_, errOut, code := runCLI(t, []string{"MEMCTL_HOME=" + home}, "", "status")
	if code != ExitError || !strings.Contains(errOut, "database schema is newer than this memctl") ||
		!strings.Contains(errOut, "memctl: hint: a newer memctl wrote this database") {
		t.Errorf("exit %d\n%s", code, errOut)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("the newer database was changed")
	}
}
