package consolidate

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/memdir"
)

// offlineMemory is a raw memory as the offline extractor writes it.
func offlineMemory(desc string, knowledge, failures []string) string {
	list := func(items []string) string {
		if len(items) == 0 {
			return "- none\n"
		}
		return "- " + strings.Join(items, "\n- ") + "\n"
	}
	return "---\ndescription: " + desc + "\ntask: " + desc + "\ntask_group: shop\ntask_outcome: success\ncwd: /home/dev/src/shop\n" +
		"keywords: npm, test\nwritten_by: memctl heuristic\n---\n\n### Task 1: " + desc + "\ntask: " + desc +
		"\ntask_group: shop\ntask_outcome: success\n\nPreference signals:\n- none\n\nReusable knowledge:\n" + list(knowledge) +
		"\nFailures and how to do differently:\n" + list(failures) + "\nReferences:\n- none\n"
}

// TestNewerFactsSupersedeOlderOnes: an older session fixed a failure of
// `npm test` and left `npm run lint` failing; a newer one saw both pass.
// The lint failure is superseded: the newer session says the command ended
// otherwise. The fix is not: a later pass of the same command agrees with
// it, and how the NaN was fixed is still worth knowing. The summary
// states each tip with its date; MEMORY.md keeps the superseded failure
// apart, with the date it stopped holding.
func TestNewerFactsSupersedeOlderOnes(t *testing.T) {
	day := int64(86400)
	base := int64(1785840059) // 2026-08-04
	const oldFix = "Fix: `npm test` failed (`total is NaN`) and passed after changes to src/cart.ts."
	sel := []Selected{
		{ThreadID: "older", SourceUpdatedAt: base - 3*day, Cwd: "/home/dev/src/shop", RolloutSlug: "old",
			RawMemory: offlineMemory("fix the cart total", []string{oldFix},
				[]string{"`npm run lint` failed once (`no-unused-vars`) and no later run passed."})},
		{ThreadID: "newer", SourceUpdatedAt: base, Cwd: "/home/dev/src/shop", RolloutSlug: "new",
			RawMemory: offlineMemory("add the coupon field", []string{"Check: `npm test` passed after the changes to src/coupon.ts.",
				"Check: `npm run lint` passed after the changes to src/coupon.ts."}, nil)},
	}
	for i := range sel {
		sel[i].RolloutSummary = "# " + sel[i].ThreadID
	}
	root := runHeuristic(t, "v1", sel)
	summary := readFile(t, filepath.Join(root, memdir.SummaryFile))
	for _, want := range []string{
		"- Check: `npm test` passed. (as of 2026-08-04)",
		"- Check: `npm run lint` passed. (as of 2026-08-04)",
		"- " + oldFix + " (as of 2026-08-01)",
	} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, summary)
		}
	}
	if strings.Contains(summary, oldFix+" (superseded") {
		t.Errorf("the summary calls a fix that still holds superseded:\n%s", summary)
	}
	handbook := readFile(t, filepath.Join(root, memdir.MemoryFile))
	for _, want := range []string{
		"## Superseded (a later session says otherwise; kept as history)",
		"- `npm run lint` failed once (`no-unused-vars`) and no later run passed. (superseded on 2026-08-04 by Task 1) [Task 2]",
		"- " + oldFix + " [Task 2]\n",
	} {
		if !strings.Contains(handbook, want) {
			t.Errorf("MEMORY.md lacks %q:\n%s", want, handbook)
		}
	}
}

// TestSessionsOnOtherTopicsSupersedeNothing: two sessions of one project
// ran the same commands for different work. Neither says a command ended
// otherwise than the other (a failure run again with no exit status of
// its own says nothing of how it ended), so both stand and nothing in the
// folder is marked superseded.
func TestSessionsOnOtherTopicsSupersedeNothing(t *testing.T) {
	day := int64(86400)
	base := int64(1785840059) // 2026-08-04
	older := []string{"Check: `go test ./...` passed after the changes to parser.go.",
		"Fix: `go vet ./...` failed (`unreachable code`) and passed on a rerun; between the failure and the pass: edited parser.go."}
	newer := []string{"Check: `go test ./...` passed after the changes to render.go.", "Check: `go vet ./...` passed."}
	sel := []Selected{
		{ThreadID: "older", SourceUpdatedAt: base - day, Cwd: "/home/dev/src/tool", RolloutSlug: "old", RolloutSummary: "# older",
			RawMemory: offlineMemory("parse the config file", older, []string{"`make lint` failed once (`exit 2`) and was run again with no exit status of its own."})},
		{ThreadID: "newer", SourceUpdatedAt: base, Cwd: "/home/dev/src/tool", RolloutSlug: "new", RolloutSummary: "# newer",
			RawMemory: offlineMemory("render the report", newer, []string{"`make lint` failed once (`exit 3`) and was run again with no exit status of its own."})},
	}
	root := runHeuristic(t, "v1", sel)
	handbook := readFile(t, filepath.Join(root, memdir.MemoryFile))
	for _, want := range append(append([]string(nil), older...), newer...) {
		if !strings.Contains(handbook, "- "+want+" [Task") {
			t.Errorf("MEMORY.md lacks the current fact %q:\n%s", want, handbook)
		}
	}
	for _, f := range []string{memdir.MemoryFile, memdir.SummaryFile} {
		if text := readFile(t, filepath.Join(root, f)); strings.Contains(strings.ToLower(text), "superseded") {
			t.Errorf("%s marks a fact superseded that nothing contradicts:\n%s", f, text)
		}
	}
	// The summary's tips give each command's check once, the newest, as
	// the command and that it passed; both fixes and checks stay in
	// MEMORY.md, with the files changed before.
	summary := readFile(t, filepath.Join(root, memdir.SummaryFile))
	if strings.Count(summary, "- Check: `go test ./...` passed") != 1 || !strings.Contains(summary, "- Check: `go test ./...` passed. (as of 2026-08-04)\n") || !strings.Contains(summary, "- "+older[1]) {
		t.Errorf("the summary's tips repeat a check or lack the newest check or the fix:\n%s", summary)
	}
}

// TestIdenticalMemoriesMergeWithTheirCount: three sessions of one project
// stated the same memory word for word. MEMORY.md gives each fact one
// bullet that says how many sessions stated it, never lists the older
// copies as superseded by the newest (nothing changed), and the summary's
// index has one line for the three; a fact that did change is still
// superseded.
func TestIdenticalMemoriesMergeWithTheirCount(t *testing.T) {
	day := int64(86400)
	base := int64(1785840059) // 2026-08-04
	const check, fix = "Check: `npm test` passed after the changes to src/cart.ts.", "Fix: `npm run build` failed (`TS2304`) and passed after changes to tsconfig.json."
	var sel []Selected
	for i, id := range []string{"s1", "s2", "s3"} {
		sel = append(sel, Selected{ThreadID: id, SourceUpdatedAt: base - int64(i)*day, Cwd: "/home/dev/src/shop", RolloutSlug: id,
			RawMemory: offlineMemory("fix the cart total", []string{check}, []string{"`npm ci` is slow without the cache."})})
	}
	// An older session that said otherwise about `npm test`.
	sel = append(sel, Selected{ThreadID: "s4", SourceUpdatedAt: base - 3*day, Cwd: "/home/dev/src/shop", RolloutSlug: "s4",
		RawMemory: offlineMemory("break the cart", []string{fix}, []string{"`npm test` failed (`total is NaN`) and no later run passed."})})
	root := runHeuristic(t, "v1", sel)
	memory := readFile(t, filepath.Join(root, memdir.MemoryFile))
	for _, want := range []string{
		"- " + check + " (seen in 3 sessions) [Task 1, Task 2, Task 3]\n",
		"- `npm ci` is slow without the cache. (seen in 3 sessions) [Task 1, Task 2, Task 3]\n",
		"- `npm test` failed (`total is NaN`) and no later run passed. (superseded on 2026-08-04 by Task 1) [Task 4]\n",
		"- " + fix + " [Task 4]\n", // one session: no count
	} {
		if !strings.Contains(memory, want) {
			t.Errorf("MEMORY.md lacks %q:\n%s", want, memory)
		}
	}
	if n := strings.Count(memory, check); n != 1 {
		t.Errorf("MEMORY.md states the repeated check %d times, want once:\n%s", n, memory)
	}
	summary := readFile(t, filepath.Join(root, memdir.SummaryFile))
	if n := strings.Count(summary, "desc: fix the cart total"); n != 1 || !strings.Contains(summary, "(seen in 3 sessions)\n") {
		t.Errorf("the summary's index lists the repeated memory %d times, or without its count:\n%s", n, summary)
	}
	if strings.Contains(summary, "learnings: "+check+" (superseded") {
		t.Errorf("the summary calls a repeated fact superseded:\n%s", summary)
	}
}

// TestUncheckedTaskIsNotDone: the offline extractor called two tasks a
// success, one after a passing check, one on the agent's final answer
// alone. MEMORY.md and the summary call the first a success and never the
// second: it reads as reported done with no check passed.
func TestUncheckedTaskIsNotDone(t *testing.T) {
	base := int64(1785840059) // 2026-08-04
	checked := offlineMemory("add the coupon field", []string{"Check: `npm test` passed after the changes to src/coupon.ts."}, nil)
	unchecked := strings.ReplaceAll(offlineMemory("rename the cart module", []string{"Final answer: “Renamed cart.ts to basket.ts and updated the imports.”"}, nil),
		"description: rename the cart module", "description: rename the cart module — outcome success; changed 3 files")
	sel := []Selected{
		{ThreadID: "checked", SourceUpdatedAt: base - 86400, Cwd: "/home/dev/src/shop", RolloutSlug: "c", RolloutSummary: "# checked", RawMemory: checked},
		{ThreadID: "unchecked", SourceUpdatedAt: base, Cwd: "/home/dev/src/shop", RolloutSlug: "u", RolloutSummary: "# unchecked", RawMemory: unchecked},
	}
	root := runHeuristic(t, "v1", sel)
	handbook := readFile(t, filepath.Join(root, memdir.MemoryFile))
	summary := readFile(t, filepath.Join(root, memdir.SummaryFile))
	for _, c := range []struct{ file, text, want string }{
		{"MEMORY.md", handbook, "## Task 1: rename the cart module, reported done by the agent, no check passed\n"},
		{"MEMORY.md", handbook, "## Task 2: add the coupon field, success\n"},
		{"the summary", summary, "desc: rename the cart module — outcome reported done by the agent, no check passed; changed 3 files\n"},
	} {
		if !strings.Contains(c.text, c.want) {
			t.Errorf("%s lacks %q:\n%s", c.file, c.want, c.text)
		}
	}
	for name, text := range map[string]string{"MEMORY.md": handbook, "the summary": summary} {
		if strings.Contains(text, "rename the cart module, success") || strings.Contains(text, "rename the cart module — outcome success") {
			t.Errorf("%s calls the unchecked task a success:\n%s", name, text)
		}
	}
}

// TestMemoryMDSaysEachThingOnce: a session of two tasks. MEMORY.md gives
// the session's file, place and keywords once, under its first task; each
// task's user_messages quote a message once and leave out a bare "yes";
// the summary's index shows the final answer, which the tips do not
// already state, rather than the check they list or the agent's earlier
// words.
func TestMemoryMDSaysEachThingOnce(t *testing.T) {
	const check = "Check: `go test ./...` passed after the changes to export.go."
	const answer = "Final answer: “The export writes one row per invoice; totals are summed in cents.”"
	raw := "---\ndescription: add the CSV export — outcome success\ntask_outcome: success\ncwd: /home/dev/src/billing\n" +
		"keywords: csv, export\nwritten_by: memctl heuristic\n---\n\n" +
		"### Task 1: add the CSV export\ntask: add the CSV export\ntask_outcome: success\n\nReusable knowledge:\n- " + check + "\n- " + answer + "\n\n" +
		"### Task 2: name the file after the month\ntask: name the file after the month\ntask_outcome: uncertain\n\nReusable knowledge:\n- none\n"
	summary := "# add the CSV export in billing\n\n## Task 1: add the CSV export\n\nOutcome: success (the last check `go test ./...` passed)\n\n" +
		"Key steps:\n- The user asked: “add the CSV export”\n- Follow-up from the user: “yes”\n- Follow-up from the user: “keep the header row”\n- Follow-up from the user: “keep the header row”\n\n" +
		"## Task 2: name the file after the month\n\nOutcome: uncertain (the assistant answered but nothing confirms the result)\n\n" +
		"Key steps:\n- The user asked: “name the file after the month”\n- Follow-up from the user: “ok”\n"
	sel := []Selected{{ThreadID: "t1", SourceUpdatedAt: 1785840059, Cwd: "/home/dev/src/billing", RolloutSlug: "csv",
		RolloutPath: "/home/dev/.codex/sessions/rollout-t1.jsonl", RawMemory: raw, RolloutSummary: summary}}
	root := runHeuristic(t, "v1", sel)
	handbook := readFile(t, filepath.Join(root, memdir.MemoryFile))
	for what, n := range map[string]int{
		"rollout_path=/home/dev/.codex/sessions/rollout-t1.jsonl": 1,
		"### keywords":            1,
		"(the session of Task 1)": 1,
		"Follow-up from the user: “keep the header row”": 1,
		"“yes”": 0,
		"“ok”":  0,
	} {
		if got := strings.Count(handbook, what); got != n {
			t.Errorf("MEMORY.md says %q %d times, want %d:\n%s", what, got, n, handbook)
		}
	}
	index := readFile(t, filepath.Join(root, memdir.SummaryFile))
	if !strings.Contains(index, "  - learnings: "+answer+"\n") || strings.Count(index, "Check: `go test ./...` passed") != 1 {
		t.Errorf("the summary's index repeats a tip as the learning, or lacks the answer:\n%s", index)
	}
}
