package heuristic_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/memctl/memctl/internal/sessions"
)

// Each failure seen on real sessions has a small transcript in
// testdata/rules (seen-*.claude.jsonl, Claude Code's own format, modelled
// on those sessions but naming nothing of them): what the memory must say
// and what it must never say.
var seenFailureCases = []ruleCase{
	{
		name: "error line: a dependency's warning and a warning's location are not the error",
		file: "seen-error-lines.claude.jsonl", kind: sessions.KindClaudeCode,
		must:    []string{"`mix test` failed[^\n]*CompileError\\) lib/shop/cart\\.ex:42: undefined function price_of/1"},
		mustNot: []string{"failed[^\n]*(deprecated|is unused|cart\\.ex:16`)"},
	},
	{
		// a failure through tail is the work's: the shell passed it on
		name: "error line: an informational line is not the error; a rule location joins its message",
		file: "seen-dialyzer-tail.claude.jsonl", kind: sessions.KindClaudeCode,
		must:    []string{"`mix dialyzer 2>&1 \\| tail -20` failed once \\(`lib/shop/trace\\.ex:58:13:pattern_match The pattern can never match the type\\.`\\)"},
		mustNot: []string{"failed[^\n]*No :ignore_warnings", "`Halting VM"},
	},
	{
		name: "pairing: a filtered rerun with no exit status of its own is no pass, a closed issue is no cause, a dismissal is no explanation",
		file: "seen-dialyzer-tail.claude.jsonl", kind: sessions.KindClaudeCode,
		must:    []string{"`mix dialyzer 2>&1 \\| tail -20` failed once [^\n]* and was run again with no exit status of its own"},
		mustNot: []string{"Fix: ", "tail -10`? instead|with `-10`", "instead of", "bd close[^\n]*(cause|fix)", "false positive", "task_outcome: (fail|success)"},
	},
	{
		name: "pairing: the change between a failed commit and the one that passed is listed",
		file: "seen-commit-pairing.claude.jsonl", kind: sessions.KindClaudeCode,
		must:    []string{"Function is too complex[^\n]*between the failure and the pass: edited lib/shop/checkout\\.ex \\(`validate\\(order\\)`\\)"},
		mustNot: []string{"passed as `git add", "instead of"},
	},
	{
		name: "a call cancelled because its sibling failed did not run: not a failure, not flaky; a read that found nothing is no failure",
		file: "seen-sibling-cancelled.claude.jsonl", kind: sessions.KindClaudeCode,
		must:    []string{"Fix: `mix test` failed \\([^\n]*\\) and passed on a rerun[^\n]*; between the failure and the pass: edited lib/shop/cart\\.ex"},
		mustNot: []string{"flaky", "vitest run`? failed", "Sibling tool call", "cart\\.test\\.ts failed", "totals\\.ex failed", "File does not exist"},
	},
	{
		// An exit 1 the agent meant to see is a failure all
		// the same (outcome only from the exit status)
		name: "harness text is not the user; a complaint about something else corrects nothing",
		file: "seen-harness-roles.claude.jsonl", kind: sessions.KindClaudeCode,
		must:    []string{"(asked|Follow-up from the user): “scrolling back in the xterm\\.js terminal still does not work"},
		mustNot: []string{"task-notification", "(asked|Follow-up from the user|pushed back): “[^”]*(task-id|Background command)", "corrected the agent"},
	},
	{
		name: "a fetch of another address does not fix the failed one; a reply to a question is no standing preference",
		file: "seen-other-target.claude.jsonl", kind: sessions.KindClaudeCode,
		must:    []string{"404"},
		mustNot: []string{"404[^\n]*(and|it) passed", "Preference signals:\n- “[^\n]*(option 1|overcomplicate)"},
	},
	{
		name: "reciting memory adds nothing; what the session found stands",
		file: "seen-memory-recital.claude.jsonl", kind: sessions.KindClaudeCode,
		must:    []string{"kamal deploy"},
		mustNot: []string{"(?i)according to my memory", "I remember", "fly\\.io with"},
	},
	{
		name: "several requests: each is a task of its own, with its own outcome and answer",
		file: "seen-multi-request.claude.jsonl", kind: sessions.KindClaudeCode,
		must: []string{
			"(?s)### Task 1: the staging deploy fails on the shares migration[^#]*task_outcome: success[^#]*Fix: `pnpm --filter api migration:run` failed[^#]*Final answer: “Fixed: the AddShares migration",
			"(?s)### Task 2: ok, now write the sharing trade-off notes[^#]*task_outcome: (fail|uncertain|partial)[^#]*gh pr create[^#]*No commits between main",
		},
		mustNot: []string{
			"(?s)### Task 1:[^#]*(gh pr create|docs/sharing\\.md|could not be opened)",
			"(?s)### Task 2:[^#]*(AddShares|migration:run)",
			"description: the staging deploy[^\n]*outcome (fail|uncertain|partial)",
			"No commits between[^\n]*still reported done",
			"add && git` added",
		},
	},
	{
		name: "a preference is the user's rule: not what the code never does, not a template speaking of the user, not a mapping to build",
		file: "seen-noise-classes.claude.jsonl", kind: sessions.KindClaudeCode,
		must: []string{"Preference signals:\n- “Never push to main without asking me\\.”",
			// a turn the user stopped ends the task on that stop
			"### Task \\d: next, write the idle session sweeper[^\n]*\ntask: [^\n]*\ntask_group: shop\ntask_outcome: uncertain",
			"Outcome: uncertain \\(the session ended on a step the user rejected or interrupted\\)"},
		mustNot: []string{"- “[^\n]*(never fires|ask the user|→|numbered plan)"},
	},
	{
		name: "noise: a query's, a passing check's and a formatter's runs tell nothing, nor a reference repeating a failure line; an overview and a diagnosis on the way are no statement",
		file: "seen-noise-classes.claude.jsonl", kind: sessions.KindClaudeCode,
		must: []string{
			"Check: `mix test` passed \\(`31 tests, 0 failures`\\)\\.\n",
			"Fix: `mix credo --strict` failed[^\n]*passed on a rerun; between the failure and the pass: edited lib/shop/registry\\.ex",
			"Final answer: “Fixed: the registry now monitors each session pid and deletes its row on `:DOWN`",
		},
		mustNot: []string{"(- |\\d\\. )`gh pr view", "(- |\\d\\. )`gh api", "`mix test` \\(ran", "`mix credo --strict` \\(ran", "`mix format` \\(ran", "ETS table is public", "(?s)(Storage|Keys|Lookup|Owner|Cleanup|Size): .*(Storage|Keys|Lookup|Owner|Cleanup|Size): .*(Storage|Keys|Lookup|Owner|Cleanup|Size): [^\n]*\n\nFailures"},
	},
	{
		name: "only what stood: a rejected design, a deleted file's description, an answer given without looking, a sub-agent's prompt, a plan's headings and estimates, a claim still to verify, a caption and a file called missing that the session read are no findings; the harness's words are not the agent's",
		file: "seen-stood-and-scratch.claude.jsonl", kind: sessions.KindClaudeCode,
		must: []string{
			"The user corrected the agent: “it's bad idea",
			"Final answer: “Done: closing entries now live in the journal",
			// said without looking: in the summary only, labelled as such
			"Final answer \\(given before any tool call\\): “A trial balance lists",
			"The assistant answered with no tool call since the user spoke\\.",
		},
		mustNot: []string{
			"Finding: [^\\n]*closings\\.jsonl",                              // the design the user rejected
			"Finding: [^\\n]*(Phase 1: Closing|Estimated effort|3-4 hours)", // a plan's frame
			"draft close loop",              // a file the session deleted
			"Finding: [^\n]*trial balance",  // answered without looking at anything
			"said “Examine|concise summary", // the parent's prompt to its sub-agent
			"Final answer: “Proposed design",
			"No response requested",                                          // Claude Code's words, not the agent's
			"Finding: [^\\n]*(needs verification|Next steps|lock the month)", // unverified, a plan, a question
			"- “dont run”",                                                   // a ban of a word or two
			"closing_test\\.go file is missing",                              // the session read it: the claim did not stand
			"Finding: [^\\n]*Ledger 2 with",                                  // a caption states nothing
		},
	},
	{
		name: "scratch: a repository tried out in /tmp, a binary built there and the agent's plan file are not the project's; a search of a missing path is not made to work by a search elsewhere; a conditional spec is no preference",
		file: "seen-stood-and-scratch.claude.jsonl", kind: sessions.KindClaudeCode,
		must: []string{
			"`rg -n 'func Append' vendor/ledgerkit` failed once \\(`rg: vendor/ledgerkit: No such file or directory \\(os error 2\\)`\\)\\.",
			"Files changed: `internal/book/journal\\.go`\\.",
		},
		mustNot: []string{
			"1f2e3d4|Commits made|made 1 git commit",
			"tidy-closing-otter|/tmp/ledger-bin \\(|try-close`? \\(ran",
			"vendor/ledgerkit[^\n]*passed later",
			"still reported done",
			"- “if a posting",
		},
	},
	{
		name: "a git worktree the session added under /tmp is the project's: its edits and commits count",
		file: "seen-worktree.claude.jsonl", kind: sessions.KindClaudeCode,
		must:    []string{"9a8b7c6", "round\\.go \\(update\\)"},
		mustNot: []string{"changed no file"},
	},
}

func TestSeenFailures(t *testing.T) {
	for _, tc := range seenFailureCases {
		t.Run(tc.name, func(t *testing.T) {
			text := memoryOf(t, tc.kind, filepath.Join("testdata", "rules", tc.file))
			if os.Getenv("MEMCTL_RULES_DUMP") != "" {
				t.Logf("%s", text)
			}
			for _, p := range tc.must {
				if !regexp.MustCompile(p).MatchString(text) {
					t.Errorf("the memory lacks %s", p)
				}
			}
			for _, p := range tc.mustNot {
				if m := regexp.MustCompile(p).FindString(text); m != "" {
					t.Errorf("the memory says %q (%s)", m, p)
				}
			}
			if t.Failed() {
				t.Logf("memory:\n%s", indent(text))
			}
		})
	}
}
