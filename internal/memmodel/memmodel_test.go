package memmodel

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/evidence"
	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/store"
)

const day = int64(86400)

// base is 2026-08-04.
const base = int64(1785840059)

// offline is a raw memory as the offline extractor writes it, with one
// piece of knowledge.
func offline(desc, knowledge string) string {
	return "---\ndescription: " + desc + "\ntask_outcome: success\nwritten_by: memctl heuristic\n---\n\n### Task 1: " + desc +
		"\ntask: " + desc + "\n\nReusable knowledge:\n- " + knowledge + "\n"
}

// A memory is read from its raw memory, newest first; one the user wrote
// without structure is its first line described and the rest known, each
// statement marked as the user's; one with no keywords gets some.
func TestParse(t *testing.T) {
	mems := Parse([]store.Selected{
		{ThreadID: "older", SourceUpdatedAt: base - day, Cwd: "/src/shop", RawMemory: offline("fix the cart total", "Check: `npm test` passed.")},
		{ThreadID: "mine", SourceUpdatedAt: base, Cwd: "unknown", UserAsserted: true, RawMemory: "Deploys go through make deploy\nnever push to main on Fridays\n"},
	})
	if len(mems) != 2 || mems[0].Sel.ThreadID != "mine" || mems[1].Sel.ThreadID != "older" {
		t.Fatalf("not newest first: %+v", mems)
	}
	mine, older := mems[0], mems[1]
	if mine.Desc != "Deploys go through make deploy" || mine.Cwd != UnknownCwd || mine.Day != "2026-08-04" {
		t.Errorf("user-asserted memory: desc %q, cwd %q, day %q", mine.Desc, mine.Cwd, mine.Day)
	}
	if got := mine.Tasks[0].Knowledge; !slices.Equal(got, []string{UserAssertedMarker + " never push to main on Fridays"}) {
		t.Errorf("user-asserted knowledge %q", got)
	}
	if mine.Project().Key != "path:" || older.Project().Key != "path:/src/shop" || older.Root() != "/src/shop" {
		t.Errorf("projects %+v, %+v (root %q)", mine.Project(), older.Project(), older.Root())
	}
	if !older.Offline || older.FirstLearning() != "Check: `npm test` passed." || !strings.HasPrefix(older.File, memdir.RolloutSummariesDir+"/") {
		t.Errorf("offline memory: %+v", older)
	}
	if len(older.Keywords) == 0 || older.Keywords[0] != "fix" {
		t.Errorf("fallback keywords %q", older.Keywords)
	}
}

// A memory whose evidence is all gone leaves the summary, unless the user
// pinned or wrote it: then it is only demoted.
func TestMarkStaleNeverDropsTheUsersMemory(t *testing.T) {
	mems := Parse([]store.Selected{
		{ThreadID: "gone", SourceUpdatedAt: base, RawMemory: offline("a", "Check: `make` passed.")},
		{ThreadID: "pinned", SourceUpdatedAt: base - 1, Pinned: true, RawMemory: offline("b", "Check: `make` passed.")},
		{ThreadID: "fresh", SourceUpdatedAt: base - 2, RawMemory: offline("c", "Check: `make` passed.")},
	})
	gone := Stale{Gone: true, Problems: []evidence.Problem{{Kind: "file", Ref: "Makefile", Reason: evidence.ReasonDeleted, State: "gone"}}}
	MarkStale(mems, map[string]Stale{"gone": gone, "pinned": gone})
	var ids []string
	for _, m := range Current(mems) {
		ids = append(ids, m.Sel.ThreadID)
	}
	if !slices.Equal(ids, []string{"pinned", "fresh"}) {
		t.Errorf("current memories %q, want pinned and fresh", ids)
	}
	if note := mems[1].StaleNote(); note != " (stale: Makefile was deleted)" {
		t.Errorf("stale note %q", note)
	}
	if mems[2].StaleNote() != "" {
		t.Error("a memory with no mark has a stale note")
	}
}

// Sessions that said the same thing fold into the newest one, counted; a
// stale memory keeps a line of its own.
func TestFoldRepeats(t *testing.T) {
	var sel []store.Selected
	for i, id := range []string{"a", "b", "c", "d"} {
		sel = append(sel, store.Selected{ThreadID: id, SourceUpdatedAt: base - int64(i), Cwd: "/src/shop", RawMemory: offline("answered how deploys work", "Finding: deploys run make deploy.")})
	}
	mems := Parse(sel)
	MarkStale(mems, map[string]Stale{"d": {}})
	got := FoldRepeats(mems)
	if len(got) != 2 || got[0].Sel.ThreadID != "a" || got[0].Sessions != 3 || got[1].Sel.ThreadID != "d" || got[1].Sessions != 1 {
		t.Errorf("folded %+v", got)
	}
	if SeenIn(got[0].Sessions) != " (seen in 3 sessions)" || SeenIn(1) != "" {
		t.Errorf("seen in: %q", SeenIn(got[0].Sessions))
	}
}

// A newer memory's fact about a command supersedes an older one's in the
// same project only when the two say the command ended otherwise: a fix
// and a later pass of the same command are two lessons, a failure never
// run to a pass and a later pass disagree, and a run with no exit status
// of its own contradicts nothing.
func TestFactsSupersede(t *testing.T) {
	mems := Parse([]store.Selected{
		{ThreadID: "new", SourceUpdatedAt: base, Cwd: "/src/shop", RawMemory: offline("b", "Check: `npm test` passed.")},
		{ThreadID: "fixed", SourceUpdatedAt: base - day, Cwd: "/src/shop", RawMemory: offline("a", "Fix: `npm test` failed and passed after src/cart.ts changed.")},
		{ThreadID: "failed", SourceUpdatedAt: base - 2*day, Cwd: "/src/shop", RawMemory: offline("c", "`npm test` failed once (`NaN`).")},
		{ThreadID: "unknown", SourceUpdatedAt: base - 3*day, Cwd: "/src/shop", RawMemory: offline("d", "`npm test` failed once and was run again with no exit status of its own.")},
	})
	f := Facts{}
	for i, want := range []string{"", "", "superseded on 2026-08-04 by Task 2", ""} {
		task := 0
		if i == 0 {
			task = 2
		}
		if by := f.Claim(mems[i], mems[i].FirstLearning(), task); by != want {
			t.Errorf("%s: %q, want %q", mems[i].Sel.ThreadID, by, want)
		}
	}
	if SubjectOf("Finding: `npm test` is slow") != "" || SubjectOf("Check: `go vet ./...` passed.") != "go vet ./..." {
		t.Error("subject wrong")
	}
}

// Notes are read with their project line; past MaxSummaryNotes the
// summary holds the pinned, then the most used, in name order.
func TestNotes(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, filepath.FromSlash(memdir.NotesDir))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("2026-08-01-a.md", "project: github.com/acme/shop\nrun make check before a push\n")
	write("2026-08-02-b.md", "I always want short commit messages\n")
	write("ignored.txt", "not a note\n")
	notes := ReadNotes(root, strings.ToUpper)
	if len(notes) != 2 {
		t.Fatalf("notes %+v", notes)
	}
	if notes[0].Project != "github.com/acme/shop" || notes[0].Text != "RUN MAKE CHECK BEFORE A PUSH" || notes[0].Pref {
		t.Errorf("scoped note %+v", notes[0])
	}
	if notes[1].Project != "" || !notes[1].Pref || notes[1].Marker() != NoteMarker {
		t.Errorf("general note %+v", notes[1])
	}

	var many []Note
	for i := range MaxSummaryNotes + 2 {
		many = append(many, Note{File: memdir.NotesDir + "/" + string(rune('a'+i)) + ".md"})
	}
	marks := map[string]store.NoteMark{"a.md": {Pinned: true}, "b.md": {UsageCount: 3}}
	best := SummaryNotes(many, marks)
	if len(best) != MaxSummaryNotes || best[0].File != memdir.NotesDir+"/a.md" || best[1].File != memdir.NotesDir+"/b.md" {
		t.Errorf("best notes start %q, %q", best[0].File, best[1].File)
	}
	for _, n := range best {
		if n.File == memdir.NotesDir+"/c.md" || n.File == memdir.NotesDir+"/d.md" {
			t.Errorf("kept %s over newer unused notes", n.File)
		}
	}
}

// A tip is a check or a fix of the work, never a look around that failed
// and then worked, nor the agent's words.
func TestTipItems(t *testing.T) {
	work := []string{
		"Check: `go test ./...` passed after the changes to parse.go.",
		"Fix: `npm run build` failed (`TS2304`) and passed on a rerun; between the failure and the pass: edited tsconfig.json.",
	}
	looks := []string{
		"Fix: `ls -la types/` failed (`ls: cannot access 'types/'`) and passed on a rerun; between the failure and the pass: ran `mkdir -p types`.",
		"Fix: `grep -R \"parser\" -n` failed (`command timed out`) and `grep -R \"lexer\" -n` passed; nothing else ran between the failure and the pass.",
		"Final answer: “The build needed the DOM lib.”",
	}
	// A check is the command and that it passed: the files its session
	// had changed before are that task's history, kept in MEMORY.md.
	want := []string{"Check: `go test ./...` passed.", work[1]}
	if got := TipItems(append(append([]string(nil), work...), looks...)); !slices.Equal(got, want) {
		t.Errorf("tips %q, want %q", got, want)
	}
}

// withPrefs is an offline raw memory whose user stated prefs.
func withPrefs(desc string, prefs ...string) string {
	return offline(desc, "Check: `go test ./...` passed.") + "\nPreference signals:\n- " + strings.Join(prefs, "\n- ") + "\n"
}

// A prompt template the raw memory hands in as a preference (a slash
// command's body, a persona's activation prompt) is no rule of the user's:
// every session that ran the command would "prefer" the same long text.
// The user's own rules stay, short ones repeated in every session too.
func TestParseDropsPromptTemplatesFromPreferences(t *testing.T) {
	persona := "You are Orla, the architect. Stay in character until told to exit, greet the user by name, list the numbered options of your menu, wait for the user to pick one and load the files each option names before acting on it."
	command := "“# Implement the plan Read the plan in docs/plan.md and implement $ARGUMENTS step by step, running the tests after each step.” [Task 2]"
	heading := "Review the change. ## Steps 1. read the diff 2. list the risks"
	slot := "Summarise the ticket $1 for the changelog in two lines, then draft the release note for it with the ticket's number, its title, who asked for it and which service it touches, in the house style."
	handle := "Fill in {{ticket}} and open the pull request."
	steps := "Stay in the persona described here for the whole conversation and follow each start-up step in order. 1. Load the profile file before anything else. 2. Introduce yourself in one line. 3. Offer the menu of tasks and wait. ALWAYS answer in the persona's voice and NEVER drop it until the user types the exit word."
	notAllowed := "You are not allowed to push to main."
	longRule := "When a migration touches the orders table, always run it on a copy of production first, check the row counts before and after, and ask me before running it against the real database, even for a small change."
	sel := []store.Selected{
		{ThreadID: "s1", SourceUpdatedAt: base, RawMemory: withPrefs("one", persona, steps, notAllowed, longRule, command)},
		{ThreadID: "s2", SourceUpdatedAt: base - 1, RawMemory: withPrefs("two", notAllowed, longRule, heading, slot)},
		{ThreadID: "s3", SourceUpdatedAt: base - 2, RawMemory: withPrefs("three", notAllowed, longRule, handle, "Keep the API bill under $5 a day.")},
		{ThreadID: "mine", SourceUpdatedAt: base - 3, UserAsserted: true, RawMemory: "Template\nFill in $ARGUMENTS when I say so\n"},
	}
	var prefs []string
	for _, m := range Parse(sel) {
		for _, task := range m.Tasks {
			prefs = append(prefs, task.Prefs...)
		}
	}
	want := []string{notAllowed, longRule, notAllowed, longRule, notAllowed, longRule, "Keep the API bill under $5 a day."}
	if !slices.Equal(prefs, want) {
		t.Errorf("preferences\n%q\nwant\n%q", prefs, want)
	}
}

// The folder's preferences are the user's standing rules: a reply that
// picks among what the agent offered, or that steers the step at hand,
// is no preference, though the extractor read one from its words; a
// reply that says the rule stands stays, as does a rule of the user's own,
// also when it follows a reply in the same message, and a correction.
// A synthetic offline memory with its rollout summary's messages.
func TestParseKeepsStandingRulesNotAnswers(t *testing.T) {
	msgs := []string{
		"Add a cache in front of the pricing service. Use table-driven tests, not one test per case.",
		"I prefer option 2, the one with the TTL.",
		"ok, use the in-memory store instead of Redis for this.",
		"great, prepare the plan. Don't commit until the final step.",
		"no, never use bare pytest; run uv run pytest from now on.",
		"Let's go with the second approach.",
		"Revise the proposal; option B is not acceptable because of the cost.",
		"Keep the API bill under $5 a day, prefer batch calls over single ones.",
		"ok lets get the docs done in a branch. Then look at the staging deploy. Please dont run the migrations by hand on the server.",
		"no, use pnpm, not npm: this repo is a pnpm workspace.",
	}
	prefs := []string{
		"Use table-driven tests, not one test per case.",
		"I prefer option 2, the one with the TTL.",
		"use the in-memory store instead of Redis for this.",
		"Don't commit until the final step.",
		"no, never use bare pytest; run uv run pytest from now on.",
		"Let's go with the second approach.",
		"option B is not acceptable because of the cost.",
		"Keep the API bill under $5 a day, prefer batch calls over single ones.",
		"Please dont run the migrations by hand on the server.",
		"no, use pnpm, not npm: this repo is a pnpm workspace.",
	}
	raw := withPrefs("pricing cache", quoteAll(prefs)...)
	steps := []string{"The user asked: “" + msgs[0] + "”"}
	for _, m := range msgs[1:] {
		steps = append(steps, "Follow-up from the user: “"+m+"”")
	}
	summary := "---\ndescription: pricing cache\nwritten_by: memctl heuristic\n---\n\n## Task 1: pricing cache\n\nOutcome: uncertain\n\nKey steps:\n- " + strings.Join(steps, "\n- ") + "\n"
	mems := Parse([]store.Selected{{ThreadID: "s", SourceUpdatedAt: base, Cwd: "/src/shop", RawMemory: raw, RolloutSummary: summary}})
	want := quoteAll([]string{prefs[0], prefs[4], prefs[7], prefs[8], prefs[9]})
	if got := mems[0].Tasks[0].Prefs; !slices.Equal(got, want) {
		t.Errorf("preferences\n%q\nwant\n%q", got, want)
	}
}

func quoteAll(items []string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = "“" + it + "”"
	}
	return out
}

// A quoted answer keeps the user's reply only when it tells something: a
// reply of one short word goes unless it picks an option the answer
// names, an image's stand-in goes, and an answer that only lays out
// options with no reply that chose goes whole. Synthetic offline memory.
func TestParseTidiesQuotedAnswers(t *testing.T) {
	items := []string{
		"Earlier answer: “The cache now expires entries after an hour.”; the user replied: “yes”",
		"Earlier answer: “Recommended: Option A — keep auth in the gateway.”; the user replied: “A”",
		"Earlier answer: “The header is centred.”; the user replied: “[image omitted] the footer still overlaps”",
		"Earlier answer: “The modal closes on escape.”; the user replied: “[image omitted]”",
		"Final answer: “Option A: a cron job; Option B: a queue worker; Which one?”",
		"Earlier answer: “Option 1: patch the parser; Option 2: replace it.”; the user replied: “replace it, the old one is unmaintained”",
		"Final answer: “The importer skips empty rows.”",
		"Check: `go test ./...` passed.",
	}
	raw := "---\ndescription: tidy\ntask_outcome: success\nwritten_by: memctl heuristic\n---\n\n### Task 1: tidy\ntask: tidy\n\nReusable knowledge:\n- " + strings.Join(items, "\n- ") + "\n"
	mems := Parse([]store.Selected{{ThreadID: "s", SourceUpdatedAt: base, Cwd: "/src/shop", RawMemory: raw}})
	want := []string{
		"Earlier answer: “The cache now expires entries after an hour.”",
		items[1],
		"Earlier answer: “The header is centred.”; the user replied: “the footer still overlaps”",
		"Earlier answer: “The modal closes on escape.”",
		items[5], items[6], items[7],
	}
	if got := mems[0].Tasks[0].Knowledge; !slices.Equal(got, want) {
		t.Errorf("knowledge\n%q\nwant\n%q", got, want)
	}
}
