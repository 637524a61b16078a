package heuristic_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/extract"
	"github.com/memctl/memctl/internal/golden"
	"github.com/memctl/memctl/internal/sessions"
)

// Each precision rule of the extractor has a transcript in testdata/rules
// that shows it, written in the agent's own format (Codex rollout, Claude
// Code project file, memctl JSONL). The test extracts it the way "memctl
// extract --provider heuristic" does and reads the memory as text: what
// it must say, what it must never say.

type ruleCase struct {
	name    string
	file    string
	kind    sessions.Kind
	must    []string // regexps the memory must match
	mustNot []string // regexps it must not match
}

var ruleCases = []ruleCase{
	{
		name: "a changed flag is a fix, not flakiness",
		file: "rollout-2026-10-05T10-00-00-0199a001-0000-7000-8000-000000000001.jsonl", kind: sessions.KindCodex,
		must: []string{
			"Fix: `git push` failed \\(`fatal: The current branch feature-x has no upstream branch\\.`\\) and `git push --set-upstream origin feature-x` passed",
			"Ran `git push`: failed, exit 128",
		},
		mustNot: []string{`flaky`, `nothing changed`, `Check: [^\n]*git (push|add|commit)`, `hint:|To have this happen`},
	},
	{
		name: "an escalated rerun is a fix, not flakiness",
		file: "rollout-2026-10-05T11-00-00-0199a002-0000-7000-8000-000000000002.jsonl", kind: sessions.KindCodex,
		must: []string{
			"Fix: `pnpm install` failed in the sandbox \\(`ERR_PNPM_META_FETCH_FAIL[^`]*EAI_AGAIN[^`]*`\\) and passed when rerun with escalated permissions",
			"Check: `pnpm test` passed",
		},
		mustNot: []string{`flaky`, `nothing changed`},
	},
	{
		name: "a rejected write, an interrupt and a denied edit change nothing and are no success",
		file: "rejected-write.claude.jsonl", kind: sessions.KindClaudeCode,
		must: []string{
			"The user rejected the edit of available-tools\\.md; it did not run: the file was not written",
			"Permission for the edit of README\\.md was not granted; it did not run: the file was not written",
			"The user interrupted the agent",
			"edited no file directly",
			"task_outcome: (fail|uncertain)",
			"Preference signals:\n- “put it in README\\.md instead of a new file”",
		},
		mustNot: []string{`Created available-tools\.md`, `available-tools\.md \((add|update)`, `README\.md \(update`,
			`task_outcome: success`, `Edited README`},
	},
	{
		name: "an edit reverted with git checkout is no change",
		file: "reverted-edit.claude.jsonl", kind: sessions.KindClaudeCode,
		must: []string{
			"edited no file directly \\(1 more changed and then undone\\)",
			"The changes to server\\.go were undone \\(restored from git\\)",
			"Threw away the changes to server\\.go with `git checkout -- server\\.go`",
			"Fix: `go test ./\\.\\.\\.` failed \\(`server_test\\.go:57: body mismatch for /search\\?q=a<b: got \"a<b\", want \"a\\\\u003cb\"`; failing: TestGoldenResponses\\) " +
				"and passed on a rerun; between the failure and the pass: ran `git checkout -- server\\.go`",
		},
		mustNot: []string{`server\.go \(update`, `start the next attempt`, `flaky`, `Check: [^\n]*git checkout`, `the agent's explanation`},
	},
	{
		// The output's commit line is no verdict; the commit it
		// reports is a change.
		name: "a rerun with no exit status is unknown, not a pass; the commit it printed is made; failures are counted",
		file: "commit-no-exit-code.jsonl", kind: sessions.KindJSONL,
		must: []string{
			"the agent ran 2 commands \\(1 failed, 1 without an exit status of its own\\) and changed 1 file; it made 1 git commit",
			"`git commit -am 'Add exporter'` failed once \\(`exporter/csv\\.go:41:2: ineffectual assignment to err \\(ineffassign\\)`\\) and was run again with no exit status of its own",
			"Ran `git commit -am 'Add exporter'`: no exit status of its own; made 1 commit `64f1b9a` “Add exporter”\\.",
		},
		mustNot: []string{`never rerun`, `no later run passed`, `not run again to a pass`, `\(0 failed\)`, `Check: [^\n]*git commit`, `Fix: `,
			`the last command [^\n]*failed`},
	},
	{
		// Output never decides a verdict, though it says FAIL.
		name: "go test with no exit status is unknown: no failure, no pass, no success",
		file: "go-test-no-exit-code.jsonl", kind: sessions.KindJSONL,
		must: []string{
			"task_outcome: uncertain",
			"Ran `go test ./\\.\\.\\.`: no exit status of its own",
			"ran 1 command \\(0 failed, 1 without an exit status of its own\\)",
		},
		mustNot: []string{"`go test ./\\.\\.\\.` passe", "`go test ./\\.\\.\\.` failed", `task_outcome: success`, `project's test command`},
	},
	{
		name: "the error line states the problem, not a hint, an option or a location",
		file: "error-lines.jsonl", kind: sessions.KindJSONL,
		must: []string{
			"`git add dist/app\\.js` failed once \\(`The following paths are ignored by one of your \\.gitignore files: dist`\\)",
			"`codex exec --model gpt-4o 'say hi'` failed once \\(`Error: model gpt-4o is not supported: Codex requires compatible models\\.`\\)",
			"`node --test test/slug\\.test\\.js` failed once \\(`'hello world' !== 'hello-world'`; failing: slugify\\)",
		},
		mustNot: []string{"`hint:", "`3\\. Override", "`location:", "`stack:"},
	},
	{
		name: "standing instructions are kept word for word; a one-off request is not",
		file: "standing-instructions.claude.jsonl", kind: sessions.KindClaudeCode,
		must: []string{
			"- “Use pnpm, never npm\\.”",
			"- “It is important not to commit changes until the final step\\.”",
			"- “TODO is not acceptable, implementation must be full\\.”",
			"- “The importer must not be agent specific: read every agent's sessions through the adapter interface\\.”",
		},
		mustNot: []string{`(?m)^- “[^\n]*(for now|push yet|Implement the session importer)`, `avoid this in similar work`,
			`-> `},
	},
	{
		// Only the final answer is the agent's statement.
		name: "the agent's final answer is kept, in its words; what it said on the way is not",
		file: "rollout-2026-10-05T12-00-00-0199a010-0000-7000-8000-000000000010.jsonl", kind: sessions.KindCodex,
		must: []string{
			"Final answer: “Fixed: `prune\\.go` now keeps records strictly younger than the cutoff; the cutoff was inclusive before, which kept 30-day-old records one more day\\.”",
			"Check: `go test ./internal/retain/\\.\\.\\.` passed\\.\n",
			"internal/retain/prune\\.go \\(update\\)",
		},
		mustNot: []string{`Found it`, `Finding:`},
	},
	{
		name: "citations and the agent's reads of its memory are not memory",
		file: "rollout-2026-10-05T13-00-00-0199a011-0000-7000-8000-000000000011.jsonl", kind: sessions.KindCodex,
		must: []string{
			"the agent ran 1 command \\(0 failed\\)",
			"The agent's 2 reads of its own memory are left out",
			"Files read: package\\.json",
		},
		mustNot: []string{`oai-mem-citation`, `citation_entries`, `MEMORY\.md`, `memory_summary`, `\.codex/memories`, `\.memctl`,
			`0199a002-0000-7000-8000-000000000002`},
	},
	{
		name: "listings and git add are never the check; an identical rerun is stated, no cause (flakiness) named",
		file: "not-checks.jsonl", kind: sessions.KindJSONL,
		must: []string{
			"Fix: `git add config/server\\.json` failed \\(`fatal: Unable to create '/home/dev/src/site/\\.git/index\\.lock': File exists\\.`\\) and passed on a rerun; between the failure and the pass: ran `rm -f \\.git/index\\.lock`",
			"Fix: `npm run e2e` failed \\(`1\\) login page renders: Error: Timeout of 2000ms exceeded\\.`\\) and passed on a rerun; nothing else ran between the failure and the pass\\.",
		},
		mustNot: []string{`Check: [^\n]*(ps aux|git add|rm -f)`, `(ps aux|git add)[^\n]*the check`, `flaky`},
	},
	{
		name: "a failure the final answer talks over leaves the outcome uncertain",
		file: "claimed-done-after-failure.jsonl", kind: sessions.KindJSONL,
		must: []string{
			"task_outcome: uncertain",
			"Outcome: uncertain \\(the assistant answered and no check confirms the result",
			"`\\./scripts/deploy\\.sh staging` failed once \\(`Error: context \"staging\" does not exist in kubeconfig`\\)\\.",
		},
		mustNot: []string{`task_outcome: success`, `outcome success`, `nothing contradicts it`},
	},
	{
		name: "git commits are changes, npm run ci is a check and npm ci is not",
		file: "git-commits-npm-ci.jsonl", kind: sessions.KindJSONL,
		must: []string{
			"the agent ran 4 commands \\(0 failed\\) and edited no file directly; it made 2 git commits",
			"Ran `git cherry-pick 9f1c2ab 4e77d10`: ok, exit 0; made 2 commits `3b8e0f1` “parser: keep the last field”, `c0d4a92` “parser: accept CRLF line endings”\\.",
			"Ran `npm run ci`: passed, exit 0",
			"task_outcome: success",
			"the last check `npm run ci` passed",
		},
		mustNot: []string{`changed no file`, `Ran .npm ci.: passed`, `(?i)check[^\n]*.npm ci.`, `made commits? .1e2d3c4`},
	},
	{
		name: "package scripts and runner targets that verify are checks, make clean and a formatter's rewrite are not",
		file: "check-scripts.jsonl", kind: sessions.KindJSONL,
		must: []string{
			"Fix: `pnpm run typecheck` failed \\(`src/export\\.ts\\(14,7\\): error TS2322: [^`]*`\\) and passed on a rerun; between the failure and the pass: edited src/export\\.ts",
			"Ran `npm run check`: passed, exit 0",
			"Ran `just test`: passed, exit 0",
			"Ran `make check`: passed, exit 0",
			"Ran `make clean`: ok, exit 0",
			"Ran `prettier --write src`: ok, exit 0",
			"task_outcome: success",
			"the last check `make check` passed",
		},
		mustNot: []string{"Check: `(make clean|prettier)", "the last check `(make clean|prettier)", "Ran `(make clean|prettier --write src)`: passed"},
	},
	{
		name: "what git did to the repository only its output says: a session that edited no file says so, and no more",
		file: "git-only-changes.jsonl", kind: sessions.KindJSONL,
		must: []string{
			"the agent ran 8 commands \\(1 failed\\) and edited no file directly\\.",
			"Ran `git rebase main`: failed, exit 1 — `error: cannot rebase: You have unstaged changes\\.`",
			// Deleting a branch is no look around: it is listed as run.
			"Ran `git branch -D stale-experiment`: ok, exit 0",
		},
		mustNot: []string{`changed no file`, "git changed the repository"},
	},
	{
		name: "a passing check answers neither for a push that failed after it nor for a lint run still failing",
		file: "failure-after-check.jsonl", kind: sessions.KindJSONL,
		must: []string{
			"task_outcome: partial",
			"Outcome: partial \\(the last check `go test \\./\\.\\.\\.` passed, but `(golangci-lint run \\./\\.\\.\\.|git push origin main)` failed\\)",
			"`golangci-lint run \\./\\.\\.\\.` failed once \\(`quota/round\\.go:12:2: ineffectual assignment to step \\(ineffassign\\)`\\)",
			"`git push origin main` failed once \\([^\\n]*\\)",
		},
		mustNot: []string{`task_outcome: success`, `Outcome: success`, `Check: [^\n]*golangci-lint`},
	},
	{
		// The agent's thinking, however right, is no statement
		// of the memory's; the fix names the line the edit put in.
		name: "thinking right after a failure is not kept; the edit between the failure and the pass is",
		file: "thinking-cause.claude.jsonl", kind: sessions.KindClaudeCode,
		must: []string{
			"Fix: `go test \\./worker/\\.\\.\\.` failed \\(`panic: test timed out after 30s`\\) and passed on a rerun; between the failure and the pass: edited worker/worker\\.go \\(`close\\(w\\.results\\)`\\)",
		},
		mustNot: []string{`drain loop`, `reasoning`, `I'll close it in Stop`},
	},
	{
		name: "a cause found in thinking after more looking is not kept; a design 'because' is not either",
		file: "thinking-later-cause.claude.jsonl", kind: sessions.KindClaudeCode,
		must: []string{
			"Fix: `npm run build` failed \\(`src/api/client\\.ts\\(3,24\\): error TS2307: [^`]*`\\) and passed on a rerun; between the failure and the pass: edited tsconfig\\.json \\(`packages/common/src`\\)",
		},
		mustNot: []string{`keeps the rename`, `path alias`, `reasoning`, `TypeScript configuration`},
	},
	{
		name: "a Codex reasoning summary after a failure is not kept",
		file: "rollout-2026-10-06T12-00-00-0199a012-0000-7000-8000-000000000012.jsonl", kind: sessions.KindCodex,
		must: []string{
			"Fix: `go test \\./\\.\\.\\.` failed \\(`totals_test\\.go:22: total for 2026-03 = 1199, want 1200`; failing: TestMonthlyTotals\\) and passed on a rerun; between the failure and the pass: edited totals\\.go \\(`var cents int64`\\)",
		},
		mustNot: []string{`Tracing the rounding error`, `float64[^\n]*truncated`, `reasoning`},
	},
}

func TestRules(t *testing.T) {
	for _, tc := range ruleCases {
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
			goldenFile(t, strings.TrimSuffix(tc.file, ".jsonl")+".v1", text)
			v2 := memoryOfVersion(t, tc.kind, filepath.Join("testdata", "rules", tc.file), extract.V2)
			goldenFile(t, strings.TrimSuffix(tc.file, ".jsonl")+".v2", v2)
		})
	}
}

// TestLessonsInTheRawMemory: what a tool that is not a shell reported as
// failed, and that the user stopped the agent, are exit-status evidence:
// they reach the raw memory, which is what the memory folder is built
// from, not the rollout summary alone. A failed call the same call later
// passed says so, with what ran between and no cause.
func TestLessonsInTheRawMemory(t *testing.T) {
	raw, _ := memoryParts(t, sessions.KindClaudeCode, filepath.Join("testdata", "rules", "tool-errors.claude.jsonl"), extract.V1)
	for _, p := range []string{
		"(?m)^- The edit of config\\.yaml failed \\(`File has not been read yet\\. Read it first before writing to it\\.`\\) and passed when run again; " +
			"between the failure and the pass: the read of config\\.yaml\\.$",
		"(?m)^- The user interrupted `systemctl --user restart relay && journalctl --user -fu relay`\\.$",
	} {
		if !regexp.MustCompile(p).MatchString(raw) {
			t.Errorf("the raw memory lacks %s:\n%s", p, indent(raw))
		}
	}
}

// goldenFile compares got with testdata/golden/<name>.golden, rewriting
// the file instead when MEMCTL_UPDATE is set: the goldens show, for
// review, the whole memory each rule transcript gives.
func goldenFile(t *testing.T, name, got string) {
	t.Helper()
	golden.File(t, filepath.Join("testdata", "golden", name+".golden"), got)
}

func indent(s string) string { return "\t" + strings.ReplaceAll(s, "\n", "\n\t") }
