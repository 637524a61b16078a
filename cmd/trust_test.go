package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/bundle"
	"github.com/memctl/memctl/internal/quarantine/quarantinetest"
	"github.com/memctl/memctl/internal/team"
)

// The tests of this file plant every order of the quarantine's corpus
// (quarantinetest: 42 payloads of 28 kinds in 8 languages, each marked
// with a word no memory holds) through each way into memory that is not
// the user's own: another machine by sync, a bundle by import, a team
// file of a repository (untracked and committed), an agent's note over
// MCP; and the user's own notes at the command line. Real memctl
// processes run on fresh homes, with real git repositories and a bare
// remote on disk. None of the orders reaches `memctl summary` unreviewed;
// what waits is counted there in one line; and an item the user approves
// reaches it.

// planted is one payload with its marker.
type planted struct {
	quarantinetest.Payload
	Marker string
}

func plantedPayloads() []planted {
	out := make([]planted, len(quarantinetest.Payloads))
	for i, p := range quarantinetest.Payloads {
		m := fmt.Sprintf("PLANTMARK%02d", i)
		p.Text += " " + m
		out[i] = planted{Payload: p, Marker: m}
	}
	return out
}

// reviewedNote is a borderline note a user keeps: the untrusted rules
// hold it (an order to follow what a URL says) until the user approves.
const reviewedNote = "Before a release, read https://wiki.example.com/release-checklist and follow it."

// checkNoPlant fails for every marker the summary holds, and checks the
// line that counts what waits.
func checkNoPlant(t *testing.T, summary string, ps []planted, wantWaiting bool) {
	t.Helper()
	for _, p := range ps {
		if strings.Contains(summary, p.Marker) {
			t.Errorf("%s (%s) reached the summary: %q", p.Kind, p.Lang, p.Text)
		}
	}
	if got := strings.Contains(summary, "for the user's review in `memctl review`"); got != wantWaiting {
		t.Errorf("the summary says items wait: %v, want %v\n%s", got, wantWaiting, summary)
	}
}

// forgedRecords are a sync log's or a bundle's records carrying every
// payload as a memory and as a note, and the reviewed note.
func forgedRecords(repo, machine string, ps []planted) []bundle.Record {
	var recs []bundle.Record
	for i, p := range ps {
		id := fmt.Sprintf("99999999-0000-4000-8000-%012d", i)
		m := &bundle.Memory{RawMemory: "---\ndescription: deploys\n---\n### Task 1: deploys\n- " + p.Text + "\n",
			RolloutSummary: "# Deploys\n\n- " + p.Text + "\n", SourceUpdatedAt: 1780300000, GeneratedAt: 1780300000,
			SourceKind: "codex", RolloutPath: "/elsewhere/r.jsonl", Cwd: repo, ThreadCreatedAt: syncNow, ThreadUpdatedAt: syncNow,
			ProjectKey: "git:github.com/acme/app", ProjectName: "acme/app"}
		recs = append(recs, bundle.Record{Type: bundle.TypeMemory, ID: id, Rev: bundle.Rev(m.ToStore(id)), At: syncNow, Machine: machine, Memory: m},
			bundle.Record{Type: bundle.TypeNote, Path: fmt.Sprintf("2026-06-01T10-00-%02d-planted.md", i), Content: p.Text,
				Rev: bundle.NoteRev(p.Text), At: syncNow, Machine: machine})
	}
	return append(recs, bundle.Record{Type: bundle.TypeNote, Path: "2026-06-01T11-00-00-release.md", Content: reviewedNote,
		Rev: bundle.NoteRev(reviewedNote), At: syncNow, Machine: machine})
}

func writeRecords(t *testing.T, path string, header bundle.Record, recs []bundle.Record) {
	t.Helper()
	var b strings.Builder
	for _, r := range append([]bundle.Record{header}, recs...) {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	writeFile(t, path, b.String())
}

// approveByText approves the one held item whose text holds s.
func approveByText(t *testing.T, m *machine, dir, s string) {
	t.Helper()
	var rev reviewJSON
	out, errOut, code := runCLI(t, m.env, "", "--json", "review")
	if code != 0 {
		t.Fatalf("review: exit %d\n%s", code, errOut)
	}
	_ = dir
	if err := json.Unmarshal([]byte(out), &rev); err != nil {
		t.Fatal(err)
	}
	for _, h := range rev.Held {
		if strings.Contains(h.Text, s) {
			m.memctl("approve", h.ID)
			return
		}
	}
	t.Fatalf("nothing held holds %q: %+v", s, rev.Held)
}

// heldCount is how many items review lists, and their origins.
func heldOrigins(t *testing.T, env []string, dir string) map[string]int {
	t.Helper()
	c := cliProcess(env, "review", "--json")
	c.Dir = dir
	out, err := c.Output()
	if err != nil {
		t.Fatalf("review: %v", err)
	}
	var rev reviewJSON
	if err := json.Unmarshal(out, &rev); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, h := range rev.Held {
		got[h.Kind+" from "+h.Origin.String()]++
	}
	return got
}

func TestPlantedOrdersFromSyncWaitForReview(t *testing.T) {
	w := newSyncWorld(t)
	ps := plantedPayloads()
	// Another machine, or whoever can write to the remote, pushes a log
	// that carries every order as a memory and as a note.
	forge := filepath.Join(w.dir, "forge")
	gitRun(t, w.dir, "clone", "-q", w.remote, forge)
	writeRecords(t, filepath.Join(forge, "events", "evil-host.jsonl"),
		bundle.Record{Type: bundle.TypeHeader, Format: "memctl-sync-log", Schema: bundle.Schema, Machine: "evil-host", At: syncNow},
		forgedRecords(w.repo, "evil-host", ps))
	gitRun(t, forge, "add", "events")
	gitRun(t, forge, "commit", "-q", "-m", "log")
	gitRun(t, forge, "push", "-q", "origin", "HEAD:main")

	res := w.b.sync()
	if a := res.Applied["v1"]; a.Held != 2*len(ps)+1 || a.Added != 0 || a.Notes != 0 {
		t.Fatalf("B's sync: %+v", a)
	}
	if got := heldOrigins(t, w.b.env, w.dir); got["memory from sync evil-host"] != len(ps) || got["note from sync evil-host"] != len(ps)+1 {
		t.Errorf("held: %v", got)
	}
	w.b.memctl("run")
	checkNoPlant(t, w.b.summary(), ps, true)
	// A second sync does not take them in again.
	if r := w.b.sync(); r.Applied["v1"].Held != 0 || r.Applied["v1"].Changed() {
		t.Errorf("a second sync: %+v", r.Applied["v1"])
	}
	// The user approves the one they keep: it reaches the summary, with
	// its origin in the note file.
	approveByText(t, w.b, w.dir, "release-checklist")
	w.b.memctl("run")
	s := w.b.summary()
	checkNoPlant(t, s, ps, true)
	if !strings.Contains(s, "release-checklist") {
		t.Errorf("the approved note is not in the summary:\n%s", s)
	}
	b, err := os.ReadFile(filepath.Join(w.b.home, "memories", "extensions", "ad_hoc", "notes", "2026-06-01T11-00-00-release.md"))
	if err != nil || !strings.HasPrefix(string(b), "origin: sync evil-host\n") {
		t.Errorf("the approved note: %q %v", b, err)
	}
	// Rejecting the rest empties the queue and the line goes.
	w.b.memctl("reject", "--all")
	checkNoPlant(t, w.b.summary(), ps, false)
}

func TestPlantedOrdersFromImportWaitForReview(t *testing.T) {
	w := newSyncWorld(t)
	ps := plantedPayloads()
	file := filepath.Join(w.dir, "hostile.jsonl")
	writeRecords(t, file, bundle.Record{Type: bundle.TypeHeader, Format: bundle.Format, Schema: bundle.Schema, Scope: "all"},
		forgedRecords(w.repo, "", ps))
	var imp importJSON
	if err := json.Unmarshal([]byte(w.a.memctl("import", "--json", file)), &imp); err != nil {
		t.Fatal(err)
	}
	if imp.Held != 2*len(ps)+1 || imp.Added != 0 || imp.Notes != 0 {
		t.Fatalf("import: %+v", imp)
	}
	if got := heldOrigins(t, w.a.env, w.dir); got["memory from import bundle:hostile.jsonl"] != len(ps) {
		t.Errorf("held: %v", got)
	}
	w.a.memctl("run")
	checkNoPlant(t, w.a.summary(), ps, true)
	approveByText(t, w.a, w.dir, "release-checklist")
	w.a.memctl("run")
	if s := w.a.summary(); !strings.Contains(s, "release-checklist") {
		t.Errorf("the approved note is not in the summary:\n%s", s)
	} else {
		checkNoPlant(t, s, ps, true)
	}
}

func TestPlantedOrdersInATeamFolderWaitForReview(t *testing.T) {
	w := newSyncWorld(t)
	ps := plantedPayloads()
	// A hostile repository: every order in a team file of its own,
	// committed, and the reviewed one too. A fresh clone, and a home
	// that never held any memory.
	hostile := filepath.Join(w.dir, "hostile")
	makeRepo(t, hostile, "git@github.com:evil/app.git")
	write := func(repo, name, body string) {
		writeFile(t, filepath.Join(repo, ".memctl", name), team.Render(team.Entry{ID: name, Title: "Deploys", Author: "x", Date: "2026-06-01", Body: body}))
	}
	for i, p := range ps[:len(ps)/2] {
		write(hostile, fmt.Sprintf("committed-%02d.md", i), p.Text)
	}
	write(hostile, "release.md", reviewedNote)
	gitRun(t, hostile, "add", ".memctl")
	gitRun(t, hostile, "commit", "-q", "-m", "team memory")
	bare := filepath.Join(w.dir, "hostile.git")
	gitRun(t, w.dir, "clone", "-q", "--bare", hostile, bare)
	clone := filepath.Join(w.dir, "clone")
	gitRun(t, w.dir, "clone", "-q", bare, clone)
	// And the other half untracked in the clone, as a teammate's
	// checkout or a downloaded archive would hold them.
	for i, p := range ps[len(ps)/2:] {
		write(clone, fmt.Sprintf("untracked-%02d.md", i), p.Text)
	}
	m := w.b
	summary := func() string {
		return m.memctl("summary", "--project", clone)
	}
	s := summary()
	checkNoPlant(t, s, ps, true)
	if strings.Contains(s, "Team memory (reviewed, committed") {
		t.Errorf("the team heading was injected for held files:\n%s", s)
	}
	var doc struct {
		Team struct {
			Waiting []struct{ File, State string } `json:"waiting"`
		} `json:"team"`
		Waiting int `json:"waiting"`
	}
	if err := json.Unmarshal([]byte(m.memctl("summary", "--json", "--project", clone)), &doc); err != nil {
		t.Fatal(err)
	}
	states := map[string]int{}
	for _, f := range doc.Team.Waiting {
		states[f.State]++
	}
	if states["held"] != len(ps)/2+1 || states["untracked"] != len(ps)-len(ps)/2 || doc.Waiting != len(ps)+1 {
		t.Errorf("waiting: %v, %d", states, doc.Waiting)
	}
	// review, run in the clone, lists them with their origin; an
	// untracked file cannot be approved, the reviewed one can.
	if got := heldOrigins(t, m.env, clone); got["team from team clone"] != len(ps)+1 {
		t.Errorf("review in the clone: %v", got)
	}
	c := cliProcess(m.env, "approve", "--all")
	c.Dir = clone
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("approve --all: %v\n%s", err, out)
	}
	s = summary()
	if !strings.Contains(s, "release-checklist") || !strings.Contains(s, "Team memory (reviewed, committed") {
		t.Errorf("the approved team file is not injected:\n%s", s)
	}
	// approve --all lets in the committed files it held, the orders too,
	// but the rules every text passes take them out of the summary.
	for _, p := range ps {
		if strings.Contains(s, p.Marker) && p.Everywhere {
			t.Errorf("%s (%s) reached the summary after approval: %q", p.Kind, p.Lang, p.Text)
		}
	}
	// An edit after the approval makes it a file nobody approved.
	writeFile(t, filepath.Join(clone, ".memctl", "release.md"), strings.Replace(string(mustRead(t, filepath.Join(clone, ".memctl", "release.md"))), "release", "Release", 1))
	if s := summary(); strings.Contains(s, "release-checklist") {
		t.Errorf("an edited team file is still injected:\n%s", s)
	}
}

func TestPlantedOrdersFromAnAgentWaitForReview(t *testing.T) {
	w := newSyncWorld(t)
	ps := plantedPayloads()
	m := w.a
	m.session("11111111-0000-4000-8000-000000000001", syncPref)
	m.memctl("run", "--all")
	pw := &projectWorld{t: t, env: m.env}
	cs := pw.mcpSession(w.repo)
	for i, p := range append(ps, planted{Payload: quarantinetest.Payload{Text: reviewedNote}}) {
		var out NoteOutputJSON
		mcpCall(t, cs, "add_ad_hoc_note", map[string]any{"slug": fmt.Sprintf("n%02d", i), "note": p.Text}, &out)
		if !out.Held || out.Review == "" {
			t.Fatalf("note %d was not held: %+v", i, out)
		}
	}
	if got := heldOrigins(t, m.env, w.dir); got["note from agent projects-test"] != len(ps)+1 {
		t.Errorf("held: %v", got)
	}
	m.memctl("run")
	s := m.summary()
	checkNoPlant(t, s, ps, true)
	if !strings.Contains(s, "Never deploy from a laptop") {
		t.Errorf("the user's own memory is missing:\n%s", s)
	}
	approveByText(t, m, w.dir, "release-checklist")
	m.memctl("run")
	if s := m.summary(); !strings.Contains(s, "release-checklist") {
		t.Errorf("the approved note is not in the summary:\n%s", s)
	} else {
		checkNoPlant(t, s, ps, true)
	}
}

// NoteOutputJSON is the MCP tool's answer, as a client reads it.
type NoteOutputJSON struct {
	Path   string `json:"path"`
	Held   bool   `json:"held"`
	Review string `json:"review"`
}

func TestPlantedOrdersFromTheCommandLine(t *testing.T) {
	w := newSyncWorld(t)
	ps := plantedPayloads()
	m := w.a
	// The user's own notes are trusted: an order the rules for text from
	// elsewhere hold is the user's to give (their words, their repository).
	// An order to an AI or a command that sends secrets away is refused
	// whatever wrote it, and never reaches the summary.
	kinds, langs := map[string]bool{}, map[string]bool{}
	for i, p := range ps {
		if !p.Everywhere {
			continue
		}
		kinds[p.Kind], langs[p.Lang] = true, true
		_, errOut, code := runCLI(t, m.env, "", "note", "add", "--personal", "--slug", fmt.Sprintf("n%02d", i), p.Text)
		if code == 0 || !strings.Contains(errOut, "reads like one") {
			t.Errorf("%s (%s): note add took it (exit %d)\n%s", p.Kind, p.Lang, code, errOut)
		}
	}
	if len(kinds) < 15 || len(langs) < 3 {
		t.Errorf("%d kinds in %d languages", len(kinds), len(langs))
	}
	m.memctl("note", "add", "--personal", "--slug", "release", reviewedNote)
	m.memctl("run")
	s := m.summary()
	checkNoPlant(t, s, ps, false)
	if !strings.Contains(s, "release-checklist") {
		t.Errorf("the user's own note is missing:\n%s", s)
	}
}

// TestNotesPastTheSummaryAreRankedAndReported: with more notes than the
// summary holds, MEMORY.md lists every one, the summary the best-ranked
// (the pinned one, the cited one, the newest), and consolidate and doctor
// say so. Before, from the 51st note on notes reached neither, silently.
func TestNotesPastTheSummaryAreRankedAndReported(t *testing.T) {
	w := newSyncWorld(t)
	m := w.a
	const n = 60
	names := make([]string, n)
	for i := range n {
		at := fmt.Sprintf("2026-06-01T10-%02d-00", i)
		env := append(append([]string{}, m.env...), "MEMCTL_NOW="+strings.Replace(strings.Replace(at, "T10-", "T10:", 1), "-00", ":00Z", 1))
		out, errOut, code := runCLI(t, env, "", "note", "add", "--personal", "--slug", fmt.Sprintf("note-%02d", i),
			fmt.Sprintf("The cache of tool %02d lives under /var/cache/t%02d (NOTEMARK%02d).", i, i, i))
		if code != 0 {
			t.Fatalf("note add %d: exit %d\n%s", i, code, errOut)
		}
		names[i] = filepath.Base(strings.TrimSpace(out))
	}
	m.memctl("note", "pin", "note-00")
	cite := "Done.\n<oai-mem-citation>\n<citation_entries>\nextensions/ad_hoc/notes/" + names[5] + ":1-1|note=[used]\n</citation_entries>\n</oai-mem-citation>\n"
	if _, errOut, code := runCLI(t, m.env, cite, "cite"); code != 0 {
		t.Fatalf("cite: exit %d\n%s", code, errOut)
	}
	out, errOut, code := runCLI(t, m.env, "", "consolidate", "--json")
	if code != 0 {
		t.Fatalf("consolidate: exit %d\n%s", code, errOut)
	}
	var res struct {
		Notes *struct{ Total, Summary int } `json:"notes"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Notes == nil || res.Notes.Total != n || res.Notes.Summary != 20 {
		t.Errorf("consolidate --json notes: %+v", res.Notes)
	}
	if !strings.Contains(errOut, "60 ad hoc notes: the summary holds the 20 best-ranked") {
		t.Errorf("consolidate did not say it:\n%s", errOut)
	}
	memory := string(mustRead(t, filepath.Join(m.home, "memories", "MEMORY.md")))
	for i := range n {
		if !strings.Contains(memory, fmt.Sprintf("NOTEMARK%02d", i)) {
			t.Errorf("MEMORY.md lacks note %d", i)
		}
	}
	s := m.memctl("summary", "--raw", "--max-tokens", "20000", "--all-projects")
	for i, want := range map[int]bool{0: true, 5: true, 59: true, 42: true, 41: false, 1: false, 6: false} {
		if got := strings.Contains(s, fmt.Sprintf("NOTEMARK%02d", i)); got != want {
			t.Errorf("note %d in the summary: %v, want %v", i, got, want)
		}
	}
	out, _, _ = runCLI(t, m.env, "", "doctor", "--json")
	if !strings.Contains(out, `"check": "notes_over_summary"`) && !strings.Contains(out, `"check":"notes_over_summary"`) {
		t.Errorf("doctor has no finding about the notes:\n%s", out)
	}
}
