package cmd

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/bundle"
	"github.com/memctl/memctl/internal/store"
)

// A damaged database (emptied, a corrupt page, a damaged header) is
// never taken for a new home: every command says so, doctor reports it
// with the way back (the backup memctl made before the day's first
// consolidation), and export salvages what can be read.

const damagedSessions = 12

// damagedHome is a home with damagedSessions consolidated memories.
type damagedHome struct {
	dir, home, db string
	env           []string
}

func newDamagedHome(t *testing.T) *damagedHome {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "transcripts")
	const ts = "2026-06-01T10:00:00Z"
	topics := []string{"postgres migrations", "the docker cache", "flaky parser tests", "release signing", "the nginx proxy", "grpc timeouts",
		"the redis queue", "helm charts", "the fuzz corpus", "lint rules", "the cron scheduler", "tls certificates"}
	for i := range damagedSessions {
		said := fmt.Sprintf("About %s: %s.", topics[i], strings.Join(strings.Fields(strings.Repeat(topics[i]+" "+topics[(i+5)%12]+" matters here ", 20)), " "))
		writeFile(t, filepath.Join(src, fmt.Sprintf("s%02d.jsonl", i)), strings.Join([]string{
			fmt.Sprintf(`{"type":"session","id":"11111111-0000-4000-8000-0000000000%02d","cwd":%q,"source":"cli","timestamp":%q}`, i, dir, ts),
			fmt.Sprintf(`{"type":"message","role":"user","text":%q,"timestamp":%q}`, said, ts),
			fmt.Sprintf(`{"type":"message","role":"assistant","text":"Understood.","final":true,"timestamp":%q}`, ts),
		}, "\n")+"\n")
	}
	cfg := filepath.Join(dir, "config.toml")
	writeFile(t, cfg, fmt.Sprintf("[provider]\nkind = \"heuristic\"\n[memories]\nmax_rollouts_per_startup = %d\n[[sources]]\nkind = \"jsonl\"\npath = %q\n", damagedSessions, src))
	h := &damagedHome{dir: dir, home: filepath.Join(dir, "home")}
	h.db = filepath.Join(h.home, store.FileName("v1"))
	h.env = []string{"HOME=" + dir, "MEMCTL_HOME=" + h.home, "MEMCTL_CONFIG=" + cfg, "MEMCTL_NOW=2026-06-02T12:00:00Z"}
	h.run(t, 0, "run", "--all")
	return h
}

func (h *damagedHome) run(t *testing.T, want int, args ...string) (string, string) {
	t.Helper()
	out, errOut, code := runCLI(t, h.env, "", args...)
	if code != want {
		t.Fatalf("memctl %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, want, out, errOut)
	}
	return out, errOut
}

// memoryCount is how many memories `memories list` shows.
func (h *damagedHome) memoryCount(t *testing.T) int {
	t.Helper()
	out, _ := h.run(t, 0, "memories", "list", "--json")
	var list []json.RawMessage
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	return len(list)
}

// doctorFinding runs doctor, which must find the database damaged, and
// returns that finding.
func (h *damagedHome) doctorFinding(t *testing.T) (msg, fix string) {
	t.Helper()
	out, _ := h.run(t, ExitUnhealthy, "doctor", "--json")
	var rep struct {
		Findings []struct {
			Check, Severity, Subject, Message, Fix string
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if f.Check == "database" && f.Severity == "warning" && f.Subject == h.db {
			return f.Message, f.Fix
		}
	}
	t.Fatalf("doctor reports no damaged database:\n%s", out)
	return "", ""
}

// salvage exports what can be read (exit 3, partial) and returns the
// memories of the bundle.
func (h *damagedHome) salvage(t *testing.T) (ids []string, stderr string) {
	t.Helper()
	bundlePath := filepath.Join(h.dir, "rescue.jsonl")
	_, errOut := h.run(t, ExitPartial, "export", "-o", bundlePath)
	f, err := os.Open(bundlePath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := bundle.Read(f, bundlePath)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Type == bundle.TypeMemory {
			ids = append(ids, r.ID)
		}
	}
	return ids, errOut
}

func TestAnEmptiedDatabaseIsRefusedNotReset(t *testing.T) {
	h := newDamagedHome(t)
	if err := os.Truncate(h.db, 0); err != nil {
		t.Fatal(err)
	}
	os.Remove(h.db + "-wal")
	for _, args := range [][]string{{"status"}, {"memories", "list"}, {"search", "suite"}, {"run"}} {
		_, errOut := h.run(t, ExitError, args...)
		if !strings.Contains(errOut, "memctl: error: the database "+h.db+" is damaged: the file is empty (0 bytes)") ||
			!strings.Contains(errOut, "memctl: hint: `memctl doctor` names the backup") {
			t.Errorf("memctl %s on an emptied database:\n%s", strings.Join(args, " "), errOut)
		}
	}
	if fi, _ := os.Stat(h.db); fi.Size() != 0 {
		t.Fatal("the emptied database was written to")
	}
	_, fix := h.doctorFinding(t)
	ids, errOut := h.salvage(t)
	if len(ids) != 0 || !strings.Contains(errOut, "is empty: no memory to read") {
		t.Errorf("export of an empty database: %v\n%s", ids, errOut)
	}
	// The doctor's fix puts the backup back: every memory returns.
	if out, err := exec.Command("sh", "-c", fix).CombinedOutput(); err != nil {
		t.Fatalf("the fix %q: %v\n%s", fix, err, out)
	}
	if n := h.memoryCount(t); n != damagedSessions {
		t.Errorf("%d memories after the restore, want %d", n, damagedSessions)
	}
	h.run(t, 0, "doctor")
}

func TestACorruptPageIsFoundAndSalvagedAround(t *testing.T) {
	h := newDamagedHome(t)
	h.run(t, 0, "doctor")
	corruptPageOf(t, h.db, "stage1_outputs")

	if _, errOut := h.run(t, ExitError, "memories", "list"); !strings.Contains(errOut, "malformed") || !strings.Contains(errOut, "memctl: hint: `memctl doctor`") {
		t.Errorf("memories list on a corrupt page:\n%s", errOut)
	}
	msg, fix := h.doctorFinding(t)
	if !strings.Contains(msg, "quick_check") || !strings.Contains(fix, filepath.Join(h.home, "backups", store.FileName("v1"))) {
		t.Errorf("doctor's finding: %s\nfix: %s", msg, fix)
	}
	ids, errOut := h.salvage(t)
	if len(ids) == 0 || len(ids) >= damagedSessions || !strings.Contains(errOut, "stage1_outputs:") || !strings.Contains(errOut, "could not be read") {
		t.Errorf("salvaged %d of %d memories:\n%s", len(ids), damagedSessions, errOut)
	}
	// The salvage path: the damaged file aside, the bundle imported into
	// the new database.
	salvageFix := strings.SplitN(msg, "salvage what can still be read: ", 2)
	if len(salvageFix) != 2 {
		t.Fatalf("the finding names no salvage: %s", msg)
	}
	cmd := exec.Command("sh", "-c", salvageFix[1])
	cmd.Dir = h.dir
	cmd.Env = append(append(os.Environ(), h.env...), "PATH="+memctlOnPath(t)+":"+os.Getenv("PATH"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the salvage %q: %v\n%s", salvageFix[1], err, out)
	}
	if n := h.memoryCount(t); n != len(ids) {
		t.Errorf("%d memories after the salvage, want the %d salvaged", n, len(ids))
	}
	h.run(t, 0, "doctor")
}

func TestADamagedHeaderIsRefusedAndSalvaged(t *testing.T) {
	h := newDamagedHome(t)
	f, err := os.OpenFile(h.db, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte(strings.Repeat("\x00", 100)), 0)
	f.Close()
	_, errOut := h.run(t, ExitError, "status")
	if !strings.Contains(errOut, "is damaged: it is not a SQLite database") {
		t.Errorf("status on a damaged header:\n%s", errOut)
	}
	if _, fix := h.doctorFinding(t); !strings.HasPrefix(fix, "mv ") {
		t.Errorf("doctor's fix: %s", fix)
	}
	ids, errOut := h.salvage(t)
	if len(ids) != damagedSessions || !strings.Contains(errOut, "its header was damaged; it was read with a fresh one") {
		t.Errorf("salvaged %d of %d memories:\n%s", len(ids), damagedSessions, errOut)
	}
}

// corruptPageOf overwrites the second leaf page of a table with garbage.
func corruptPageOf(t *testing.T, path, table string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	var page, size int
	err = db.QueryRow(`SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno LIMIT 1 OFFSET 1`, table).Scan(&page)
	db.QueryRow("PRAGMA page_size").Scan(&size)
	db.Close()
	if err != nil {
		t.Fatalf("find a leaf page of %s: %v", table, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt([]byte(strings.Repeat("\xa5\x5a", size/2)), int64(page-1)*int64(size)); err != nil {
		t.Fatal(err)
	}
}

// memctlOnPath returns a folder holding a memctl that runs this test
// binary as the CLI, for fixes printed as shell lines.
func memctlOnPath(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "memctl"), fmt.Sprintf("#!/bin/sh\nMEMCTL_TEST_AS_CLI=1 NO_COLOR=1 exec %q \"$@\"\n", self))
	if err := os.Chmod(filepath.Join(dir, "memctl"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
