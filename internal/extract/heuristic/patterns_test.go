package heuristic_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/sessions/scripted"
)

// The patterns of what went wrong on sessions no rule had been written
// against (issue 33 lists them). Each case below is one of them, in a
// synthetic session written in Claude Code's and in Codex's own format
// (internal/sessions/scripted), or by hand where only one agent writes
// the lines at stake: what the memory must say, and what it must never
// say. Every case failed on the extractor the issue was filed against
// (5c34994), in at least one format, but the two marked guard, which it
// already got right and which keep the new core honest.
// Pattern 4's consolidation half is internal/consolidate's
// TestItemsReachTheFilesWhole, pattern 7 internal/project's
// TestWorktreesAreOneProject.
type patternCase struct {
	pattern int
	guard   bool
	name    string
	turns   []scripted.Turn          // written in both formats
	raw     map[sessions.Kind]string // and these transcripts, as the agent writes them
	must    []string                 // regexps the memory must match
	mustNot []string                 // regexps it must not match
}

func run(cmd, out string, exit int) scripted.Step {
	return scripted.Step{Cmd: cmd, Out: out, Exit: exit}
}
func say(text string) scripted.Step           { return scripted.Step{Say: text} }
func edit(file, old, nw string) scripted.Step { return scripted.Step{File: file, Old: old, New: nw} }

var patternCases = []patternCase{
	{
		pattern: 1, name: "a setup step between a failure and the pass is listed, the pass is no flakiness",
		turns: []scripted.Turn{{User: "Run the store tests and fix what fails.",
			Steps: []scripted.Step{
				run("go test ./internal/store/...", "--- FAIL: TestOrders (0.01s)\n    orders_test.go:18: dial tcp 127.0.0.1:5432: connect: connection refused\nFAIL\nFAIL\tacme/internal/store\t0.02s", 1),
				run("docker compose up -d db", "[+] Running 1/1\n ✔ Container acme-db-1  Started", 0),
				run("go test ./internal/store/...", "ok  \tacme/internal/store\t0.41s", 0)},
			Final: "The store tests pass once the database container is up."}},
		must: []string{"Fix: `go test ./internal/store/\\.\\.\\.` failed \\(`orders_test\\.go:18: dial tcp 127\\.0\\.0\\.1:5432: connect: connection refused`[^\n]*\\) " +
			"and passed on a rerun; between the failure and the pass: ran `docker compose up -d db`"},
		mustNot: []string{`flaky`, `nothing (else )?(ran|changed)`},
	},
	{
		pattern: 1, name: "a fix credits the file edited between the failure and the pass, not the last one edited",
		turns: []scripted.Turn{{User: "Make the parser accept empty input.",
			Steps: []scripted.Step{
				edit("parser/parse_test.go", "var cases = []string{", "var cases = []string{\"\","),
				run("go test ./parser", "--- FAIL: TestParse (0.00s)\n    parse_test.go:12: Parse(\"\"): unexpected EOF\nFAIL", 1),
				edit("parser/parse.go", "if len(src) == 0 {\n\t\treturn nil, io.ErrUnexpectedEOF", "if len(src) == 0 {\n\t\treturn &Doc{}, nil"),
				run("go test ./parser", "ok  \tacme/parser\t0.01s", 0),
				edit("CHANGELOG.md", "## Unreleased", "## Unreleased\n\n- The parser accepts empty input.")},
			Final: "Parse returns an empty document for empty input; the changelog says so."}},
		must:    []string{"between the failure and the pass: edited parser/parse\\.go \\(`return &Doc\\{\\}, nil`\\)"},
		mustNot: []string{"between the failure and the pass:[^\n]*(CHANGELOG|parse_test)", `flaky`},
	},
	{
		pattern: 2, name: "a passing run whose output prints an error on purpose is no failure",
		turns: []scripted.Turn{{User: "Run the API tests.",
			Steps: []scripted.Step{
				run("pytest -q tests/test_api.py 2>&1 | tail -8",
					"ERROR:app.api:upstream timed out (simulated)\nTraceback (most recent call last):\n  File \"app/api.py\", line 40, in fetch\nTimeoutError: upstream\n.....\n5 passed in 0.31s", 0),
				run("pytest -q tests/test_api.py",
					"ERROR:app.api:upstream timed out (simulated)\nTraceback (most recent call last):\n  File \"app/api.py\", line 40, in fetch\nTimeoutError: upstream\n.....\n5 passed in 0.31s", 0)},
			Final: "The API tests pass."}},
		must:    []string{"Check: `pytest -q tests/test_api\\.py` passed", "Ran `pytest -q tests/test_api\\.py 2>&1 \\| tail -8`: no exit status of its own"},
		mustNot: []string{"test_api\\.py[^`]*` failed", "TimeoutError"},
	},
	{
		pattern: 2, guard: true, name: "reading a CI log that shows failures is no failure of the session's",
		turns: []scripted.Turn{{User: "Why did CI fail on main?",
			Steps: []scripted.Step{run("gh run view 4711 --log-failed | grep -B2 -A8 FAIL",
				"test\tRun go test ./...\t--- FAIL: TestRetry (0.20s)\ntest\tRun go test ./...\t    retry_test.go:33: got 2 attempts, want 3\ntest\tRun go test ./...\tFAIL\tacme/retry\t0.21s", 0)},
			Final: "CI failed on TestRetry: retry_test.go expects 3 attempts and the client makes 2."}},
		// A harness that records no exit status (memctl's JSONL without
		// exit_code) leaves the output to be read: it says FAIL.
		raw: map[sessions.Kind]string{sessions.KindJSONL: `{"type": "session", "id": "ci-log", "cwd": "/home/dev/src/acme", "timestamp": "2026-03-02T09:00:00.000Z"}
{"type": "message", "role": "user", "text": "Why did CI fail on main?", "timestamp": "2026-03-02T09:00:01.000Z"}
{"type": "tool_call", "id": "k1", "name": "shell", "command": "gh run view 4711 --log-failed", "timestamp": "2026-03-02T09:00:02.000Z"}
{"type": "tool_result", "id": "k1", "output": "test\tRun go test ./...\t--- FAIL: TestRetry (0.20s)\ntest\tRun go test ./...\t    retry_test.go:33: got 2 attempts, want 3\ntest\tRun go test ./...\tFAIL\tacme/retry\t0.21s\n", "timestamp": "2026-03-02T09:00:03.000Z"}
{"type": "message", "role": "assistant", "text": "CI failed on TestRetry: retry_test.go expects 3 attempts and the client makes 2.", "final": true, "timestamp": "2026-03-02T09:00:04.000Z"}
`},
		must:    []string{"Final answer: “CI failed on TestRetry"},
		mustNot: []string{"gh run view 4711[^`]*` failed", "Check: `gh", "Fix: `gh", "failed[^\n]*retry_test\\.go:33"},
	},
	{
		pattern: 2, name: "a status a filter set is no verdict, and a reproduction is no check",
		turns: []scripted.Turn{{User: "The invoice total is off by a cent; find out why.",
			Steps: []scripted.Step{
				run("python scripts/repro_total.py", "total=10.299999999999999 expected=10.30\nBUG reproduced", 0),
				run("go test ./... 2>&1 | tail -3", "--- FAIL: TestTotal (0.00s)\nFAIL\nFAIL\tacme/invoice\t0.01s", 0)},
			Final: "The total is summed in float64; the cent is lost in the rounding."}},
		must: []string{"Ran `go test \\./\\.\\.\\. 2>&1 \\| tail -3`: no exit status of its own"},
		mustNot: []string{"Check: `python scripts/repro_total\\.py", "repro_total\\.py` passed", "tail -3` (failed|passed)",
			"Check: `go test"},
	},
	{
		pattern: 3, name: "only the final answer is the agent's statement: a refuted guess and a first fix are not",
		turns: []scripted.Turn{{User: "Fix the data race in the flusher.",
			Steps: []scripted.Step{
				say("The test fails because the cache layer writes its map from two goroutines, so the cache needs a sync.Map."),
				edit("cache/cache.go", "m map[string][]byte", "m sync.Map"),
				run("go test -race ./...", "WARNING: DATA RACE\nRead at 0x00c000180010 by goroutine 8:\n  acme/flush.(*Flusher).Flush()\n--- FAIL: TestFlush (0.02s)\nFAIL", 1),
				say("The cache is not it after all: Flush reads the buffer without holding mu."),
				edit("cache/cache.go", "m sync.Map", "m map[string][]byte"),
				edit("flush/flush.go", "buf := f.buf", "f.mu.Lock()\n\tbuf := f.buf\n\tf.mu.Unlock()"),
				run("go test -race ./...", "ok  \tacme/flush\t1.02s\nok  \tacme/cache\t0.40s", 0)},
			Final: "The race was in Flush, which read the buffer without holding mu. Flush now takes the lock; `go test -race ./...` passes."}},
		must:    []string{"Final answer: “The race was in Flush, which read the buffer without holding mu\\."},
		mustNot: []string{"cache layer", "needs a sync\\.Map", "not it after all", "the agent's explanation"},
	},
	{
		pattern: 3, guard: true, name: "an answer the user rejects is withdrawn, and the correction is kept",
		turns: []scripted.Turn{
			{User: "The job queue is slow under load. What should we do?",
				Final: "I recommend moving the job queue to Redis streams, which handle this load better."},
			{User: "no, that's not what I want: keep the queue in Postgres and fix the query.",
				Steps: []scripted.Step{
					say("First I'll add pg_partman, because partitioning the jobs table keeps the poll query fast."),
					edit("db/migrations/0042_jobs_index.sql", "", "CREATE INDEX jobs_run_at ON jobs (run_at) WHERE done = false;")},
				Final: "The queue stays in Postgres; a partial index on jobs.run_at serves the poll query."}},
		must:    []string{"The user corrected the agent: “no, that's not what I want: keep the queue in Postgres and fix the query\\.”", "Final answer: “The queue stays in Postgres"},
		mustNot: []string{"Redis", "pg_partman"},
	},
	{
		pattern: 4, name: "the final answer reaches the memory in whole sentences",
		turns: []scripted.Turn{{User: "Why do the nightly exports start with a data row?",
			Steps: []scripted.Step{
				edit("export/writer.go", "w.flush()\n\tw.writeHeader()", "w.writeHeader()\n\tw.flush()"),
				run("go test ./export/...", "ok  \tacme/export\t0.12s", 0)},
			Final: "The exports started with a data row because the writer flushed before it wrote the header, so the header landed after the first batch. " +
				"I swapped the two calls in export/writer.go, so the header is written before the first flush. " +
				"The nightly job in cron/export.sh calls the same writer and needs no change. " +
				"Exports over 2 GB still go through the old streaming path, which writes its own header and was not touched."}},
		must: []string{"Final answer: “The exports started with a data row because the writer flushed before it wrote the header, so the header landed after the first batch\\. " +
			"I swapped the two calls in export/writer\\.go, so the header is written before the first flush\\. " +
			"The nightly job in cron/export\\.sh calls the same writer and needs no change\\. " +
			"Exports over 2 GB still go through the old streaming path, which writes its own header and was not touched\\.”"},
		mustNot: []string{"\\w(\\.\\.\\.|…)”"},
	},
	{
		pattern: 5, name: "the user's standing rules are kept verbatim",
		turns: []scripted.Turn{{User: "Add a retry with backoff to the fetcher. Use table-driven tests, and never push to main; open a PR instead.",
			Steps: []scripted.Step{edit("fetch/fetch.go", "resp, err := c.Do(req)", "resp, err := c.doWithRetry(req)"),
				run("go test ./fetch/...", "ok  \tacme/fetch\t0.30s", 0)},
			Final: "The fetcher retries three times with exponential backoff."}},
		must: []string{"Preference signals:\n- “Use table-driven tests, and never push to main”"},
	},
	{
		pattern: 5, name: "a request the agent refused is no success",
		turns: []scripted.Turn{{User: "Delete the production database backups older than 30 days.",
			Steps: []scripted.Step{edit("backups-to-delete.txt", "", "db-2026-01-02.dump\ndb-2026-01-09.dump\n")},
			Final: "I won't delete production backups without a confirmed retention policy. I've listed the candidates in backups-to-delete.txt for you to review."}},
		must:    []string{"task_outcome: (partial|uncertain|fail)"},
		mustNot: []string{"task_outcome: success", "outcome success"},
	},
	{
		pattern: 5, name: "messages typed while the agent worked are the user's words",
		raw: map[sessions.Kind]string{
			sessions.KindClaudeCode: claudeQueued,
			sessions.KindCodex:      codexQueued,
		},
		must: []string{"also bump the version in package\\.json", "Preference signals:\n- “from now on, run prettier before you commit\\.”"},
	},
	{
		pattern: 6, name: "the error line is the tool's own error, not a warning, an info line or a footer",
		turns: []scripted.Turn{{User: "Install left-pad and build.",
			Steps: []scripted.Step{
				run("npm install left-padx", "npm WARN deprecated request@2.88.2: request has been deprecated\nnpm info using npm@10.2.4\nnpm ERR! code E404\n"+
					"npm ERR! 404 Not Found - GET https://registry.npmjs.org/left-padx - Not found\nnpm ERR! A complete log of this run can be found in: /home/dev/.npm/_logs/debug-0.log", 1),
				run("cargo build", "warning: unused variable: `x`\n --> src/main.rs:3:9\n  |\n3 |     let x = 1;\n  |         ^ help: if this is intentional, prefix it with an underscore: `_x`\n\n"+
					"error[E0308]: mismatched types\n --> src/main.rs:7:5\n  |\n7 |     \"7\"\n  |     ^^^ expected `u32`, found `&str`\n\nerror: could not compile `pad` (bin \"pad\") due to 1 previous error; 1 warning emitted", 101),
				run("make lint", "info: linting 12 files for errors\nwarning: config key 'max-line' is deprecated, use 'max-len'\n"+
					"src/app.ts:14:3: error  'user' is possibly undefined  (no-unsafe-member-access)\n✖ 1 problem (1 error, 0 warnings)\nmake: *** [Makefile:9: lint] Error 1", 2),
				run("python scripts/sync.py", "/usr/lib/python3/dist-packages/pkg_resources/__init__.py:116: PkgResourcesDeprecationWarning: 1.1build1 is an invalid version\n"+
					"Traceback (most recent call last):\n  File \"scripts/sync.py\", line 3, in <module>\n    import yaml\nModuleNotFoundError: No module named 'yaml'", 1)},
			Final: "left-padx does not exist on the registry, the build fails on a type error in src/main.rs, lint flags src/app.ts and the sync script lacks PyYAML."}},
		must: []string{"`npm install left-padx` failed[^\n]*\\(`npm ERR! (code E404|404 Not Found - GET https://registry\\.npmjs\\.org/left-padx - Not found)`",
			"`cargo build` failed[^\n]*\\(`error\\[E0308\\]: mismatched types`",
			"`make lint` failed[^\n]*\\(`src/app\\.ts:14:3: error 'user' is possibly undefined",
			"`python scripts/sync\\.py` failed[^\n]*\\(`ModuleNotFoundError: No module named 'yaml'`"},
		mustNot: []string{"failed[^\n]*(WARN deprecated|npm info|complete log|unused variable|info: linting|max-line|DeprecationWarning)"},
	},
	// Variants of the patterns the first round's cases do not cover.
	{
		pattern: 1, guard: true, name: "two files edited between a failure and the pass are both listed; a later check names both",
		turns: []scripted.Turn{{User: "Rounding of half cents is wrong in the invoice totals.",
			Steps: []scripted.Step{
				run("go test ./calc/...", "--- FAIL: TestRoundHalf (0.00s)\n    round_test.go:9: Round(0.125) = 0.12, want 0.13\nFAIL\nFAIL\tacme/calc\t0.01s", 1),
				edit("calc/round.go", "return math.Round(x*100) / 100", "return math.Floor(x*100+0.5) / 100"),
				edit("calc/round_test.go", "{0.125, 0.13},", "{0.125, 0.13},\n\t\t{-0.125, -0.12},"),
				run("go test ./calc/...", "ok  \tacme/calc\t0.01s", 0),
				run("go vet ./...", "", 0)},
			Final: "Half cents now round up in calc/round.go, and the table has a negative case."}},
		must: []string{"between the failure and the pass: edited calc/round\\.go \\(`[^`]+`\\), calc/round_test\\.go",
			"Check: `go vet \\./\\.\\.\\.` passed\\.\n"},
		mustNot: []string{"after the changes to calc/round(_test)?\\.go\\.", `flaky`},
	},
	{
		pattern: 1, name: "a sub-agent or another tool that ran between a failure and the pass is listed, the pass is no flakiness",
		turns: []scripted.Turn{{User: "The pager tests fail; get them green.",
			Steps: []scripted.Step{
				run("go test ./pager/...", "--- FAIL: TestLastPage (0.00s)\n    pager_test.go:21: pages = 3, want 4\nFAIL\nFAIL\tacme/pager\t0.01s", 1),
				{Tool: "Task", Out: "Fixed the off-by-one in pager.go: the last partial page was dropped."},
				run("go test ./pager/...", "ok  \tacme/pager\t0.01s", 0)},
			Final: "The pager tests pass: the last partial page was dropped by an off-by-one."}},
		must:    []string{"between the failure and the pass: ran `Task`"},
		mustNot: []string{`flaky`, `nothing (else )?(ran|changed)`},
	},
	{
		pattern: 2, name: "the error line is the failing test's own report, not an error a passing test printed, a warning or a footer",
		turns: []scripted.Turn{{User: "Run the retry and date tests.",
			Steps: []scripted.Step{
				run("go test -v ./retry/...", "=== RUN   TestRetryGivesUp\n    retry_test.go:31: error: upstream unavailable (injected by the test)\n--- PASS: TestRetryGivesUp (0.00s)\n"+
					"=== RUN   TestBackoffDoubles\n    retry_test.go:52: backoff after 2 tries = 200ms, want 400ms\n--- FAIL: TestBackoffDoubles (0.00s)\nFAIL\nFAIL\tacme/retry\t0.01s", 1),
				run("npx jest src/date.test.ts", "  console.error\n    Error: network down (simulated by the test)\n\n      at Object.<anonymous> (src/fetch.test.ts:12:11)\n\n"+
					" FAIL  src/date.test.ts\n  parseDate\n    ✓ parses ISO dates (2 ms)\n    ✕ rejects month 13 (3 ms)\n\n  ● parseDate › rejects month 13\n\n"+
					"    expect(received).toThrow()\n\n    Received function did not throw\n\nTests:       1 failed, 1 passed, 2 total\nTime:        0.412 s", 1)},
			Final: "Backoff does not double and parseDate accepts month 13."}},
		must: []string{"`go test -v \\./retry/\\.\\.\\.` failed[^\n]*\\(`retry_test\\.go:52: backoff after 2 tries = 200ms, want 400ms`; failing: TestBackoffDoubles",
			"`npx jest src/date\\.test\\.ts` failed[^\n]*\\(`expect\\(received\\)\\.toThrow\\(\\) Received function did not throw`; failing: rejects month 13"},
		mustNot: []string{"failed[^\n]*(upstream unavailable|network down|Tests: +1 failed)"},
	},
	{
		pattern: 2, name: "Rust's and RSpec's failures are quoted from the failing test's report, not a footer, a log line or a stack frame",
		turns: []scripted.Turn{{User: "Run the Rust and the Ruby tests.",
			Steps: []scripted.Step{
				run("cargo test", "warning: unused import: `std::fmt`\n --> src/lib.rs:1:5\nrunning 2 tests\ntest tests::parses_empty ... ok\ntest tests::rounds_half ... FAILED\n\nfailures:\n\n"+
					"---- tests::rounds_half stdout ----\nthread 'tests::rounds_half' panicked at src/lib.rs:20:9:\nassertion `left == right` failed\n  left: 12\n right: 13\n"+
					"note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\nfailures:\n    tests::rounds_half\n\n"+
					"test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\nerror: test failed, to rerun pass `--lib`", 101),
				run("bundle exec rspec", "E, [2026-03-02T09:00:00] ERROR -- : payment gateway refused (stubbed)\n..F\n\nFailures:\n\n  1) Invoice#total rounds half cents up\n"+
					"     Failure/Error: expect(invoice.total).to eq(13)\n\n       expected: 13\n            got: 12\n\n       (compared using ==)\n"+
					"     # ./spec/invoice_spec.rb:9:in `block (3 levels) in <top (required)>'\n\nFinished in 0.01 seconds (files took 0.1 seconds to load)\n"+
					"3 examples, 1 failure\n\nFailed examples:\n\nrspec ./spec/invoice_spec.rb:7 # Invoice#total rounds half cents up", 1)},
			Final: "Half cents round down in both the crate and the invoice model."}},
		must: []string{"`cargo test` failed[^\n]*\\(`` thread 'tests::rounds_half' panicked at src/lib\\.rs:20:9: assertion `left == right` failed ``; failing: tests::rounds_half\\)",
			"`bundle exec rspec` failed[^\n]*\\(`Failure/Error: expect\\(invoice\\.total\\)\\.to eq\\(13\\)`; failing: Invoice#total rounds half cents up\\)"},
		mustNot: []string{"failed[^\n]*(to rerun|unused import|payment gateway|invoice_spec\\.rb:9)"},
	},
	{
		pattern: 2, name: "a check run before any change of its task is a baseline, no check of the work",
		turns: []scripted.Turn{{User: "Totals drop the last cent on refunds; fix it.",
			Steps: []scripted.Step{
				run("go test ./refund/...", "ok  \tacme/refund\t0.02s", 0),
				edit("refund/total.go", "return int64(amount * 100)", "return int64(math.Round(amount * 100))")},
			Final: "Refund totals are rounded to the cent now instead of truncated."}},
		must:    []string{"Ran `go test \\./refund/\\.\\.\\.`: passed"},
		mustNot: []string{"Check: `go test", "Outcome: success \\(the last check"},
	},
	{
		pattern: 5, name: "a request refused after a passing check is no success",
		turns: []scripted.Turn{{User: "Run the tests, then deploy the release to production.",
			Steps: []scripted.Step{run("make test", "ok  \tacme/...\t1.20s", 0)},
			Final: "I can't deploy to production from this environment: the deploy key is not available here. The tests pass, so the release is ready for you to deploy."}},
		must:    []string{"task_outcome: (partial|uncertain|fail)"},
		mustNot: []string{"task_outcome: success"},
	},
	{
		pattern: 5, name: "part of a request the agent says it could not do is no success, even after a passing check",
		turns: []scripted.Turn{{User: "Upgrade React to 19 and fix the build.",
			Steps: []scripted.Step{
				edit("package.json", "\"react\": \"18.3.1\"", "\"react\": \"19.0.0\""),
				run("npm run build", "> app@1.0.0 build\n> vite build\n✓ built in 1.2s", 0)},
			Final: "React is at 19.0.0 in package.json and the build passes. However, I was unable to upgrade react-dom: npm refused the peer range of @acme/ui."}},
		must:    []string{"task_outcome: (partial|uncertain|fail)"},
		mustNot: []string{"task_outcome: success"},
	},
	{
		pattern: 5, name: "a short ban of the user's is a standing rule",
		turns: []scripted.Turn{{User: "Add a cache for the exchange rates. Don't overcomplicate.",
			Steps: []scripted.Step{edit("rates/cache.go", "", "package rates\n\nvar cache = map[string]float64{}\n")},
			Final: "Rates are cached in a map in rates/cache.go."}},
		must: []string{"Preference signals:\n- “Don't overcomplicate\\.”"},
	},
	{
		pattern: 5, name: "what the user does not want is a preference, said in the first person",
		turns: []scripted.Turn{{User: "Add a settings page for the theme. I don't want a dark mode toggle on it, " +
			"just the accent colour.",
			Steps: []scripted.Step{edit("web/settings.tsx", "", "export function Settings() { return null }\n")},
			Final: "The settings page has an accent colour picker."}},
		must: []string{"Preference signals:\n- “I don't want a dark mode toggle on it, just the accent colour\\.”"},
	},
	{
		pattern: 2, name: "a session whose branch changed is not described by the branch it started on",
		turns: []scripted.Turn{{User: "Start a branch for the CSV export and add the writer.",
			Steps: []scripted.Step{
				run("git checkout -b feature/csv-export", "Switched to a new branch 'feature/csv-export'", 0),
				edit("export/csv.go", "", "package export\n\nfunc WriteCSV() {}\n")},
			Final: "The writer is in export/csv.go on the new branch."}},
		mustNot: []string{"branch `main`"},
	},
	{
		pattern: 5, name: "what the user pasted is not their own rule; their own sentence beside it is",
		turns: []scripted.Turn{{User: "The build broke with this:\n```\nerror: you must always run make generate first\nMakefile:12: recipe for target 'build' failed\n```\n" +
			"The reviewer wrote:\n> Never call the billing API directly from handlers.\n\n    warning: prefer io.ReadAll over ioutil.ReadAll\n" +
			"Fix the build. From now on, run make generate before you build.",
			Steps: []scripted.Step{run("make generate && make build", "ok", 0)},
			Final: "The build passes after make generate."}},
		must:    []string{"Preference signals:\n- “From now on, run make generate before you build\\.”\n\n"},
		mustNot: []string{`Preference signals:\n(- [^\n]*\n)*- [^\n]*(always run make generate|Never call the billing|prefer io\.ReadAll)`},
	},
	{
		pattern: 5, name: "what follows a shell prompt or a line introducing someone else's words is pasted, up to a blank line",
		turns: []scripted.Turn{{User: "CI is red:\n$ npm test\nYou must always set NODE_ENV before running the suite.\n  1 failing\n\n" +
			"The reviewer said:\nPlease always prefer async/await over callbacks in this module.\n\nFix the CI failure. Always run npm test before you push.",
			Steps: []scripted.Step{run("NODE_ENV=test npm test", "12 passing", 0)},
			Final: "CI passes with NODE_ENV set."}},
		must:    []string{"Preference signals:\n- “Always run npm test before you push\\.”\n\n"},
		mustNot: []string{`Preference signals:\n(- [^\n]*\n)*- [^\n]*(NODE_ENV before running|async/await)`},
	},
	{
		pattern: 1, name: "a later, different edit of the file is not the failed edit run again, nor its answer",
		raw:     map[sessions.Kind]string{sessions.KindClaudeCode: claudeEditRedone},
		must:    []string{"The edit of config\\.yaml failed \\(`String to replace not found in file\\.`\\)\\.\n"},
		mustNot: []string{`run again`, `later, different`},
	},
	{
		pattern: 1, name: "between a failed call and the same call's pass: every change, no look around",
		raw: map[sessions.Kind]string{sessions.KindClaudeCode: claudeEditRetried},
		must: []string{"The edit of config\\.yaml failed \\([^\n]*\\) and passed when run again; between the failure and the pass: " +
			"`sed -Ei 's/\\[\\[:space:\\]\\]\\+\\$//' config\\.yaml`, the read of config\\.yaml\\."},
		mustNot: []string{"between the failure[^\n]*(`cat|`grep|`ls|`head)"},
	},
	{
		pattern: 1, name: "an in-place rewrite between a failure and the pass is no flakiness",
		turns: []scripted.Turn{{User: "Make the slug tests pass.",
			Steps: []scripted.Step{
				run("go test ./slug", "--- FAIL: TestSlug (0.00s)\n    slug_test.go:9: Slug(\"A  B\") = \"a--b\", want \"a-b\"\nFAIL", 1),
				run("sed -Ei 's/ReplaceAll\\(s, \" \"/ReplaceAll(strings.Join(strings.Fields(s), \" \"), \" \"/' slug/slug.go", "", 0),
				run("go test ./slug", "ok  \tacme/slug\t0.01s", 0)},
			Final: "Slug collapses runs of spaces now."}},
		must:    []string{"between the failure and the pass: ran `sed -Ei "},
		mustNot: []string{`flaky`, `nothing (else )?(ran|changed)`},
	},
	{
		pattern: 2, name: "a line that failed is a failure whatever filter ends it",
		turns: []scripted.Turn{{User: "Run the server tests.",
			Steps: []scripted.Step{
				run("go test ./server 2>&1 | grep -v '^ok'", "--- FAIL: TestRoutes (0.00s)\n    routes_test.go:21: GET /health = 500, want 200\nFAIL", 1)},
			Final: "TestRoutes fails: /health answers 500."}},
		must:    []string{"`go test \\./server 2>&1 \\| grep -v '\\^ok'` failed once \\(`routes_test\\.go:21: GET /health = 500, want 200`"},
		mustNot: []string{`no exit status of its own`},
	},
	{
		pattern: 2, name: "a search at the end of a line that found nothing is no failure",
		turns: []scripted.Turn{{User: "Do the server tests still fail?",
			Steps: []scripted.Step{
				run("go test ./server 2>&1 | grep FAIL", "", 1),
				run("go test ./server", "ok  \tacme/server\t0.02s", 0)},
			Final: "No: the server tests pass."}},
		must:    []string{"`go test \\./server` passed"},
		mustNot: []string{"grep FAIL` failed", `flaky`, `between the failure`},
	},
	{
		pattern: 2, name: "a command of any program that exits 1 and prints nothing answered no: it did not fail",
		turns: []scripted.Turn{{User: "Is the worker still running, and does the build differ from the release?",
			Steps: []scripted.Step{
				run("pgrep -f queue-worker", "", 1),
				run("cmp -s build/app release/app", "", 1),
				run("git diff --quiet -- config", "", 1),
				run("git merge-base --is-ancestor v1.2.0 HEAD", "", 1),
				run("./scripts/has-pending-migrations", "", 1)},
			Final: "The worker is not running and the build differs from the release."}},
		mustNot: []string{"(pgrep|cmp|git|migrations)[^`]*` failed", "Failures and how to do differently:\n- `"},
	},
	{
		pattern: 4, name: "a check of a scratch file outside the project is no evidence of the task's outcome",
		turns: []scripted.Turn{{User: "Add a retry to the upload helper.",
			Steps: []scripted.Step{
				edit("src/upload.js", "send(req)", "retry(() => send(req), 3)"),
				run("node --check /tmp/helper.js", "", 0)},
			Final: "The upload helper retries three times."}},
		mustNot: []string{"Outcome: success", "outcome success"},
	},
	{
		pattern: 2, name: "a command the sandbox failed with no exit status is a failure",
		raw:     map[sessions.Kind]string{sessions.KindCodex: codexSandboxFailed},
		must:    []string{"`make migrate` failed once \\(`(failed in sandbox: )?psql: error: connection to server on socket"},
		mustNot: []string{`no exit status of its own`},
	},
	{
		pattern: 1, name: "another script the same program ran is no rerun of the failed one",
		turns: []scripted.Turn{{User: "Load the fixtures into the dev database.",
			Steps: []scripted.Step{
				run("python3 scripts/load_fixtures.py", "Traceback (most recent call last):\nKeyError: 'DATABASE_URL'", 1),
				run("python3 scripts/check_env.py", "python 3.12, venv ok", 0)},
			Final: "The loader needs DATABASE_URL; the environment check passes."}},
		must:    []string{"`python3 scripts/load_fixtures\\.py` failed once \\(`KeyError: 'DATABASE_URL'`\\)\\.\n"},
		mustNot: []string{`Fix: [^\n]*load_fixtures`, `load_fixtures[^\n]*(and passed|later, different)`},
	},
	{
		pattern: 1, name: "another command's pass of the same purpose is no answer to a failure",
		turns: []scripted.Turn{{User: "Make the linter happy.",
			Steps: []scripted.Step{
				run("golangci-lint run ./...", "api/handler.go:12:2: ineffectual assignment to err (ineffassign)", 1),
				run("make lint", "lint ok", 0)},
			Final: "The lint target passes."}},
		must:    []string{"`golangci-lint run \\./\\.\\.\\.` failed once \\(`api/handler\\.go:12:2: ineffectual assignment[^\n]*`\\)\\.\n"},
		mustNot: []string{`For [a-z]+, `, `passed after[^\n]*golangci`, `later, different`},
	},
	{
		pattern: 1, guard: true, name: "a commit a hook refused, then a commit with another message, is one work",
		turns: []scripted.Turn{{User: "Commit the parser change.",
			Steps: []scripted.Step{
				run(`git commit -m "parser: accept empty input"`, "lint-staged: parse.go:3: exported func Parse should have comment\nhusky - pre-commit hook exited with code 1", 1),
				edit("parser/parse.go", "func Parse(", "// Parse reads a document.\nfunc Parse("),
				run(`git commit -am "parser: accept empty input, document Parse"`, "[main 1a2b3c4] parser: accept empty input, document Parse\n 1 file changed", 0)},
			Final: "Committed as 1a2b3c4 after documenting Parse."}},
		must: []string{"Fix: `git commit -m \"parser: accept empty input\"` failed \\([^\n]*\\) and `git commit -am \"parser: accept empty input, document Parse\"` passed; " +
			"between the failure and the pass: edited parser/parse\\.go"},
	},
	{
		pattern: 3, name: "with no check, the final answer's words make no success, and a fix-up command no partial",
		turns: []scripted.Turn{{User: "Rename the config key timeout to timeout_ms.",
			Steps: []scripted.Step{
				edit("config/defaults.yaml", "timeout: 30", "timeout_ms: 30000"),
				run("rm -f config/defaults.yaml.bak", "rm: cannot remove 'config/defaults.yaml.bak': Permission denied", 1)},
			Final: "Done: I've renamed the key and updated the default."}},
		must:    []string{"task_outcome: uncertain", "`rm -f config/defaults\\.yaml\\.bak` failed once"},
		mustNot: []string{`outcome success`, `task_outcome: (success|partial)`, `reported done`, `the last command`},
	},
	{
		pattern: 3, name: "a line that prints ok whatever its work did has no exit status of its own",
		turns: []scripted.Turn{{User: "Check the migrations.",
			Steps: []scripted.Step{
				run(`if make migrate-check; then echo "ok"; else echo "migrations out of date"; fi`, "make: *** [migrate-check] Error 1\nmigrations out of date", 0)},
			Final: "The migration check reports the schema out of date."}},
		must:    []string{"no exit status of its own"},
		mustNot: []string{`Check: [^\n]*migrate-check`, `migrate-check[^\n]*: (passed|ok)`, `task_outcome: success`},
	},
	{
		pattern: 3, name: "an answer a correction opening on 'actually' overrules is withdrawn",
		turns: []scripted.Turn{
			{User: "Which port does the admin server listen on?",
				Steps: []scripted.Step{run("rg -n 'listen' config/admin.toml", "3:listen = \"0.0.0.0:8081\"", 0)},
				Final: "The admin server listens on port 8081, set in config/admin.toml."},
			{User: "Actually that file is unused since the move to env vars; it is ADMIN_PORT, 9090 by default.",
				Final: "Understood: ADMIN_PORT sets it, 9090 by default."}},
		must:    []string{"ADMIN_PORT"},
		mustNot: []string{`answer: [^\n]*listens on port 8081`},
	},
	{
		pattern: 3, name: "an answer the same check's later failure disproves, nothing changed between, is withdrawn",
		turns: []scripted.Turn{
			{User: "Make the date test stop failing.",
				Steps: []scripted.Step{
					edit("dates/format_test.go", "now := time.Now()", "now := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)"),
					run("go test ./dates", "ok  \tacme/dates\t0.01s", 0)},
				Final: "The date test is fixed: it now uses a fixed clock."},
			{User: "run it a few more times",
				Steps: []scripted.Step{run("go test -count=5 ./dates", "--- FAIL: TestFormat (0.00s)\n    format_test.go:31: got 01/02, want 02/01\nFAIL", 1)},
				Final: "It fails one run in five: the formatter still reads the local zone."}},
		must:    []string{"reads the local zone"},
		mustNot: []string{`answer: [^\n]*test is fixed`},
	},
	{
		pattern: 5, name: "a prompt template's task is named after no line of it, its headings nor the words filling it in",
		turns: []scripted.Turn{{User: "## Request\n\n```text\nrename the retry option to max_attempts\n```\n\n## Steps\n\n1. Find every use.\n2. Keep the old name working.",
			Steps: []scripted.Step{edit("config/options.go", "Retry int", "MaxAttempts int")},
			Final: "The option is max_attempts now."}},
		must:    []string{"### Task 1: a request using a prompt template\n", "The user asked: “## Request ```text rename the retry"},
		mustNot: []string{"Task 1: ## Request"},
	},
	{
		pattern: 5, name: "a prompt template run with its fill-in blank is no request of the user's",
		turns: []scripted.Turn{{User: "## Request\n\n```text\n```\n\n## Steps\n\n1. Find every use of the option.\n2. Keep the old name working.",
			Steps: []scripted.Step{run("grep -rn Retry config", "config/options.go:3: Retry int", 0)},
			Final: "Nothing to rename: the request is empty."}},
		must:    []string{"### Task 1: a request using a prompt template\n"},
		mustNot: []string{"Task 1: [^\n]*Find every use"},
	},
	{
		pattern: 2, name: "the numbered options of an answer that ends by asking the user are no findings",
		turns: []scripted.Turn{
			{User: "Why does the server test fail on CI only?",
				Steps: []scripted.Step{run("go test ./server", "--- FAIL: TestListen\n    listen_test.go:12: bind: address already in use\nFAIL", 1)},
				Final: "TestListen fails because two tests bind the port 8080.\n\n1. Give each test its own port.\n" +
					"2. Run the server tests one at a time.\n\nWhich do you prefer?"},
			{User: "go with per-test ports and note it in the test file",
				Steps: []scripted.Step{edit("server/listen_test.go", ":8080", ":0")},
				Final: "Each server test now listens on a port of its own."}},
		must:    []string{"Earlier answer: “TestListen fails because two tests bind the port 8080\\.”"},
		mustNot: []string{"Give each test its own port", "Run the server tests one at a time"},
	},
	{
		pattern: 5, name: "a block a tool put into the user's turn in a tag of its own is no word of the user's, in kebab case too",
		turns: []scripted.Turn{
			{User: "Add a --json flag to the status command in cmd/status.go.",
				Steps: []scripted.Step{edit("cmd/status.go", "flags()", "flags(json)")},
				Final: "The status command takes --json now."},
			{User: "<hook-output>\nlint: always run gofmt before you commit\n</hook-output>\nalso rename the status helper",
				Steps: []scripted.Step{edit("cmd/status.go", "func helper(", "func renderStatus(")},
				Final: "The status helper is renderStatus now."}},
		must:    []string{"Follow-up from the user: “also rename the status helper”"},
		mustNot: []string{"always run gofmt", "hook-output"},
	},
	{
		pattern: 5, name: "a push back withdraws every answer the task gave so far, not only the last",
		turns: []scripted.Turn{
			{User: "Find why the upload requests time out.",
				Steps: []scripted.Step{run("cat logs/upload.log", "dial tcp: lookup files.internal: i/o timeout", 0)},
				Final: "The timeout comes from the DNS resolver configured in net/dns.go."},
			{User: "also check the upload retries",
				Steps: []scripted.Step{run("grep -n Retry net/retry.go", "12: Retry: 5", 0)},
				Final: "The upload retries double the wait five times in net/retry.go."},
			{User: "that's wrong, the upload still times out with the retries off",
				Steps: []scripted.Step{run("grep -n Idle net/proxy.go", "8: IdleTimeout: 2 * time.Second", 0)},
				Final: "The proxy in net/proxy.go closes idle upload connections after 2 seconds."}},
		must:    []string{"Final answer: “The proxy in net/proxy\\.go closes idle upload connections after 2 seconds\\.”"},
		mustNot: []string{"DNS resolver", "double the wait"},
	},
	{
		pattern: 5, name: "a reply to the agent's question, however long, answers it and opens no task",
		turns: []scripted.Turn{
			{User: "Fix the login redirect loop.",
				Steps: []scripted.Step{edit("auth/redirect.go", "return next", "return safeNext(next)")},
				Final: "The redirect now ignores a next URL pointing back at the login page. Should I also cover the logout page?"},
			{User: "it's good, but several browser tabs can hit the logout page at once and each of them must land on the public home page with a fresh session cookie",
				Steps: []scripted.Step{edit("auth/logout.go", "return next", "return home")},
				Final: "Logout now always redirects to the home page."}},
		must:    []string{"Follow-up from the user: “it's good, but several browser tabs"},
		mustNot: []string{"### Task 2"},
	},
	{
		pattern: 5, name: "a no answering the agent's own question is an answer: no correction, no rejection, no rule",
		turns: []scripted.Turn{
			{User: "Raise the dial timeout in net/dial.go to ten seconds.",
				Steps: []scripted.Step{edit("net/dial.go", "5 * time.Second", "10 * time.Second")},
				Final: "The dial timeout in net/dial.go is 10 seconds now. Should I also raise the retry count?"},
			{User: "no, don't touch the retries", Steps: []scripted.Step{run("go test ./net", "ok  \tacme/net\t0.02s", 0)},
				Final: "The net tests pass with the new timeout. Do you want a changelog entry?"},
			{User: "nope, leave it", Final: "Leaving the changelog as it is. Should I commit the change?"},
			{User: "don't commit without asking me first", Final: "I will ask before any commit."}},
		must: []string{"Earlier answer: “The dial timeout in net/dial\\.go is 10 seconds now\\.”; the user replied: “no, don't touch the retries”",
			"[Tt]he agent asked: “Do you want a changelog entry\\?”; the user replied: “nope, leave it”",
			"- “don't commit without asking me first”"},
		mustNot: []string{"corrected the agent", "pushed back", "- “no, don't touch the retries"},
	},
	{
		pattern: 5, name: "a short new request opening on 'please' is a task of its own",
		turns: []scripted.Turn{
			{User: "Fix the login redirect loop.",
				Steps: []scripted.Step{edit("auth/redirect.go", "return next", "return safeNext(next)")},
				Final: "The redirect now ignores a next URL pointing back at the login page."},
			{User: "please add a dark mode toggle to the settings page",
				Steps: []scripted.Step{edit("web/settings.tsx", "<Profile />", "<Profile />\n<ThemeToggle />")},
				Final: "The settings page has a theme toggle."}},
		must: []string{"### Task 2: please add a dark mode toggle to the settings page\n"},
	},
	{
		pattern: 3, name: "an answer that says done, with no check, is no success",
		turns: []scripted.Turn{{User: "Bump the chart version to 2.4.0.",
			Steps: []scripted.Step{edit("chart/Chart.yaml", "version: 2.3.1", "version: 2.4.0")},
			Final: "Done: the chart is at 2.4.0 and has been updated successfully."}},
		must:    []string{"task_outcome: uncertain"},
		mustNot: []string{`outcome success`, `task_outcome: success`},
	},
	// The fifth round: each failed on main.
	{
		pattern: 3, name: "an answer carries the user's reply verbatim, so what the user chose instead stays attached",
		turns: []scripted.Turn{
			{User: "Where should we cache the rendered thumbnails?",
				Steps: []scripted.Step{run("rg -n 'thumbnail' internal/media", "internal/media/thumb.go:12:func Render(img Image) []byte {", 0)},
				Final: "The thumbnails are best cached in Redis with a one-hour expiry, keyed by the image hash."},
			{User: "we keep thumbnails in the thumbs table of Postgres with an expires_at column",
				Steps: []scripted.Step{edit("internal/media/cache.go", "package media", "package media\n\n// thumbs table, expires_at column")},
				Final: "The thumbnails are cached in the thumbs table with an expires_at column."}},
		must:    []string{"Earlier answer: “The thumbnails are best cached in Redis[^\n]*”; the user replied: “we keep thumbnails in the thumbs table of Postgres with an expires_at column”"},
		mustNot: []string{"image hash\\.”\n"},
	},
	{
		pattern: 5, name: "the user's standing rules are kept verbatim in the languages users write in; their one-off requests are not rules",
		turns: []scripted.Turn{
			{User: "Ajoute un test pour le parseur de dates. N'utilise jamais de mocks pour la base de données, prends la vraie base de test. Ne touche pas au fichier de config pour l'instant.",
				Steps: []scripted.Step{edit("dates/parse_test.go", "package dates", "package dates\n\nfunc TestParseISO(t *testing.T) {}")},
				Final: "Le test TestParseISO couvre les dates ISO."},
			{User: "Corrige el error de redondeo en las facturas. A partir de ahora escribe los mensajes de commit en inglés.",
				Steps: []scripted.Step{edit("billing/round.go", "math.Floor(x*100)", "math.Round(x*100)")},
				Final: "El redondeo usa math.Round."},
			{User: "Räum die Importe im Exporter auf. Verwende immer gofmt vor dem Commit.",
				Steps: []scripted.Step{edit("export/export.go", "import (\n\t\"fmt\"\n\t\"os\"", "import (\n\t\"fmt\"")},
				Final: "Der Exporter importiert os nicht mehr."},
			{User: "修复登录页面的样式问题。以后提交之前必须先运行单元测试。",
				Steps: []scripted.Step{edit("web/login.css", "margin: 0", "margin: 0 auto")},
				Final: "登录页面现在居中显示。"},
			{User: "Atualize o README com a nova flag de exportação. Nunca faça push direto na branch main.",
				Steps: []scripted.Step{edit("README.md", "## Flags", "## Flags\n\n- --export-format")},
				Final: "O README descreve a flag --export-format."}},
		must: []string{"- “N'utilise jamais de mocks pour la base de données, prends la vraie base de test\\.”",
			"- “A partir de ahora escribe los mensajes de commit en inglés\\.”",
			"- “Verwende immer gofmt vor dem Commit\\.”",
			"- “以后提交之前必须先运行单元测试。”",
			"- “Nunca faça push direto na branch main\\.”"},
		mustNot: []string{"- “(Ajoute|Corrige|Räum|修复|Atualize)", "- “Ne touche pas"},
	},
	{
		pattern: 6, name: "a line a passing run printed too, a banner every run prints, is never the error line",
		turns: []scripted.Turn{{User: "Regenerate the API client and check the types.",
			Steps: []scripted.Step{
				run("make gen", "Error: telemetry upload failed (offline mode)\nsh: 1: protoc: command not found\nmake: *** [Makefile:12: gen] Error 127", 2),
				run("make lint", "Error: telemetry upload failed (offline mode)\nlint: 0 problems in 48 files", 0),
				run("npm run typecheck", "Error: telemetry upload failed (offline mode)\nsrc/gen.ts(4,10): error TS2305: Module './api' has no exported member 'Client'.", 2)},
			Final: "protoc is not installed, so the client was not regenerated, and src/gen.ts still imports Client."}},
		must:    []string{"`make gen` failed[^\n]*\\(`sh: 1: protoc: command not found`", "`npm run typecheck` failed[^\n]*\\(`src/gen\\.ts\\(4,10\\): error TS2305"},
		mustNot: []string{"failed[^\n]*telemetry"},
	},
	{
		pattern: 5, name: "a prompt template expanded twice, or one with a placeholder left in, gives no rule and no correction",
		turns: []scripted.Turn{
			{User: "You are the reviewer of this repository. Always check error handling first, and never approve a change without tests. If a fix does not work, say so plainly. Review the change the user names below.\n\nChange: the rate limiter in api/limit.go",
				Steps: []scripted.Step{run("git diff HEAD~1 -- api/limit.go", "+\tif n > max {", 0)},
				Final: "The rate limiter rejects the request past the limit; it has a test."},
			{User: "You are the reviewer of this repository. Always check error handling first, and never approve a change without tests. If a fix does not work, say so plainly. Review the change the user names below.\n\nChange: the session store in api/session.go",
				Steps: []scripted.Step{run("git diff HEAD~1 -- api/session.go", "+\treturn nil", 0)},
				Final: "The session store ignores a failed write; it has no test."},
			{User: "## Outline\nThe user input is the feature description, even where $ARGUMENTS appears literally. Never ask the user to repeat it.\n\nAdd CSV export to the report page.",
				Steps: []scripted.Step{edit("web/report.tsx", "<Table />", "<Table />\n<CsvExport />")},
				Final: "The report page has a CSV export button."}},
		mustNot: []string{"“Always check error handling", "“Never ask the user", "corrected the agent", "pushed back"},
	},
	{
		pattern: 4, name: "a final answer's sentence wrapped over lines is one sentence, never a fragment ending in '('",
		turns: []scripted.Turn{{User: "Add a retry to the fetcher.",
			Steps: []scripted.Step{edit("fetch/retry.go", "package fetch", "package fetch\n\nfunc withRetry() {}"), run("go test ./fetch", "ok  \tacme/fetch\t0.2s", 0)},
			Final: "The fetcher now wraps each request in withRetry (\nsee fetch/retry.go), which backs off\nexponentially and gives up after three tries. It retries idempotent verbs only (e.g. GET and DELETE)."}},
		must: []string{"Final answer: “The fetcher now wraps each request in withRetry \\( see fetch/retry\\.go\\), which backs off exponentially and gives up after three tries\\. " +
			"It retries idempotent verbs only \\(e\\.g\\. GET and DELETE\\)\\.”"},
		mustNot: []string{"\\(”", "\\(;", "e\\.g\\.”"},
	},
	{
		pattern: 2, name: "a read that failed is no file read",
		turns: []scripted.Turn{{User: "Which port does the app listen on?",
			Steps: []scripted.Step{run("cat config/missing.yaml", "cat: config/missing.yaml: No such file or directory", 1), run("cat config/app.yaml", "port: 8080", 0)},
			Final: "The app listens on port 8080, set in config/app.yaml."}},
		must:    []string{"Files read: config/app\\.yaml"},
		mustNot: []string{"Files read:[^\n]*missing"},
	},
	{
		pattern: 3, name: "with no check, a task's outcome quotes the user's next message, which may confirm the answer",
		turns: []scripted.Turn{
			{User: "Make the sidebar collapse on small screens.",
				Steps: []scripted.Step{edit("web/sidebar.css", ".sidebar { width: 240px; }", ".sidebar { width: 240px; }\n@media (max-width: 600px) { .sidebar { display: none; } }")},
				Final: "The sidebar hides below 600px."},
			{User: "That works, thanks. Next, add a dark mode toggle to the settings page that remembers the choice in local storage across reloads.",
				Steps: []scripted.Step{edit("web/settings.tsx", "<Profile />", "<Profile />\n<ThemeToggle persist />")},
				Final: "The settings page has a theme toggle that persists."}},
		must: []string{"Outcome: uncertain \\(the assistant answered and no check confirms the result; the user's next message: “That works, thanks\\. Next, add a dark mode toggle"},
	},
	{
		pattern: 5, name: "standing rules without 'always' or 'never' are kept; a one-off 'make sure' is not",
		turns: []scripted.Turn{{User: "Make the report header bold, and make sure the header is centred. Run the linter before you commit. Refrain from adding new dependencies. Only use the public API of the store package.",
			Steps: []scripted.Step{edit("web/report.css", "h1 { }", "h1 { font-weight: bold; text-align: center; }")},
			Final: "The report header is bold and centred."}},
		must:    []string{"- “Run the linter before you commit\\.”", "- “Refrain from adding new dependencies\\.”", "- “Only use the public API of the store package\\.”"},
		mustNot: []string{"- “Make the report header bold"},
	},
	{
		pattern: 5, guard: true, name: "a long message of the user's own that opens 'You are wrong' is a correction, not a persona's template",
		turns: []scripted.Turn{
			{User: "Make the cache evict entries after their expiry.",
				Steps: []scripted.Step{edit("cache/cache.go", "return e.value", "if e.expired() {\n\t\treturn nil\n\t}\n\treturn e.value")},
				Final: "Expired entries are evicted on read."},
			{User: "You are wrong about the cache: the eviction does not work, entries stay after their expiry. I checked the cache by hand after an hour and every entry was still there, so the expiry check in the cache never runs. I checked the cache by hand after an hour and every entry was still there, so the expiry check in the cache never runs. I checked the cache by hand after an hour and every entry was still there, so the expiry check in the cache never runs.",
				Steps: []scripted.Step{edit("cache/cache.go", "func (c *Cache) Get(", "func (c *Cache) sweep() {}\n\nfunc (c *Cache) Get(")},
				Final: "A sweep now removes expired entries."}},
		must: []string{"The user corrected the agent: “You are wrong about the cache"},
	},
	// The sixth round: each failed on main.
	{
		pattern: 5, name: "the reply is the user's whole typed message: past a screenshot and an IDE notice, every sentence of it",
		raw: map[sessions.Kind]string{sessions.KindClaudeCode: claudeScreenshotReply},
		must: []string{"Earlier answer: “The session cookie is cleared on logout[^\n]*”; the user replied: " +
			"“Login works now\\. But the logout button still does nothing, the cookie stays\\.”"},
		mustNot: []string{"image omitted", "ide_opened_file", "opened the file"},
	},
	{
		pattern: 5, name: "a short reply to the agent's question is quoted with the question",
		turns: []scripted.Turn{
			{User: "Rename the config loader to LoadSettings everywhere.",
				Steps: []scripted.Step{edit("config/load.go", "func Load(", "func LoadSettings(")},
				Final: "Renamed Load to LoadSettings in config/load.go. Should I also update the README?"},
			{User: "yes",
				Steps: []scripted.Step{edit("README.md", "config.Load(", "config.LoadSettings(")},
				Final: "The README now calls config.LoadSettings."}},
		must: []string{"Earlier answer: “Renamed Load to LoadSettings in config/load\\.go\\.”; " +
			"the agent asked: “Should I also update the README\\?”; the user replied: “yes”\n",
			"- The agent asked: “Should I also update the README\\?”; the user replied: “yes”\\.\n"},
		mustNot: []string{"[^;] the user replied: “yes”", "Follow-up from the user: “yes”"},
	},
	{
		pattern: 3, name: "an answer after a sub-agent's result, as the rollout's last line, is the final answer",
		raw:     map[sessions.Kind]string{sessions.KindCodex: codexAnswerAfterSubAgent},
		must:    []string{"Final answer: “The retry budget is set in net/retry\\.go as maxAttempts = 5\\.”"},
		mustNot: []string{`ended before a final answer`},
	},
	{
		pattern: 3, name: "a final answer after a sub-agent's work is the final answer",
		turns: []scripted.Turn{{User: "Find where the retry budget is configured.",
			Steps: []scripted.Step{{Tool: "Task", Out: "The budget is set in net/retry.go: maxAttempts = 5."},
				edit("net/retry.go", "maxAttempts = 5", "maxAttempts = 3")},
			Final: "The retry budget lives in net/retry.go; it is now 3 attempts."}},
		must:    []string{"Final answer: “The retry budget lives in net/retry\\.go"},
		mustNot: []string{`ended before a final answer`},
	},
	{
		pattern: 3, name: "an answer right after a sub-agent's, as the session's last event, is the final answer",
		turns: []scripted.Turn{{User: "Summarise the open review comments.",
			Steps: []scripted.Step{{Tool: "Agent", Out: "Two comments: rename Foo, add a test."}},
			Final: "Two review comments are open: rename Foo and add a test."},
			{User: "<task-notification>\n<task-id>a1</task-id>\n<status>completed</status>\n<summary>Agent \"Review\" completed</summary>\n</task-notification>"}},
		mustNot: []string{`ended before a final answer`},
	},
	{
		pattern: 5, name: "a short reply keeps the agent's questions just before it: an approved action is the user's decision",
		turns: []scripted.Turn{
			{User: "Find why the parser crashes on empty input.",
				Steps: []scripted.Step{run("go test ./parser", "--- FAIL: TestEmpty\npanic: index out of range", 1)},
				Final: "The crash is an index past the end in parser/scan.go. Do you want a regression test? " +
					"Shall I file the issue upstream?"},
			{User: "yes, file it", Steps: []scripted.Step{run("gh issue create --title 'parser: empty input'", "https://x/1", 0)},
				Final: "Filed the issue upstream."}},
		must: []string{"the agent asked: “Do you want a regression test\\? Shall I file the issue upstream\\?”; " +
			"the user replied: “yes, file it”"},
		mustNot: []string{"Follow-up from the user: “yes, file it”"},
	},
	{
		pattern: 3, name: "a build that passes after the edit is no success: it compiles the change, it does not run it",
		turns: []scripted.Turn{{User: "Make the export skip archived projects.",
			Steps: []scripted.Step{
				edit("export/export.go", "for _, p := range projects {", "for _, p := range projects {\n\t\tif p.Archived {\n\t\t\tcontinue\n\t\t}"),
				run("go build ./...", "", 0)},
			Final: "The export now skips archived projects."}},
		must:    []string{"Outcome: uncertain \\(the last check `go build \\./\\.\\.\\.` passed \\(exit 0\\) and it does not run the changed code\\)"},
		mustNot: []string{"outcome success", "task_outcome: success"},
	},
	{
		pattern: 3, name: "a test that passed before the last edit is no success",
		turns: []scripted.Turn{{User: "Make the slug function lower-case its input.",
			Steps: []scripted.Step{
				edit("text/slug.go", "return s", "return strings.ToLower(s)"),
				run("go test ./text", "ok  \tacme/text\t0.01s", 0),
				edit("text/slug.go", "return strings.ToLower(s)", "return strings.ToLower(strings.TrimSpace(s))")},
			Final: "Slug lower-cases and trims its input."}},
		must:    []string{"Outcome: uncertain \\(the last check `go test \\./text` passed \\(exit 0\\) before the last change\\)"},
		mustNot: []string{"outcome success", "task_outcome: success"},
	},
	{
		pattern: 6, name: "a line that two different commands printed, failing both, is a banner, never the error line",
		turns: []scripted.Turn{{User: "Seed the dev database and run the store tests.",
			Steps: []scripted.Step{
				run("./scripts/seed.sh", "Error: telemetry disabled, cannot reach collector\nseed: duplicate key value violates unique constraint \"users_pkey\"", 1),
				run("go test ./store", "Error: telemetry disabled, cannot reach collector\n--- FAIL: TestSeed (0.01s)\n    seed_test.go:9: got 2 users, want 3\nFAIL", 1)},
			Final: "Seeding stops on a duplicate user and TestSeed fails."}},
		must:    []string{"`\\./scripts/seed\\.sh` failed once \\(`seed: duplicate key value"},
		mustNot: []string{"\\(`Error: telemetry"},
	},
	{
		pattern: 2, name: "a prediction, a guess or a recommendation in the final answer is no finding; options to pick from are not kept",
		turns: []scripted.Turn{
			{User: "Why is the nightly report empty?",
				Steps: []scripted.Step{run("cat logs/report.log", "2026-03-01 02:00 query returned 0 rows", 0)},
				Final: "The report query returned 0 rows on 2026-03-01. This is likely why the report is empty. " +
					"The next run will show the data in 2 to 3 minutes. Which fix do you want?\n1. Widen the date filter in report/query.sql\n2. Backfill the rows"},
			{User: "2", Steps: []scripted.Step{edit("report/backfill.sql", "", "INSERT INTO rows SELECT * FROM staging;")},
				Final: "Added report/backfill.sql, which copies the staging rows into rows."}},
		must: []string{"Added report/backfill\\.sql",
			"The agent asked: “Which fix do you want\\?”; the user replied: “2”"},
		mustNot: []string{"likely why", "will show", "Widen the date filter", "[^;] the user replied: “2”"},
	},
	{
		pattern: 5, name: "a rule inside a longer request is kept verbatim as a preference; a pick among offered options is not",
		turns: []scripted.Turn{
			{User: "Add retries to the HTTP client in net/client.go with exponential backoff, capped at five attempts, " +
				"and log each retry at debug level. Use table-driven tests, never one test function per case. Tests go next to the code.",
				Steps: []scripted.Step{edit("net/client.go", "return c.do(req)", "return c.retry(req, 5)")},
				Final: "Added retries with exponential backoff to net/client.go. Which backoff base do you want?\n1. 100ms\n2. 500ms"},
			{User: "I prefer option 2", Steps: []scripted.Step{edit("net/client.go", "base = 100", "base = 500")},
				Final: "The backoff base is 500ms."}},
		must:    []string{"- “Use table-driven tests, never one test function per case\\.”"},
		mustNot: []string{"- “I prefer option 2"},
	},
	{
		pattern: 4, name: "a failure is stated with its error, nothing about a rerun that the transcript does not show",
		turns: []scripted.Turn{
			{User: "Run the integration tests.",
				Steps: []scripted.Step{run("make integration", "--- FAIL: TestCheckout (0.20s)\n    checkout_test.go:40: status 502, want 200\nFAIL", 2)},
				Final: "TestCheckout fails with a 502 from the payment stub."},
			{User: "I reran make integration with STUB=1 in my own terminal and it passed, thanks.",
				Final: "Good: with the stub enabled the checkout test passes."}},
		must:    []string{"`make integration` failed once \\(`checkout_test\\.go:40: status 502, want 200`"},
		mustNot: []string{"not run again", "no later run passed"},
	},
	{
		pattern: 5, name: "a short reply to the agent's question is quoted as a follow-up with the question",
		turns: []scripted.Turn{
			{User: "Pick a cache for the session store.",
				Final: "Which cache should the session store use?\n1. Redis\n2. An in-process LRU"},
			{User: "2", Steps: []scripted.Step{edit("session/store.go", "cache: nil", "cache: lru.New(1024)")},
				Final: "The session store uses an in-process LRU of 1024 entries."}},
		must: []string{"in-process LRU of 1024 entries",
			"- The agent asked: “Which cache should the session store use\\?”; the user replied: “2”\\.\n"},
		mustNot: []string{"Follow-up from the user: “2”"},
	},
	{
		pattern: 2, name: "an answer that says nothing failed is kept only when the exit statuses agree",
		turns: []scripted.Turn{
			{User: "Apply the pending migrations.",
				Steps: []scripted.Step{run("make migrate", "error: relation \"users\" already exists", 2)},
				Final: "The migrations ran with no errors against the staging database."},
			{User: "Now run the payment tests.",
				Steps: []scripted.Step{run("go test ./payments/...", "ok  \tacme/payments\t0.52s", 0)},
				Final: "The payment suite ran with no failures across the refund and the capture paths."}},
		must:    []string{"with no failures across the refund"},
		mustNot: []string{"with no errors against"},
	},
	{
		pattern: 5, name: "a prompt template's opening is no title and its rules are no preference of the user's",
		turns: []scripted.Turn{{User: "You are a meticulous migration reviewer for this codebase. " +
			"For every schema change, always read the migration file, confirm that a rollback exists, " +
			"run the migration tests, and report each risk you find to the people who own the database.",
			Steps: []scripted.Step{run("make migrate-test", "ok  \tacme/migrations\t0.30s", 0)},
			Final: "The migration tests pass and every change has a rollback."}},
		must:    []string{"### Task 1: a request using a prompt template\n"},
		mustNot: []string{"Task 1: You are", "- “[^\n]*always read the migration"},
	},
	{
		pattern: 6, name: "the command's own text echoed back is never the error line",
		turns: []scripted.Turn{{User: "Check the vendored dependencies.",
			Steps: []scripted.Step{run("./scripts/check-missing.sh", "+ ./scripts/check-missing.sh\n"+
				"error: lib/a.go imports acme/b, which is not vendored\nexit status 1", 1)},
			Final: "lib/a.go imports acme/b, which is not vendored."}},
		must:    []string{"failed once \\(`error: lib/a\\.go imports acme/b, which is not vendored`"},
		mustNot: []string{"\\(`\\+ \\./scripts"},
	},
	{
		pattern: 1, name: "runs of a check naming other tests are other work: one's pass ends only its own failure",
		turns: []scripted.Turn{{User: "Fix the failing parser and lexer tests.",
			Steps: []scripted.Step{
				run("cargo test parser", "test parser::empty ... FAILED\npanicked at src/parser.rs:9:5: empty", 101),
				run("cargo test lexer", "test lexer::unicode ... FAILED\npanicked at src/lexer.rs:30:9: bad char", 101),
				edit("src/parser.rs", "None => panic!()", "None => Ok(Doc::default())"),
				run("cargo test parser", "test result: ok. 4 passed; 0 failed", 0)},
			Final: "The parser accepts empty input."}},
		must:    []string{"`cargo test lexer` failed once \\(`[^`]*bad char"},
		mustNot: []string{"failed 2 times", "`cargo test lexer` failed[^\n]*and passed"},
	},
	{
		pattern: 2, name: "a command sent to the background has no exit status: it neither passes nor answers a failure",
		turns: []scripted.Turn{{User: "Start the mock API server so the front end can reach it.",
			Steps: []scripted.Step{
				run("python3 mock_api.py", "OSError: [Errno 98] Address already in use", 1),
				run("python3 mock_api.py > /tmp/mock.log 2>&1 &", "", 0)},
			Final: "The mock API server runs in the background."}},
		must: []string{"`python3 mock_api\\.py` failed once \\(`OSError: \\[Errno 98\\] Address already in use`\\)",
			"Ran `python3 mock_api\\.py > /tmp/mock\\.log 2>&1 &`: no exit status of its own"},
		mustNot: []string{"Fix: `python3 mock_api", "passed on a rerun", "&`: ok"},
	},
	{
		pattern: 2, name: "a file the session created and removed again, in a chain of commands, is no file changed",
		turns: []scripted.Turn{{User: "Find out why the importer skips the last row of the CSV.",
			Steps: []scripted.Step{
				edit("debug_rows.py", "", "import csv\nprint(sum(1 for _ in csv.reader(open('data.csv'))))"),
				run("python3 debug_rows.py", "41", 0),
				edit("importer/read.py", "rows[:-1]", "rows"),
				run("rm debug_rows.py && git status --short", " M importer/read.py", 0)},
			Final: "read.py dropped the last row with rows[:-1]; it keeps every row now."}},
		must:    []string{"importer/read\\.py \\(update\\)"},
		mustNot: []string{"debug_rows\\.py \\(", "Files changed: [^\n]*debug_rows"},
	},
	{
		pattern: 2, name: "a file moved is listed under its new name",
		turns: []scripted.Turn{{User: "Write a design note for the retry queue.",
			Steps: []scripted.Step{
				edit("draft.md", "", "# Retry queue\n\nJobs retry with backoff."),
				run("mkdir -p docs && mv draft.md docs/retry-queue.md", "", 0)},
			Final: "The design note is in docs/retry-queue.md."}},
		must:    []string{"docs/retry-queue\\.md \\(add\\)"},
		mustNot: []string{"Files changed: [^\n]*draft\\.md"},
	},
	{
		pattern: 2, name: "files the session created that git clean removed are no files changed",
		turns: []scripted.Turn{{User: "Try a property test for the slug function, then drop it if it finds nothing.",
			Steps: []scripted.Step{
				edit("slug/slug_prop_test.go", "", "package slug\n\nfunc TestSlugProperty(t *testing.T) {}"),
				run("go test ./slug -run TestSlugProperty", "ok  \tacme/slug\t0.21s", 0),
				run("git clean -f", "Removing slug/slug_prop_test.go", 0)},
			Final: "The property test found nothing, so I removed it."}},
		mustNot: []string{"slug_prop_test\\.go \\(", "Files changed: [^\n]*slug_prop_test"},
	},
	{
		pattern: 2, name: "the changed script's own run is the outcome's evidence, not a later unrelated check",
		turns: []scripted.Turn{{User: "Make the release script print the version it tags.",
			Steps: []scripted.Step{
				edit("scripts/release.sh", "git tag \"$v\"", "echo \"tagging $v\"\ngit tag \"$v\""),
				run("bash scripts/release.sh --dry", "tagging v1.4.0", 0),
				run("make lint", "web/app.ts:3:1: error  Unexpected var, use let or const instead  no-var", 2)},
			Final: "release.sh prints the version before it tags."}},
		must:    []string{"outcome partial", "`bash scripts/release\\.sh --dry`[^\n]*exit 0"},
		mustNot: []string{"outcome fail", "task_outcome: fail"},
	},
	{
		pattern: 2, name: "with no check, the changed program's run is quoted with its exit status",
		turns: []scripted.Turn{{User: "Have the exporter skip archived projects.",
			Steps: []scripted.Step{
				edit("tools/export.py", "for p in projects:", "for p in projects:\n    if p.archived:\n        continue"),
				run("python3 tools/export.py --limit 3", "exported 3 projects", 0)},
			Final: "export.py skips archived projects."}},
		must:    []string{"`python3 tools/export\\.py --limit 3`[^\n]*exit 0"},
		mustNot: []string{"no check confirms the result", "outcome success"},
	},
	{
		pattern: 2, guard: true, name: "a run of a program the session did not change is no evidence about the edits",
		turns: []scripted.Turn{{User: "Have the exporter skip archived projects.",
			Steps: []scripted.Step{
				edit("tools/export.py", "for p in projects:", "for p in projects:\n    if p.archived:\n        continue"),
				run("python3 tools/report.py", "12 projects", 0)},
			Final: "export.py skips archived projects."}},
		must:    []string{"no check confirms the result"},
		mustNot: []string{"report\\.py`[^\n]*(the changed|a changed|changed by)"},
	},
	{
		pattern: 1, name: "a failure quotes its latest error line, not the earlier runs' picked before the later ones",
		turns: []scripted.Turn{{User: "Get the config loader tests passing.",
			Steps: []scripted.Step{
				run("pytest -q tests/test_config.py", "config loading\nE   KeyError: 'port'\n1 failed in 0.10s", 1),
				edit("config/load.py", "cfg['port']", "cfg.get('port', 8080)"),
				run("pytest -q tests/test_config.py", "config loading\nE   ValueError: port must be an int\n1 failed in 0.10s", 1)},
			Final: "The loader still rejects a string port."}},
		must: []string{"`pytest -q tests/test_config\\.py` failed once \\(`E ValueError: port must be an int`\\)\\.",
			"`pytest -q tests/test_config\\.py` failed \\(`E KeyError: 'port'`\\) and failed differently on a rerun; " +
				"between the failure and the rerun: edited config/load\\.py"}, // the other error is its own failure
		mustNot: []string{"earlier: ", "failed 2 times"},
	},
	{
		pattern: 1, name: "a search with another pattern is other work: it does not answer a failed search",
		turns: []scripted.Turn{{User: "Where is the retry delay computed?",
			Steps: []scripted.Step{
				run("rg -n 'backoff(' src", "rg: regex parse error:\n    backoff(\n           ^\nerror: unclosed group", 2),
				run("rg -n 'fn backoff' src", "src/retry.rs:12:fn backoff(attempt: u32) -> Duration {", 0)},
			Final: "src/retry.rs computes the delay in backoff()."}},
		mustNot: []string{"Fix: `rg -n 'backoff\\('"},
	},
	{
		pattern: 2, guard: true, name: "a file one task created and a later task deleted is no file changed",
		turns: []scripted.Turn{
			{User: "Write a quick script that counts the rows of data.csv.",
				Steps: []scripted.Step{edit("count_rows.py", "", "import csv\nprint(sum(1 for _ in csv.reader(open('data.csv'))))"),
					run("python3 count_rows.py", "41", 0)},
				Final: "data.csv has 41 rows."},
			{User: "Thanks, that answers it; now delete that scratch script and bump the importer's row limit to 100.",
				Steps: []scripted.Step{run("rm count_rows.py", "", 0), edit("importer/limits.py", "MAX_ROWS = 40", "MAX_ROWS = 100")},
				Final: "Removed count_rows.py; the importer reads up to 100 rows."}},
		must:    []string{"importer/limits\\.py \\(update\\)"},
		mustNot: []string{"count_rows\\.py \\((add|delete)", "Files changed: [^\n]*count_rows"},
	},
	{
		pattern: 2, name: "an edit after the user's complaint is not called a fix: no check passed since",
		turns: []scripted.Turn{
			{User: "Make the CSV export quote fields that contain commas.",
				Steps: []scripted.Step{edit("export/csv.go", "w.Write(fields)", "w.Write(quoteAll(fields))")},
				Final: "The export quotes fields with commas."},
			{User: "Still broken: the csv export splits the quoted columns.",
				Steps: []scripted.Step{edit("export/csv.go", "w.Write(quoteAll(fields))", "cw.Write(fields)")},
				Final: "The export writes through encoding/csv now."}},
		must:    []string{"Outcome: uncertain \\(the assistant answered and no check confirms the result\\)"},
		mustNot: []string{"the fix", "reported a problem"},
	},
	{
		pattern: 2, name: "files the session created in a folder it then removed are no files changed",
		turns: []scripted.Turn{{User: "Check whether the parser handles a BOM, with a throwaway fixture.",
			Steps: []scripted.Step{
				edit("scratch/bom.csv", "", "\ufeffid,name\n1,a"),
				run("go run ./cmd/parse scratch/bom.csv", "id=1 name=a", 0),
				run("rm -rf scratch && git status --short", "", 0)},
			Final: "The parser strips the BOM: the first column reads id."}},
		mustNot: []string{"bom\\.csv \\(", "Files changed: [^\n]*(bom|scratch)", "scratch \\(delete"},
	},
	{
		pattern: 1, name: "a failure is said to be the sandbox's only when nothing else ran before the escalated rerun",
		raw: map[sessions.Kind]string{sessions.KindJSONL: `{"type": "session", "id": "esc", "cwd": "/home/dev/src/acme", "timestamp": "2026-03-02T09:00:00.000Z"}
{"type": "message", "role": "user", "text": "Install the dependencies.", "timestamp": "2026-03-02T09:00:01.000Z"}
{"type": "tool_call", "id": "k1", "name": "shell", "command": "pnpm install", "timestamp": "2026-03-02T09:00:02.000Z"}
{"type": "tool_result", "id": "k1", "output": "ERR_PNPM_EACCES permission denied, open node_modules/.pnpm/lock.yaml", "exit_code": 1, "timestamp": "2026-03-02T09:00:03.000Z"}
{"type": "tool_call", "id": "k2", "name": "shell", "command": "rm -rf node_modules/.pnpm", "timestamp": "2026-03-02T09:00:04.000Z"}
{"type": "tool_result", "id": "k2", "output": "", "exit_code": 0, "timestamp": "2026-03-02T09:00:05.000Z"}
{"type": "tool_call", "id": "k3", "name": "shell", "command": "pnpm install", "escalated": true, "timestamp": "2026-03-02T09:00:06.000Z"}
{"type": "tool_result", "id": "k3", "output": "Done in 3.1s", "exit_code": 0, "timestamp": "2026-03-02T09:00:07.000Z"}
{"type": "message", "role": "assistant", "text": "The dependencies are installed.", "final": true, "timestamp": "2026-03-02T09:00:08.000Z"}
`},
		must:    []string{"Fix: `pnpm install` failed \\(`ERR_PNPM_EACCES[^\n]*passed when rerun with escalated permissions; between the failure and the pass: [^\\n]*ran `rm -rf node_modules/\\.pnpm`"},
		mustNot: []string{"in the sandbox"},
	},
	{
		pattern: 2, name: "a read that failed is a failure with its error line, a search that found nothing is none",
		turns: []scripted.Turn{{User: "Why does the deploy script not pick up the settings file?",
			Steps: []scripted.Step{
				run("ls deploy", "run.sh\nsettings.yaml", 0),
				run("cat deploy/settings.yaml", "cat: deploy/settings.yaml: Permission denied", 1),
				run("grep -rn SETTINGS_PATH deploy", "", 1)},
			Final: "The settings file is not readable by the deploy user."}},
		must: []string{"- `cat deploy/settings\\.yaml` failed once \\(`cat: deploy/settings\\.yaml: Permission denied`\\)",
			"Ran `cat deploy/settings\\.yaml`: failed, exit 1 — `cat: deploy/settings\\.yaml: Permission denied`",
			"Explored with 1 read-only command \\(grep\\)"},
		mustNot: []string{"grep -rn SETTINGS_PATH deploy` failed", "Failures and how to do differently:\\n- none"},
	},
	{
		pattern: 2, name: "a failed read run once is one failure; its rerun that exits 1 with nothing to quote is no rerun without a status",
		turns: []scripted.Turn{{User: "Where is the spec for the billing export?",
			Steps: []scripted.Step{
				run("find specs -name 'billing*'", "find: 'specs': No such file or directory", 1),
				run("ls docs", "billing.md\nREADME.md", 0),
				run("sed -n 1,20p specs/billing.md", "sed: can't read specs/billing.md: No such file or directory", 1),
				run("ls specs/billing", "ls: cannot access 'specs/billing': No such file or directory", 1),
				run("ls specs/billing", "", 1),
				run("git push", "error: failed to push some refs", 1),
				run("git push", "error: failed to push some refs", 1)},
			Final: "The billing spec is docs/billing.md."}},
		must: []string{"`find specs -name 'billing\\*'` failed once \\(`find: 'specs': No such file or directory`\\)\\.",
			"`git push` failed 2 times \\(`error: failed to push some refs`\\)\\.",
			"`ls specs/billing` failed once \\(`ls: cannot access 'specs/billing': No such file or directory`\\)\\."},
		mustNot: []string{"no exit status of its own"},
	},
	{
		pattern: 2, name: "a check that exits 0 while its output says error is quoted, never ok and never a pass",
		turns: []scripted.Turn{{User: "Fix the lint warning in the exporter.",
			Steps: []scripted.Step{
				edit("exporter/csv.go", "x := 1\n", ""),
				run("make lint", "golangci-lint run ./... || true\nerror: exporter/json.go has an unused variable y", 0)},
			Final: "The exporter passes lint."}},
		must:    []string{"Ran `make lint`: no error status(, exit 0)?; its output says: `error: exporter/json\\.go has an unused variable y`"},
		mustNot: []string{"Check: `make lint` passed", "make lint`: (ok|passed)", "Outcome: success", "outcome success"},
	},
	{
		pattern: 2, guard: true, name: "an MCP tool call the transcript marks as failed is a failure with its error",
		raw: map[sessions.Kind]string{sessions.KindClaudeCode: claudeLines(user("Open an issue for the flaky upload test."),
			use("t1", "mcp__tracker__create_issue", `{"title":"Flaky upload test"}`),
			result("t1", "Error: 401 Unauthorized: token expired", true),
			answer("The tracker refused the token, so no issue was opened."))},
		must: []string{"The `mcp__tracker__create_issue` call failed \\(`Error: 401 Unauthorized: token expired`\\)"},
	},
	// The tenth round: each failed on main.
	{
		pattern: 5, name: "a short instruction opening on 'no' as a modifier is a follow-up: no complaint, no outcome lowered",
		turns: []scripted.Turn{
			{User: "Commit the version bump in package.json.",
				Steps: []scripted.Step{edit("package.json", `"version": "1.4.0"`, `"version": "1.5.0"`),
					run("git commit -am 'Bump the version'", "lint-staged: eslint timed out after 60s\nhusky - pre-commit hook exited with code 1", 1)},
				Final: "The commit did not go through: the pre-commit hook timed out in eslint."},
			{User: "no verify",
				Steps: []scripted.Step{run("git commit --no-verify -am 'Bump the version'", "[main 4f2a9c1] Bump the version", 0)},
				Final: "Committed as 4f2a9c1 without running the hook."}},
		must:    []string{"Follow-up from the user: “no verify”"},
		mustNot: []string{"corrected the agent", "pushed back", "reported a problem", "said it did not work"},
	},
	{
		pattern: 3, name: "a session that ends on the user's message is no failure the user reported: their words are quoted",
		turns: []scripted.Turn{
			{User: "Rename the cache flag to --cache-dir.", Steps: []scripted.Step{edit("cmd/flags.go", `"cache"`, `"cache-dir"`)},
				Final: "The flag is --cache-dir now."},
			{User: "revert the flag rename, the docs still say --cache",
				Steps: []scripted.Step{edit("cmd/flags.go", `"cache-dir"`, `"cache"`)}}},
		must:    []string{"“revert the flag rename, the docs still say --cache”", "task_outcome: uncertain"},
		mustNot: []string{"said it did not work", "task_outcome: fail"},
	},
	{
		pattern: 3, name: "an answer the user replied to with one letter stands, quoted with the question and the reply",
		turns: []scripted.Turn{
			{User: "Why is the CSV import slow?", Steps: []scripted.Step{run("go test -bench Import ./importer", "BenchmarkImport-8 \t 25 \t 40123456 ns/op", 0)},
				Final: "The importer parses each row twice, once to validate it. Should I merge the passes (A) or cache the parse (B)?"},
			{User: "B", Steps: []scripted.Step{edit("importer/import.go", "row := parse(line)", "row := cached(line)")},
				Final: "The importer caches each parsed row."}},
		must: []string{"Earlier answer: “The importer parses each row twice, once to validate it\\.”; the agent asked: “Should I merge the passes \\(A\\) or cache the parse \\(B\\)\\?”; the user replied: “B”"},
	},
	{
		pattern: 5, name: "a rule is the user's sentence alone: the next one is no reason the extractor infers",
		turns: []scripted.Turn{{User: "Always run the linter before you commit. The import is slow because the cache is cold.",
			Steps: []scripted.Step{edit("importer/cache.go", "warm := false", "warm := true")},
			Final: "The importer warms its cache at start."}},
		must:    []string{"- “Always run the linter before you commit\\.”"},
		mustNot: []string{"- “Always run the linter before you commit\\. The import"},
	},
}

// claudeScreenshotReply is a Claude Code session in which the user
// answers with a screenshot first, then an IDE notice, then their words,
// each a content block of one message.
const claudeScreenshotReply = `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","cwd":"/home/dev/src/app","timestamp":"2026-03-02T09:00:00.000Z","message":{"role":"user","content":"Make logout clear the session cookie."}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s1","cwd":"/home/dev/src/app","timestamp":"2026-03-02T09:00:02.000Z","message":{"role":"assistant","model":"claude-opus-4-7","content":[{"type":"tool_use","id":"toolu_1","name":"Edit","input":{"file_path":"/home/dev/src/app/auth/logout.go","old_string":"func Logout(w http.ResponseWriter) {","new_string":"func Logout(w http.ResponseWriter) {\n\tclearCookie(w)"}}],"stop_reason":"tool_use"}}
{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"s1","cwd":"/home/dev/src/app","timestamp":"2026-03-02T09:00:03.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"The file /home/dev/src/app/auth/logout.go has been updated.","is_error":false}]},"toolUseResult":{"filePath":"/home/dev/src/app/auth/logout.go","oldString":"func Logout(w http.ResponseWriter) {","newString":"func Logout(w http.ResponseWriter) {\n\tclearCookie(w)"}}
{"type":"assistant","uuid":"a2","parentUuid":"u2","sessionId":"s1","cwd":"/home/dev/src/app","timestamp":"2026-03-02T09:00:04.000Z","message":{"role":"assistant","model":"claude-opus-4-7","content":[{"type":"text","text":"The session cookie is cleared on logout by clearCookie in auth/logout.go."}],"stop_reason":"end_turn"}}
{"type":"user","uuid":"u3","parentUuid":"a2","sessionId":"s1","cwd":"/home/dev/src/app","timestamp":"2026-03-02T09:01:00.000Z","message":{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},{"type":"text","text":"<ide_opened_file>The user opened the file /home/dev/src/app/auth/logout.go in the IDE. This may or may not be related to the current task.</ide_opened_file>"},{"type":"text","text":"Login works now. But the logout button still does nothing, the cookie stays."}]}}
{"type":"assistant","uuid":"a3","parentUuid":"u3","sessionId":"s1","cwd":"/home/dev/src/app","timestamp":"2026-03-02T09:01:02.000Z","message":{"role":"assistant","model":"claude-opus-4-7","content":[{"type":"tool_use","id":"toolu_2","name":"Edit","input":{"file_path":"/home/dev/src/app/web/logout.js","old_string":"fetch('/logout')","new_string":"fetch('/logout', {method: 'POST'})"}}],"stop_reason":"tool_use"}}
{"type":"user","uuid":"u4","parentUuid":"a3","sessionId":"s1","cwd":"/home/dev/src/app","timestamp":"2026-03-02T09:01:03.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":"The file /home/dev/src/app/web/logout.js has been updated.","is_error":false}]},"toolUseResult":{"filePath":"/home/dev/src/app/web/logout.js","oldString":"fetch('/logout')","newString":"fetch('/logout', {method: 'POST'})"}}
{"type":"assistant","uuid":"a4","parentUuid":"u4","sessionId":"s1","cwd":"/home/dev/src/app","timestamp":"2026-03-02T09:01:04.000Z","message":{"role":"assistant","model":"claude-opus-4-7","content":[{"type":"text","text":"The logout button now sends a POST to /logout, which the handler expects."}],"stop_reason":"end_turn"}}
`

// claudeQueued is a Claude Code session in which the user typed two
// messages while the agent worked: one absorbed into the running turn (the
// queue entry, then its queued_command attachment) and one that older
// versions record only as a queue entry the turn removed.
const claudeQueued = `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"q1","cwd":"/home/dev/src/app","timestamp":"2026-03-02T09:00:00.000Z","message":{"role":"user","content":"Add a --json flag to the status command."}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"q1","cwd":"/home/dev/src/app","timestamp":"2026-03-02T09:00:02.000Z","message":{"role":"assistant","model":"claude-opus-4-7","content":[{"type":"tool_use","id":"toolu_1","name":"Edit","input":{"file_path":"/home/dev/src/app/cmd/status.go","old_string":"func status() {","new_string":"func status(asJSON bool) {"}}],"stop_reason":"tool_use"}}
{"type":"queue-operation","operation":"enqueue","timestamp":"2026-03-02T09:00:03.000Z","sessionId":"q1","content":"also bump the version in package.json"}
{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"q1","cwd":"/home/dev/src/app","timestamp":"2026-03-02T09:00:04.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"The file /home/dev/src/app/cmd/status.go has been updated.","is_error":false}]},"toolUseResult":{"filePath":"/home/dev/src/app/cmd/status.go","oldString":"func status() {","newString":"func status(asJSON bool) {"}}
{"type":"queue-operation","operation":"remove","timestamp":"2026-03-02T09:00:05.000Z","sessionId":"q1"}
{"type":"attachment","uuid":"t1","parentUuid":"u2","sessionId":"q1","cwd":"/home/dev/src/app","timestamp":"2026-03-02T09:00:05.000Z","attachment":{"type":"queued_command","prompt":"also bump the version in package.json","commandMode":"prompt"}}
{"type":"queue-operation","operation":"enqueue","timestamp":"2026-03-02T09:00:06.000Z","sessionId":"q1","content":"from now on, run prettier before you commit."}
{"type":"assistant","uuid":"a2","parentUuid":"t1","sessionId":"q1","cwd":"/home/dev/src/app","timestamp":"2026-03-02T09:00:07.000Z","message":{"role":"assistant","model":"claude-opus-4-7","content":[{"type":"tool_use","id":"toolu_2","name":"Edit","input":{"file_path":"/home/dev/src/app/package.json","old_string":"\"version\": \"1.4.0\"","new_string":"\"version\": \"1.5.0\""}}],"stop_reason":"tool_use"}}
{"type":"user","uuid":"u3","parentUuid":"a2","sessionId":"q1","cwd":"/home/dev/src/app","timestamp":"2026-03-02T09:00:08.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":"The file /home/dev/src/app/package.json has been updated.","is_error":false}]},"toolUseResult":{"filePath":"/home/dev/src/app/package.json","oldString":"\"version\": \"1.4.0\"","newString":"\"version\": \"1.5.0\""}}
{"type":"queue-operation","operation":"remove","timestamp":"2026-03-02T09:00:09.000Z","sessionId":"q1"}
{"type":"assistant","uuid":"a3","parentUuid":"u3","sessionId":"q1","cwd":"/home/dev/src/app","timestamp":"2026-03-02T09:00:10.000Z","message":{"role":"assistant","model":"claude-opus-4-7","content":[{"type":"text","text":"Added --json to status and bumped the version to 1.5.0."}],"stop_reason":"end_turn"}}
`

// codexQueued is a Codex session in which the user sent two messages
// while a turn ran: Codex records them inside the turn, before its end.
const codexQueued = `{"timestamp":"2026-03-02T09:00:00.000Z","type":"session_meta","payload":{"id":"0199a0f0-0000-7000-8000-0000000000q1","timestamp":"2026-03-02T09:00:00.000Z","cwd":"/home/dev/src/app","originator":"codex_cli_rs","cli_version":"0.125.0","source":"cli","model_provider":"openai"}}
{"timestamp":"2026-03-02T09:00:01.000Z","type":"event_msg","payload":{"type":"task_started","turn_id":"t1"}}
{"timestamp":"2026-03-02T09:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Add a --json flag to the status command."}]}}
{"timestamp":"2026-03-02T09:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"Add a --json flag to the status command.","images":[]}}
{"timestamp":"2026-03-02T09:00:02.000Z","type":"response_item","payload":{"type":"custom_tool_call","status":"completed","call_id":"call_1","name":"apply_patch","input":"*** Begin Patch\n*** Update File: cmd/status.go\n@@\n-func status() {\n+func status(asJSON bool) {\n*** End Patch\n"}}
{"timestamp":"2026-03-02T09:00:03.000Z","type":"event_msg","payload":{"type":"patch_apply_end","call_id":"call_1","turn_id":"t1","success":true,"changes":{"/home/dev/src/app/cmd/status.go":{"type":"update","unified_diff":"@@ -1 +1 @@\n-func status() {\n+func status(asJSON bool) {\n"}}}}
{"timestamp":"2026-03-02T09:00:03.000Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"call_1","output":"{\"output\":\"Success. Updated the following files:\\nM cmd/status.go\\n\",\"metadata\":{\"exit_code\":0}}"}}
{"timestamp":"2026-03-02T09:00:04.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"also bump the version in package.json"}]}}
{"timestamp":"2026-03-02T09:00:04.000Z","type":"event_msg","payload":{"type":"user_message","message":"also bump the version in package.json","images":[]}}
{"timestamp":"2026-03-02T09:00:05.000Z","type":"response_item","payload":{"type":"custom_tool_call","status":"completed","call_id":"call_2","name":"apply_patch","input":"*** Begin Patch\n*** Update File: package.json\n@@\n-  \"version\": \"1.4.0\",\n+  \"version\": \"1.5.0\",\n*** End Patch\n"}}
{"timestamp":"2026-03-02T09:00:06.000Z","type":"event_msg","payload":{"type":"patch_apply_end","call_id":"call_2","turn_id":"t1","success":true,"changes":{"/home/dev/src/app/package.json":{"type":"update","unified_diff":"@@ -1 +1 @@\n-  \"version\": \"1.4.0\",\n+  \"version\": \"1.5.0\",\n"}}}}
{"timestamp":"2026-03-02T09:00:06.000Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"call_2","output":"{\"output\":\"Success. Updated the following files:\\nM package.json\\n\",\"metadata\":{\"exit_code\":0}}"}}
{"timestamp":"2026-03-02T09:00:07.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"from now on, run prettier before you commit."}]}}
{"timestamp":"2026-03-02T09:00:07.000Z","type":"event_msg","payload":{"type":"user_message","message":"from now on, run prettier before you commit.","images":[]}}
{"timestamp":"2026-03-02T09:00:08.000Z","type":"event_msg","payload":{"type":"agent_message","message":"Added --json to status and bumped the version to 1.5.0.","phase":"final_answer"}}
{"timestamp":"2026-03-02T09:00:08.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Added --json to status and bumped the version to 1.5.0."}],"phase":"final_answer"}}
{"timestamp":"2026-03-02T09:00:09.000Z","type":"event_msg","payload":{"type":"task_complete","turn_id":"t1","last_agent_message":"Added --json to status and bumped the version to 1.5.0."}}
`

func TestPatterns(t *testing.T) { checkPatterns(t, patternCases) }

// checkPatterns writes each case's session in every format it has and checks the memory made of it.
func checkPatterns(t *testing.T, cases []patternCase) {
	for _, tc := range cases {
		kinds := []sessions.Kind{sessions.KindClaudeCode, sessions.KindCodex}
		if tc.turns == nil {
			kinds = nil
		}
		for _, kind := range []sessions.Kind{sessions.KindClaudeCode, sessions.KindCodex, sessions.KindJSONL} {
			if tc.raw[kind] != "" {
				kinds = append(kinds, kind)
			}
		}
		for _, kind := range kinds {
			t.Run(tc.name+"/"+string(kind), func(t *testing.T) {
				text := memoryOf(t, kind, writePattern(t, tc, kind))
				which := "pattern " + strconv.Itoa(tc.pattern)
				if tc.guard {
					which += " (a guard)"
				}
				for _, p := range tc.must {
					if !regexp.MustCompile(p).MatchString(text) {
						t.Errorf("%s: the memory lacks %s", which, p)
					}
				}
				for _, p := range tc.mustNot {
					if m := regexp.MustCompile(p).FindString(text); m != "" {
						t.Errorf("%s: the memory says %q (%s)", which, m, p)
					}
				}
				if t.Failed() || os.Getenv("MEMCTL_RULES_DUMP") != "" {
					t.Logf("memory:\n%s", indent(text))
				}
			})
		}
	}
}

// writePattern writes a case's session in kind's format and returns its
// file.
func writePattern(t *testing.T, tc patternCase, kind sessions.Kind) string {
	t.Helper()
	dir := t.TempDir()
	if tc.raw[kind] != "" {
		name := "q1.jsonl"
		if kind == sessions.KindCodex {
			name = "rollout-2026-03-02T09-00-00-0199a0f0-0000-7000-8000-0000000000q1.jsonl"
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(tc.raw[kind]), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	agent := map[sessions.Kind]scripted.Agent{sessions.KindClaudeCode: scripted.Claude, sessions.KindCodex: scripted.Codex}[kind]
	p := &scripted.Project{Name: "acme", Cwd: "/home/dev/src/acme"}
	s := &scripted.Session{Agent: agent, Start: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC), Turns: tc.turns}
	p.Sessions = []*scripted.Session{s}
	file, err := scripted.WriteSession(dir, p, s, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(file, ".jsonl") {
		t.Fatalf("wrote %s", file)
	}
	return file
}

// TestNoAsAnswerOrModifier: after an answer that asked nothing, a message opening on "no" pushes back only when
// the "no" stands as an answer (alone, or before a stop, a comma, a dash or a clause); "no cache" is an instruction.
func TestNoAsAnswerOrModifier(t *testing.T) {
	for msg, pushesBack := range map[string]bool{
		"no verify": false, "no cache this time": false, "No colour in the output": false, "no tests, just the docs": false,
		"no": true, "No.": true, "no, keep the cache flag": true, "no — keep the cache flag": true, "no!": true,
		"no it still times out": true, "no that is the wrong file": true, "nope": true, "nope, leave it as it was": true,
	} {
		tc := patternCase{turns: []scripted.Turn{
			{User: "Rename the cache flag to --cache-dir.", Steps: []scripted.Step{edit("cmd/flags.go", `"cache"`, `"cache-dir"`)},
				Final: "The flag is --cache-dir now."},
			{User: msg, Steps: []scripted.Step{edit("cmd/flags.go", `"cache-dir"`, `"cache"`)}, Final: "The flag is --cache again."}}}
		text := memoryOf(t, sessions.KindClaudeCode, writePattern(t, tc, sessions.KindClaudeCode))
		if got := strings.Contains(text, "pushed back"); got != pushesBack {
			t.Errorf("%q: pushed back %v, want %v:\n%s", msg, got, pushesBack, indent(text))
		}
	}
}

// TestOffersAreNoStatements: an offer at the end of a final answer ("I can also …", "Let me know if you want me to
// …"), with or without its question, says nothing that happened: the answer keeps what was done, never the offer.
func TestOffersAreNoStatements(t *testing.T) {
	for _, offer := range []string{
		"I can also cut a release and update the changelog. Want me to?",
		"Let me know if you want me to cut a release.",
		"I'm happy to cut a release as well.",
		"Je peux aussi publier les tags de la release. Tu veux que je le fasse ?",
		"También puedo publicar los tags de la release. ¿Quieres que lo haga?",
		"Ich kann auch die Tags der Release veröffentlichen. Soll ich?",
		"Também posso publicar as tags da release. Quer que eu faça?",
		"我也可以发布一个release。要我来做吗？",
	} {
		tc := patternCase{turns: []scripted.Turn{{User: "Set the version to 2.0.0 in package.json.",
			Steps: []scripted.Step{edit("package.json", `"version": "1.9.0"`, `"version": "2.0.0"`)},
			Final: "package.json is at version 2.0.0. " + offer}}}
		text := memoryOf(t, sessions.KindClaudeCode, writePattern(t, tc, sessions.KindClaudeCode))
		if !strings.Contains(text, "package.json is at version 2.0.0.") || regexp.MustCompile(`(?i)release|要我`).MatchString(text) {
			t.Errorf("%q: the memory quotes the offer or loses the answer:\n%s", offer, indent(text))
		}
	}
}

// TestUserWordsCutAtAnItemsEnd: a user's message holding a numbered list is quoted whole up to the quote's limit
// and cut only at a sentence's or an item's end, never after an item's number, and a cut says so ("…").
func TestUserWordsCutAtAnItemsEnd(t *testing.T) {
	item := " with the flags, the defaults, the environment variables and an example run for the common cases"
	msg := "Write the README for the exporter. Include these sections: 1. Overview" + item + ". 2. Install" + item +
		". 3. Usage" + item + ". 4. Troubleshooting" + item + ". 5. License" + item + ". 6. Contributing" + item + "."
	tc := patternCase{turns: []scripted.Turn{{User: msg, Steps: []scripted.Step{edit("README.md", "", "# Exporter")},
		Final: "README.md has the six sections."}}}
	text := memoryOf(t, sessions.KindClaudeCode, writePattern(t, tc, sessions.KindClaudeCode))
	m := regexp.MustCompile(`The user asked: “([^”]*)”`).FindStringSubmatch(text)
	if m == nil || len(m[1]) >= len(msg) || !strings.HasSuffix(m[1], "cases. …") ||
		!strings.HasPrefix(msg, strings.TrimSuffix(m[1], " …")) {
		t.Errorf("the request is not cut at an item's end, with \"…\":\n%s", indent(text))
	}
}
