package heuristic_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/sessions/scripted"
)

// A table in the agent's final answer is content: each data row is one sentence of the answer, its cells named by
// the header ("Bug: …; File: …; Fix: …."), filtered as the answer's other sentences are. A row that only grades
// (a glyph, a number, one word), the rows of a table that lays out options or compares approaches, and the rows of
// an answer that ends by asking the user are no finding.
var answerTableCases = []patternCase{
	{
		name: "the rows of a findings table are the answer's sentences, each whole",
		turns: []scripted.Turn{{User: "The ledger loses its first batch after a restart. Find out why and fix it.",
			Steps: []scripted.Step{
				run("go test ./ledger/...", "--- FAIL: TestRestartKeepsBatch (0.02s)\n    writer_test.go:41: batch 1 missing\nFAIL\nFAIL\tacme/ledger\t0.03s", 1),
				edit("ledger/writer.go", "w.flushQueue()\n\tw.openLedger()", "w.openLedger()\n\tw.flushQueue()"),
				edit("ledger/retry.go", "r.acked = true", "r.acked = true\n\tr.attempts = 0"),
				run("go test ./ledger/...", "ok  \tacme/ledger\t0.05s", 0)},
			Final: "go vet finds no errors in the touched packages.\n\nWhat the review turned up:\n\n" +
				"**Two bugs found, both fixed:**\n\n" +
				"| Bug | File | Fix |\n|-----|------|-----|\n" +
				"| `flushQueue` ran before `openLedger` had set the handle | `ledger/writer.go` | moved the flush behind the open, so the first batch reaches the ledger |\n" +
				"| the retry counter kept counting after an acknowledgement | `ledger/retry.go` | `onAck` resets `attempts` to 0 |\n" +
				"| the parser split `a \\| b` at the bar | `ledger/parse.go` | — |\n" +
				"| Ledger tests | ✅ | green |\n"}},
		must: []string{
			"Bug: `flushQueue` ran before `openLedger` had set the handle; File: `ledger/writer.go`; " +
				"Fix: moved the flush behind the open, so the first batch reaches the ledger\\. " +
				"Bug: the retry counter kept counting after an acknowledgement; File: `ledger/retry.go`; Fix: `onAck` resets `attempts` to 0\\. " +
				"Bug: the parser split `a \\| b` at the bar; File: `ledger/parse.go`\\.”",
			"(?s)Final answer: “Bug: `flushQueue`.*Final answer: “Bug: `flushQueue`", // the raw memory and the rollout summary
			`The assistant answered \(its answer is quoted below\)\.`},
		mustNot: []string{`Ledger tests`, `go vet`, `both fixed`, `\| ?(Bug|File|Fix) ?\|`, `\|-{3}`},
	},
	{
		name: "a table of options, a comparison of approaches, a status board and an answer that asks state nothing done",
		turns: []scripted.Turn{
			{User: "How could the ledger write faster?", Steps: []scripted.Step{run("wc -l ledger/writer.go", "212 ledger/writer.go", 0)},
				Final: "Two ways to cut the write latency:\n\n| Option | Description |\n|---|---|\n" +
					"| A | batches the fsync calls every 50 ms |\n| B | moves the ledger onto a write-ahead file |\n\nReply with A or B."},
			{User: "Compare the two for crash safety.", Steps: []scripted.Step{run("wc -l ledger/retry.go", "88 ledger/retry.go", 0)},
				Final: "| Aspect | Approach A: batched fsync | Approach B: write-ahead file |\n|---|---|---|\n" +
					"| Crash window | loses up to 50 ms of entries | loses no acknowledged entry |\n"},
			{User: "What is the state of the checks?", Steps: []scripted.Step{run("go vet ./ledger/...", "", 0)},
				Final: "| Check | Result |\n|---|---|\n| vet | ✅ clean |\n| coverage | 81% |\n| lint | Done |\n"},
			{User: "Plan the write-ahead change.", Steps: []scripted.Step{run("ls ledger", "writer.go\nretry.go", 0)},
				Final: "| File | Change |\n|---|---|\n| `ledger/wal.go` | holds the append-only segment writer |\n\nShall I start on it?"},
			{User: "And the segment size?", Steps: []scripted.Step{run("grep -n segment ledger/writer.go", "", 1)},
				Final: "| Setting | Effect |\n|---|---|\n| `segmentBytes` | will roll a new segment every 4 MiB |\n"}},
		mustNot: []string{`fsync`, `write-ahead file`, `Crash window`, `clean`, `81%`, `Result: Done`, `append-only`, `segmentBytes`},
	},
}

func TestAnswerTables(t *testing.T) { checkPatterns(t, answerTableCases) }

// TestAnswerTableShrinksByRows: a table too long for the memory loses whole rows, never part of one.
func TestAnswerTableShrinksByRows(t *testing.T) {
	table := "| Bug | File | Fix |\n|---|---|---|\n"
	for i := range 60 {
		table += fmt.Sprintf("| `fault%02d` dropped the queued entries of a slow consumer | `pkg/f%02d.go` | "+
			"the consumer now drains its queue before it closes the channel |\n", i, i)
	}
	tc := patternCase{turns: []scripted.Turn{{User: "Fix the dropped entries in every consumer.",
		Steps: []scripted.Step{edit("pkg/f00.go", "close(ch)", "drain(ch)\n\tclose(ch)")}, Final: table}}}
	text := memoryOf(t, sessions.KindClaudeCode, writePattern(t, tc, sessions.KindClaudeCode))
	whole := regexp.MustCompile("Bug: `fault(\\d\\d)` dropped the queued entries of a slow consumer; File: `pkg/f(\\d\\d)\\.go`; " +
		"Fix: the consumer now drains its queue before it closes the channel\\.")
	rows, starts := len(whole.FindAllString(text, -1)), strings.Count(text, "Bug: `fault")
	if rows == 0 || rows != starts || rows >= 2*60 {
		t.Errorf("%d rows whole of %d begun (of 60, in two texts):\n%s", rows, starts, indent(text))
	}
}

// A run of questions the agent answered from what it knew, no tool call between, is stated once in the steps: the
// user's questions carry the session, and the same line after each of them is noise.
func TestQuestionsInARowAnsweredOnce(t *testing.T) {
	ask := func(q, a string) scripted.Turn { return scripted.Turn{User: q, Final: a} }
	checkPatterns(t, []patternCase{{
		name: "three questions of one task answered without a tool call: the step once",
		turns: []scripted.Turn{
			ask("What does the composition root do in this hexagonal project?", "It wires the adapters to the ports."),
			ask("what about the HTTP adapter of this hexagonal project?", "It lives under adapters/, beside the store."),
			ask("and the domain package of this hexagonal project?", "The domain only sees the ports."),
		},
		must: []string{`The assistant answered with no tool call since the user spoke\.\n- Follow-up from the user: ` +
			`“what about the HTTP adapter[^\n]*\n- Follow-up from the user: “and the domain package`},
		mustNot: []string{`Follow-up from the user: [^\n]*\n- The assistant answered with no tool call`},
	}})
}
