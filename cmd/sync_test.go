package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// The sync tests drive real memctl processes on two homes (two machines)
// and one bare git repository on disk as the remote, with the real git
// binary; git reads no user or system config.

// syncNow is the clock of every process of the sync tests.
const syncNow = "2026-06-02T12:00:00Z"

// syncPref is what the user told the agent on machine A.
const syncPref = "Never deploy from a laptop in this repository, because the release pipeline signs the build."

type syncWorld struct {
	t      *testing.T
	dir    string
	remote string // the bare repository
	repo   string // a checkout of the project both machines work on
	a, b   *machine
}

type machine struct {
	w    *syncWorld
	name string
	home string
	src  string // its transcripts
	env  []string
}

// gitEnv is the environment of every git the tests (and memctl) run.
func gitTestEnv(home string) []string {
	return []string{"HOME=" + home, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"}
}

func newSyncWorld(t *testing.T) *syncWorld {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("the sync tests need git on PATH")
	}
	dir := t.TempDir()
	w := &syncWorld{t: t, dir: dir, remote: filepath.Join(dir, "remote.git"), repo: filepath.Join(dir, "src", "app")}
	if err := os.MkdirAll(w.remote, 0o755); err != nil {
		t.Fatal(err)
	}
	gitRun(t, w.remote, "init", "-q", "--bare", "-b", "main")
	// A bare repository keeps no reflog by default: the test reads it to
	// prove that the branch only ever moved forward.
	gitRun(t, w.remote, "config", "core.logAllRefUpdates", "true")
	makeRepo(t, w.repo, "git@github.com:acme/app.git")
	w.a, w.b = w.machine("a"), w.machine("b")
	return w
}

func (w *syncWorld) machine(name string) *machine {
	m := &machine{w: w, name: name, home: filepath.Join(w.dir, "home-"+name), src: filepath.Join(w.dir, "transcripts-"+name)}
	// Each machine's named home exists: a missing one is refused.
	for _, dir := range []string{m.src, m.home} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			w.t.Fatal(err)
		}
	}
	cfg := filepath.Join(w.dir, "config-"+name+".toml")
	writeFile(w.t, cfg, fmt.Sprintf("[provider]\nkind = \"heuristic\"\n[memories]\nmax_rollouts_per_startup = 16\n[sync]\nremote = %q\n[[sources]]\nkind = \"jsonl\"\npath = %q\n", w.remote, m.src))
	m.env = append(gitTestEnv(filepath.Join(w.dir, "user-"+name)), "MEMCTL_HOME="+m.home, "MEMCTL_CONFIG="+cfg, "MEMCTL_NOW="+syncNow)
	return m
}

// session writes a transcript of a session in the project.
func (m *machine) session(id, said string) {
	const ts = "2026-06-01T10:00:00Z"
	lines := []string{
		fmt.Sprintf(`{"type":"session","id":%q,"cwd":%q,"source":"cli","timestamp":%q}`, id, m.w.repo, ts),
		fmt.Sprintf(`{"type":"message","role":"user","text":%q,"timestamp":%q}`, said, ts),
		fmt.Sprintf(`{"type":"tool_call","id":"c1","name":"shell","command":"make check","timestamp":%q}`, ts),
		fmt.Sprintf(`{"type":"tool_result","id":"c1","output":"ok","exit_code":0,"timestamp":%q}`, ts),
		fmt.Sprintf(`{"type":"message","role":"assistant","text":"Understood.","final":true,"timestamp":%q}`, ts),
	}
	writeFile(m.w.t, filepath.Join(m.src, id+".jsonl"), strings.Join(lines, "\n")+"\n")
}

func (m *machine) memctl(args ...string) string {
	m.w.t.Helper()
	out, errOut, code := runCLI(m.w.t, m.env, "", args...)
	if code != 0 {
		m.w.t.Fatalf("%s: memctl %s: exit %d\n%s%s", m.name, strings.Join(args, " "), code, out, errOut)
	}
	return out
}

func (m *machine) summary() string {
	m.w.t.Helper()
	return m.memctl("summary", "--raw", "--max-tokens", "5000", "--project", m.w.repo)
}

func (m *machine) sync(args ...string) syncJSON {
	m.w.t.Helper()
	var res syncJSON
	if err := json.Unmarshal([]byte(m.memctl(append([]string{"sync", "--json"}, args...)...)), &res); err != nil {
		m.w.t.Fatal(err)
	}
	return res
}

func (m *machine) memoryIDs() []string {
	m.w.t.Helper()
	var list []struct {
		ThreadID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(m.memctl("memories", "list", "--json")), &list); err != nil {
		m.w.t.Fatal(err)
	}
	var ids []string
	for _, l := range list {
		ids = append(ids, l.ThreadID)
	}
	sort.Strings(ids)
	return ids
}

// remoteHead is the commit the remote's branch points to.
func (w *syncWorld) remoteHead() string {
	return gitRun(w.t, w.remote, "rev-parse", "refs/heads/main")
}

// checkFastForwardsOnly reads the remote's reflog: every update of the
// branch must have the previous value as an ancestor (no force push).
func (w *syncWorld) checkFastForwardsOnly() int {
	w.t.Helper()
	out := gitRun(w.t, w.remote, "reflog", "show", "--format=%H", "refs/heads/main")
	hashes := strings.Fields(out)
	if len(hashes) == 0 {
		w.t.Fatal("the remote has no reflog")
	}
	for i := 0; i+1 < len(hashes); i++ {
		newer, older := hashes[i], hashes[i+1]
		if err := exec.Command("git", "-C", w.remote, "merge-base", "--is-ancestor", older, newer).Run(); err != nil {
			w.t.Errorf("the remote's main moved from %s to %s, which does not contain it: a forced update", older[:8], newer[:8])
		}
	}
	return len(hashes)
}

func TestSyncCarriesMemoryAndForgetsBetweenMachines(t *testing.T) {
	w := newSyncWorld(t)
	w.a.session("11111111-0000-4000-8000-000000000001", syncPref)
	w.a.memctl("run", "--all")
	if !strings.Contains(w.a.summary(), syncPref) {
		t.Fatalf("A's own summary lacks the preference:\n%s", w.a.summary())
	}
	if s := w.b.summary(); strings.Contains(s, syncPref) {
		t.Fatalf("B knows it before any sync:\n%s", s)
	}

	ra := w.a.sync()
	if ra.Sent != 1 || !ra.Pushed || ra.Offline {
		t.Fatalf("A's first sync: %+v", ra)
	}
	rb := w.b.sync()
	if rb.Received != 1 || rb.Applied["v1"].Added != 1 {
		t.Fatalf("B's first sync: %+v", rb)
	}
	w.b.memctl("run")
	if s := w.b.summary(); !strings.Contains(s, syncPref) {
		t.Fatalf("B's summary lacks A's memory after sync + run:\n%s", s)
	}
	// The input file names where the memory came from.
	summaries, _ := filepath.Glob(filepath.Join(w.b.home, "memories", "rollout_summaries", "*.md"))
	if len(summaries) != 1 {
		t.Fatalf("B's rollout summaries: %v", summaries)
	}
	b, _ := os.ReadFile(summaries[0])
	if !strings.Contains(string(b), "origin: sync "+ra.Machine+"\n") {
		t.Errorf("B's input file does not name machine A (%s):\n%s", ra.Machine, b)
	}
	// Nothing of the transcript or the database travels.
	files := gitRun(t, w.remote, "ls-tree", "-r", "--name-only", "main")
	for _, f := range strings.Fields(files) {
		if !strings.HasPrefix(f, "events/") || !strings.HasSuffix(f, ".jsonl") {
			t.Errorf("the remote holds %s", f)
		}
	}
	if tree := gitRun(t, w.remote, "log", "-p", "main"); strings.Contains(tree, "make check\\\",\\\"timestamp") || strings.Contains(tree, "SQLite format") {
		t.Error("the remote holds transcript lines or a database")
	}

	// A sync with nothing new sends nothing and changes nothing.
	head := w.remoteHead()
	if r := w.a.sync(); r.Sent != 0 || r.Applied["v1"].Changed() || w.remoteHead() != head {
		t.Errorf("an idle sync: %+v (remote %s → %s)", r, head[:8], w.remoteHead()[:8])
	}

	// A forget on B removes the memory from A.
	w.b.memctl("memories", "forget", "11111111")
	if r := w.b.sync(); r.Sent != 1 {
		t.Fatalf("B's forget was not sent: %+v", r)
	}
	if r := w.a.sync(); r.Applied["v1"].Forgotten != 1 {
		t.Fatalf("A did not take the forget: %+v", r)
	}
	if ids := w.a.memoryIDs(); len(ids) != 0 {
		t.Errorf("A still holds %v", ids)
	}
	w.a.memctl("run")
	w.b.memctl("run")
	for _, m := range []*machine{w.a, w.b} {
		if s := m.summary(); strings.Contains(s, "Never deploy from a laptop") {
			t.Errorf("%s's summary still injects the forgotten memory:\n%s", m.name, s)
		}
	}
	// A later extraction on A does not bring it back either: the session
	// is disabled by the forget.
	w.a.memctl("run", "--all")
	if ids := w.a.memoryIDs(); len(ids) != 0 {
		t.Errorf("A extracted the forgotten session again: %v", ids)
	}
	w.checkFastForwardsOnly()
}

func TestConcurrentSyncsLoseNoRecordAndNeverForcePush(t *testing.T) {
	w := newSyncWorld(t)
	const rounds = 4
	var mu sync.Mutex
	var pushedCommits []string
	retried := 0 // syncs whose first push lost the race
	for round := 0; round < rounds; round++ {
		for _, m := range []*machine{w.a, w.b} {
			m.memctl("note", "add", "--personal", "--slug", fmt.Sprintf("%s-round-%d", m.name, round),
				fmt.Sprintf("Note %d of machine %s.", round, m.name))
		}
		var wg sync.WaitGroup
		errs := make(chan error, 2)
		for _, m := range []*machine{w.a, w.b} {
			wg.Add(1)
			go func(m *machine) {
				defer wg.Done()
				out, errOut, code := runCLI(t, m.env, "", "sync", "--json")
				if code != 0 {
					errs <- fmt.Errorf("%s: sync exit %d\n%s%s", m.name, code, out, errOut)
					return
				}
				var r syncJSON
				if err := json.Unmarshal([]byte(out), &r); err != nil {
					errs <- err
					return
				}
				mu.Lock()
				defer mu.Unlock()
				if r.Attempts > 1 {
					retried++
				}
				pushedCommits = append(pushedCommits, strings.Fields(gitRun(t, filepath.Join(m.home, "sync", "repo"), "rev-list", "HEAD"))...)
			}(m)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	}
	t.Logf("%d of %d concurrent syncs had to merge and push again", retried, 2*rounds)
	// One more round each, one after the other, so both have everything.
	w.a.sync()
	w.b.sync()
	w.a.sync()
	head := w.remoteHead()
	for _, c := range pushedCommits {
		if err := exec.Command("git", "-C", w.remote, "merge-base", "--is-ancestor", c, head).Run(); err != nil {
			t.Errorf("commit %s of a sync is not in the remote's history", c[:8])
		}
	}
	if n := w.checkFastForwardsOnly(); n < 2*rounds {
		t.Errorf("the remote moved %d times for %d syncs", n, 2*rounds)
	}
	for _, m := range []*machine{w.a, w.b} {
		notes, _ := filepath.Glob(filepath.Join(m.home, "memories", "extensions", "ad_hoc", "notes", "*.md"))
		if len(notes) != 2*rounds {
			t.Errorf("%s has %d notes, want %d: %v", m.name, len(notes), 2*rounds, notes)
		}
		// Its log on the remote holds every record it wrote, once.
		own := gitRun(t, filepath.Join(m.home, "sync", "repo"), "show", "HEAD:events/"+m.sync().Machine+".jsonl")
		remote := gitRun(t, w.remote, "show", "main:events/"+m.sync().Machine+".jsonl")
		if own != remote || strings.Count(remote, `"type":"note"`) != rounds {
			t.Errorf("%s's log on the remote differs from its own or lacks notes:\nown:\n%s\nremote:\n%s", m.name, own, remote)
		}
	}
}

func TestDivergedRemoteFailsAndChangesNothing(t *testing.T) {
	w := newSyncWorld(t)
	w.a.memctl("note", "add", "--personal", "--slug", "first", "A's first note.")
	idA := w.a.sync().Machine
	w.b.memctl("note", "add", "--personal", "--slug", "from-b", "B's note, pushed before the remote was rewritten.")
	w.b.sync()

	// Someone rewrites A's log on the remote with an ordinary commit.
	other := filepath.Join(w.dir, "other")
	gitRun(t, w.dir, "clone", "-q", w.remote, other)
	writeFile(t, filepath.Join(other, "events", idA+".jsonl"), "{\"type\":\"header\",\"format\":\"memctl-sync-log\",\"schema\":1}\n")
	gitRun(t, other, "commit", "-q", "-am", "rewrite A's log")
	gitRun(t, other, "push", "-q", "origin", "main")
	remoteBefore := w.remoteHead()

	// A writes more, then syncs with the default --conflict=fail.
	w.a.memctl("note", "add", "--personal", "--slug", "second", "A's second note.")
	clone := filepath.Join(w.a.home, "sync", "repo")
	cloneBefore := gitRun(t, clone, "rev-parse", "HEAD")
	notesDir := filepath.Join(w.a.home, "memories", "extensions", "ad_hoc", "notes")
	notesBefore, _ := filepath.Glob(filepath.Join(notesDir, "*.md"))
	out, errOut, code := runCLI(t, w.a.env, "", "sync")
	if code != ExitDiverged {
		t.Fatalf("sync on a diverged remote: exit %d, want %d\n%s%s", code, ExitDiverged, out, errOut)
	}
	if !strings.Contains(errOut, "memctl: error: the sync remote") || !strings.Contains(errOut, "events/"+idA+".jsonl") || !strings.Contains(errOut, "nothing was changed") {
		t.Errorf("the error does not say what diverged: %s", errOut)
	}
	if out != "" {
		t.Errorf("stdout: %q", out)
	}
	if h := w.remoteHead(); h != remoteBefore {
		t.Errorf("the remote moved: %s → %s", remoteBefore[:8], h[:8])
	}
	if h := gitRun(t, clone, "rev-parse", "HEAD"); h != cloneBefore {
		t.Errorf("A's clone moved: %s → %s", cloneBefore[:8], h[:8])
	}
	if st := gitRun(t, clone, "status", "--porcelain"); st != "" {
		t.Errorf("A's clone is left dirty:\n%s", st)
	}
	notesAfter, _ := filepath.Glob(filepath.Join(notesDir, "*.md"))
	if strings.Join(notesAfter, "\n") != strings.Join(notesBefore, "\n") {
		t.Errorf("A's notes changed: %v → %v", notesBefore, notesAfter)
	}

	// --conflict=union keeps every record of both sides.
	r := w.a.sync("--conflict", "union")
	if !r.Pushed || len(r.Union) == 0 || r.Applied["v1"].Notes != 1 {
		t.Errorf("union sync: %+v", r)
	}
	log := gitRun(t, w.remote, "show", "main:events/"+idA+".jsonl")
	if strings.Count(log, `"type":"note"`) != 2 {
		t.Errorf("A's log after the union lacks its notes:\n%s", log)
	}
	w.checkFastForwardsOnly()
}

func TestTwoEditsOfOneMemoryKeepBoth(t *testing.T) {
	w := newSyncWorld(t)
	const id = "11111111-0000-4000-8000-000000000001"
	w.a.session(id, syncPref)
	w.a.memctl("run", "--all")
	w.a.sync()
	w.b.sync()
	editA := filepath.Join(w.dir, "edit-a.md")
	editB := filepath.Join(w.dir, "edit-b.md")
	writeFile(t, editA, "Deploys go through the release pipeline only (edited on A).\n")
	writeFile(t, editB, "Never deploy from a laptop; use the signed pipeline (edited on B).\n")
	w.a.memctl("memories", "edit", id, "--from", editA)
	w.b.memctl("memories", "edit", id, "--from", editB)
	w.a.sync()
	rb := w.b.sync()
	ra := w.a.sync()
	for _, r := range []syncJSON{ra, rb} {
		if len(r.Conflicts) != 1 || r.Conflicts[0].ID != id || len(r.Conflicts[0].Versions) != 2 {
			t.Fatalf("the conflict is not flagged: %+v", r.Conflicts)
		}
	}
	// Both texts are kept on both machines, under the id and a copy's id.
	for _, m := range []*machine{w.a, w.b} {
		ids := m.memoryIDs()
		if len(ids) != 2 || ids[0] != id || !strings.HasPrefix(ids[1], id+"~") {
			t.Fatalf("%s holds %v", m.name, ids)
		}
		both := m.memctl("memories", "show", ids[0]) + m.memctl("memories", "show", ids[1])
		if !strings.Contains(both, "edited on A") || !strings.Contains(both, "edited on B") {
			t.Errorf("%s lost one of the edits:\n%s", m.name, both)
		}
	}
	// Editing the memory again settles it everywhere.
	writeFile(t, editA, "Deploys go through the signed release pipeline, never a laptop (settled).\n")
	w.a.memctl("memories", "edit", id, "--from", editA)
	if r := w.a.sync(); len(r.Conflicts) != 0 {
		t.Errorf("still in conflict on A: %+v", r.Conflicts)
	}
	if r := w.b.sync(); len(r.Conflicts) != 0 {
		t.Errorf("still in conflict on B: %+v", r.Conflicts)
	}
	for _, m := range []*machine{w.a, w.b} {
		if ids := m.memoryIDs(); len(ids) != 1 || !strings.Contains(m.memctl("memories", "show", id), "(settled)") {
			t.Errorf("%s after the settling edit: %v\n%s", m.name, ids, m.memctl("memories", "show", id))
		}
	}
}

func TestSyncWorksOfflineAndCatchesUp(t *testing.T) {
	w := newSyncWorld(t)
	w.a.sync() // clone made while the remote is there
	moved := w.remote + ".away"
	if err := os.Rename(w.remote, moved); err != nil {
		t.Fatal(err)
	}
	w.a.memctl("note", "add", "--personal", "--slug", "offline", "Written while offline.")
	out, errOut, code := runCLI(t, w.a.env, "", "sync")
	if code != 0 || out != "" || !strings.Contains(errOut, "memctl: warning: the sync remote could not be reached") {
		t.Fatalf("offline sync: exit %d\n%s%s", code, out, errOut)
	}
	r := w.a.sync()
	if !r.Offline || r.Pushed || r.Queued != 1 || r.Sent != 0 {
		t.Errorf("second offline sync (queued, nothing sent twice): %+v", r)
	}
	if err := os.Rename(moved, w.remote); err != nil {
		t.Fatal(err)
	}
	if r := w.a.sync(); r.Offline || !r.Pushed || r.Queued != 0 {
		t.Errorf("back online: %+v", r)
	}
	if r := w.b.sync(); r.Applied["v1"].Notes != 1 {
		t.Errorf("B did not get the note written offline: %+v", r)
	}
}

// TestSyncAfterAKilledRun: a sync killed after it wrote records into the
// clone but before it committed them leaves a dirty work tree (here, half
// a line); the next sync drops it and sends the records again.
func TestSyncAfterAKilledRun(t *testing.T) {
	w := newSyncWorld(t)
	w.a.memctl("note", "add", "--personal", "--slug", "before-crash", "Synced before the crash.")
	id := w.a.sync().Machine
	w.a.memctl("note", "add", "--personal", "--slug", "after-crash", "Written before the crash.")
	own := filepath.Join(w.a.home, "sync", "repo", "events", id+".jsonl")
	b, err := os.ReadFile(own)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, own, string(b)+`{"type":"note","path":"2026-06-02T12-00-00-after-cr`)
	r := w.a.sync()
	if r.Sent != 1 || !r.Pushed {
		t.Fatalf("sync after a killed run: %+v", r)
	}
	log := gitRun(t, w.remote, "show", "main:events/"+id+".jsonl")
	if strings.Count(log, `"type":"note"`) != 2 || strings.Contains(log, "after-cr\n") {
		t.Errorf("the remote log:\n%s", log)
	}
	if r := w.b.sync(); r.Applied["v1"].Notes != 2 {
		t.Errorf("B: %+v", r)
	}
}
