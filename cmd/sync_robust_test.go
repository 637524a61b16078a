package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/bundle"
)

// The sync logs are written by other machines, other memctl versions and
// anyone who can push to the remote: a line this version cannot read is
// set aside, and every other record still goes both ways.

// plantOnRemote commits files into the remote through a clone of its own,
// as another tool (or a newer memctl) would, and pushes.
func (w *syncWorld) plantOnRemote(name string, files map[string]string, symlinks map[string]string) {
	w.t.Helper()
	other := filepath.Join(w.dir, "planter-"+name)
	gitRun(w.t, w.dir, "clone", "-q", w.remote, other)
	for rel, text := range files {
		writeFile(w.t, filepath.Join(other, filepath.FromSlash(rel)), text)
	}
	for rel, target := range symlinks {
		p := filepath.Join(other, filepath.FromSlash(rel))
		_ = os.Remove(p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			w.t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			w.t.Fatal(err)
		}
	}
	gitRun(w.t, other, "add", "-A")
	gitRun(w.t, other, "commit", "-q", "-m", "planted: "+name)
	gitRun(w.t, other, "push", "-q", "origin", "main")
}

func noteLine(path, content string) string {
	return bundle.Line(bundle.Record{Type: bundle.TypeNote, Path: path, Rev: bundle.NoteRev(content), Content: content})
}

func notesOf(t *testing.T, home string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(home, "memories", "extensions", "ad_hoc", "notes", "*.md"))
	var all strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all.WriteString(filepath.Base(f) + ": " + string(b) + "\n")
	}
	return all.String()
}

func TestSyncSetsAsideBadRecordsAndSyncsTheRest(t *testing.T) {
	w := newSyncWorld(t)
	w.a.session("11111111-0000-4000-8000-000000000001", syncPref)
	w.a.memctl("run", "--all")
	w.a.sync()
	w.b.memctl("note", "add", "--personal", "--slug", "from-b", "B's note before the bad log arrived.")
	w.b.sync()

	// A third machine's log (a newer memctl, a broken tool) holds, between
	// two good notes, a line that is not JSON, a record of a type this
	// version does not know, a record missing its fields and a line past
	// the length limit.
	header := `{"type":"header","format":"memctl-sync-log","schema":1,"machine":"zz-newer"}` + "\n"
	long := `{"type":"note","path":"2026-06-01T00-00-00-long.md","content":"` + strings.Repeat("x", 5<<20) + `"}` + "\n"
	w.plantOnRemote("bad", map[string]string{"events/zz-newer.jsonl": header +
		noteLine("2026-06-01T00-00-00-before.md", "The note before the bad lines.") +
		"this is not json\n" +
		`{"type":"reaction","id":"11111111-0000-4000-8000-000000000001","emoji":"+1"}` + "\n" +
		`{"type":"pin","id":"11111111-0000-4000-8000-000000000001"}` + "\n" +
		long +
		noteLine("2026-06-01T00-00-01-after.md", "The note after the bad lines.")}, nil)

	// A writes something new and syncs: no error, a warning per line set
	// aside naming the file and line, and the rest goes both ways.
	w.a.memctl("note", "add", "--personal", "--slug", "from-a", "A's note after the bad log arrived.")
	out, errOut, code := runCLI(t, w.a.env, "", "sync")
	if code != 0 {
		t.Fatalf("sync with a bad log on the remote: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"events/zz-newer.jsonl:3: not a record", `events/zz-newer.jsonl:4: unknown record type "reaction"`,
		"events/zz-newer.jsonl:5: a pin record needs id and pinned", "events/zz-newer.jsonl:6: a line longer than"} {
		if !strings.Contains(errOut, "memctl: warning: set aside, not synced: "+want) {
			t.Errorf("no warning %q in:\n%s", want, errOut)
		}
	}
	if len(errOut) > 8<<10 {
		t.Errorf("the warnings quote the bad lines: %d bytes of stderr", len(errOut))
	}
	notesA := notesOf(t, w.a.home)
	for _, want := range []string{"B's note before the bad log arrived.", "The note before the bad lines.", "The note after the bad lines."} {
		if !strings.Contains(notesA, want) {
			t.Errorf("A lacks %q after the sync:\n%s", want, notesA)
		}
	}
	if strings.Contains(notesA, "xxxxxxxx") {
		t.Error("the over-long line was taken in")
	}
	// A's own records were pushed.
	res := w.b.sync()
	if len(res.SetAside) != 4 {
		t.Errorf("B's sync lists %d lines set aside, want 4: %+v", len(res.SetAside), res.SetAside)
	}
	if n := notesOf(t, w.b.home); !strings.Contains(n, "A's note after the bad log arrived.") || !strings.Contains(n, "The note after the bad lines.") {
		t.Errorf("B lacks A's new note or the third machine's good note:\n%s", n)
	}
	if ids := w.b.memoryIDs(); len(ids) != 1 {
		t.Errorf("B's memories: %v", ids)
	}
	// --conflict union reads the logs the same way.
	if _, errOut, code := runCLI(t, w.a.env, "", "sync", "--conflict", "union"); code != 0 || !strings.Contains(errOut, "set aside") {
		t.Errorf("union sync: exit %d\n%s", code, errOut)
	}
	// The bad log itself is left as it is on the remote.
	if log := gitRun(t, w.remote, "show", "main:events/zz-newer.jsonl"); !strings.Contains(log, `"type":"reaction"`) || !strings.Contains(log, "this is not json") {
		t.Errorf("the third machine's log was changed:\n%.300s", log)
	}
	w.checkFastForwardsOnly()
}

func TestSyncKeepsRecordsOfANewerVersionInItsOwnLog(t *testing.T) {
	w := newSyncWorld(t)
	w.a.memctl("note", "add", "--personal", "--slug", "first", "A's first note.")
	idA := w.a.sync().Machine
	own := "events/" + idA + ".jsonl"

	// A newer memctl on A wrote a record type this one does not know (the
	// home was then run with this older version again).
	newer := `{"type":"reaction","id":"x","emoji":"+1","at":"2026-06-02T00:00:00Z","machine":"` + idA + `"}`
	clone := filepath.Join(w.a.home, "sync", "repo")
	f, err := os.OpenFile(filepath.Join(clone, "events", idA+".jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(newer + "\n")
	f.Close()
	gitRun(t, clone, "commit", "-q", "-am", "a newer memctl's record")
	gitRun(t, clone, "push", "-q", "origin", "HEAD:main")

	// This version appends after it and pushes: the record stays.
	w.a.memctl("note", "add", "--personal", "--slug", "second", "A's second note.")
	if r := w.a.sync(); r.Sent != 1 || !r.Pushed || len(r.SetAside) != 1 {
		t.Fatalf("A's sync after the newer record: %+v", r)
	}
	log := gitRun(t, w.remote, "show", "main:"+own)
	if !strings.Contains(log, newer) || strings.Count(log, `"type":"note"`) != 2 {
		t.Fatalf("A's log lost the newer record or a note:\n%s", log)
	}

	// Someone rewrites A's log on the remote; a union sync puts back every
	// line A had, the newer record included, byte for byte.
	w.plantOnRemote("rewrite", map[string]string{own: `{"type":"header","format":"memctl-sync-log","schema":1}` + "\n"}, nil)
	w.a.memctl("note", "add", "--personal", "--slug", "third", "A's third note.")
	if r := w.a.sync("--conflict", "union"); !r.Pushed || len(r.Union) == 0 {
		t.Fatalf("union sync: %+v", r)
	}
	log = gitRun(t, w.remote, "show", "main:"+own)
	if !strings.Contains(log, newer) || strings.Count(log, `"type":"note"`) != 3 {
		t.Errorf("after the union, A's log lacks the newer record or a note:\n%s", log)
	}
	// B takes in every note and reports the one record it cannot read.
	r := w.b.sync()
	if r.Applied["v1"].Notes != 3 || len(r.SetAside) != 1 || !strings.Contains(r.SetAside[0].Reason, `unknown record type "reaction"`) {
		t.Errorf("B's sync: %+v", r)
	}
	w.checkFastForwardsOnly()
}

func TestSyncNeverFollowsASymlinkFromTheRemote(t *testing.T) {
	w := newSyncWorld(t)
	w.a.memctl("note", "add", "--personal", "--slug", "first", "A's first note.")
	idA := w.a.sync().Machine
	own := "events/" + idA + ".jsonl"

	// Files outside the clone that a planted link points at: a credential,
	// and a well-formed log whose note must not be taken in through it.
	secret := filepath.Join(w.dir, "credentials")
	writeFile(t, secret, "aws_secret_access_key = SECRET-CONTENT-THAT-MUST-NOT-TRAVEL\n")
	planted := filepath.Join(w.dir, "elsewhere.jsonl")
	writeFile(t, planted, `{"type":"header","format":"memctl-sync-log","schema":1}`+"\n"+
		noteLine("2026-06-01T00-00-00-planted.md", "A note read through a planted link."))
	w.plantOnRemote("links", nil, map[string]string{own: secret, "events/zz-link.jsonl": planted})

	for _, conflict := range []string{"fail", "union"} {
		_, errOut, code := runCLI(t, w.a.env, "", "sync", "--conflict", conflict)
		if conflict == "fail" && code != ExitDiverged {
			t.Errorf("--conflict fail with A's log replaced by a link: exit %d, want %d\n%s", code, ExitDiverged, errOut)
		}
		if conflict == "union" && code != 0 {
			t.Errorf("--conflict union: exit %d\n%s", code, errOut)
		}
	}
	history := gitRun(t, w.remote, "log", "-p", "--all")
	if strings.Contains(history, "SECRET-CONTENT") {
		t.Error("the content of the file a planted link points at reached the remote")
	}
	clone := filepath.Join(w.a.home, "sync", "repo")
	if b, err := os.ReadFile(filepath.Join(clone, filepath.FromSlash(own))); err != nil || strings.Contains(string(b), "SECRET-CONTENT") {
		t.Errorf("A's log in the clone: %v\n%s", err, b)
	}
	if b, _ := os.ReadFile(secret); !strings.Contains(string(b), "SECRET-CONTENT") || strings.Contains(string(b), "type") {
		t.Errorf("the link's target was written to:\n%s", b)
	}
	if n := notesOf(t, w.a.home); strings.Contains(n, "planted link") {
		t.Errorf("a note was read through a planted link:\n%s", n)
	}
	// After the union A's log on the remote is A's again, a plain file
	// with its own note.
	if log := gitRun(t, w.remote, "show", "main:"+own); !strings.Contains(log, "A's first note.") {
		t.Errorf("A's log on the remote after the union:\n%s", log)
	}
	if entry := gitRun(t, w.remote, "ls-tree", "main", own); !strings.HasPrefix(entry, "100644 ") {
		t.Errorf("A's log on the remote is not a plain file: %s", entry)
	}
}
