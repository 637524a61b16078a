package heuristic_test

import (
	"testing"

	"github.com/memctl/memctl/internal/sessions/scripted"
)

// runCases: a failure names only what ran. "N times" counts runs of the command as written (filters aside), the
// quoted command shows the line's work, and a rerun is a run of that work, not of a shared prefix.
var runCases = []patternCase{
	{
		pattern: 2, name: "two errors of one check are two failures, each with what ran after it",
		turns: []scripted.Turn{{User: "Make the API tests pass.",
			Steps: []scripted.Step{
				run("pytest tests/test_api.py", "E   ModuleNotFoundError: No module named 'httpx'\n=== 1 error in 0.12s ===", 1),
				run("pip install httpx", "Successfully installed httpx-0.27.0", 0),
				run("pytest tests/test_api.py", "E   AssertionError: assert 422 == 200\nFAILED tests/test_api.py::test_create - "+
					"AssertionError: assert 422 == 200\n=== 1 failed in 0.31s ===", 1),
				edit("app/schemas.py", "name: str", "name: str | None = None"),
				run("pytest tests/test_api.py", "=== 3 passed in 0.28s ===", 0)},
			Final: "The API tests pass: httpx was missing and the create schema required a name."}},
		must: []string{"`pytest tests/test_api\\.py` failed \\(`[^`]*No module named 'httpx'`\\) and failed differently on a rerun; " +
			"between the failure and the rerun: ran `pip install httpx`\\.",
			"Fix: `pytest tests/test_api\\.py` failed \\(`[^`]*assert 422 == 200`[^\n]*\\) and passed on a rerun \\(`3 passed[^\n]*; " +
				"between the failure and the pass: edited app/schemas\\.py"},
		mustNot: []string{"failed 2 times", "Fix: [^\n]*httpx'`"},
	},
	{
		pattern: 33, name: "three runs of one work with different options are no command failing three times",
		turns: []scripted.Turn{{User: "Merge pull request 7.",
			Steps: []scripted.Step{
				run("gh pr merge 7 --squash", "X Pull request #7 is not mergeable: the base branch policy prohibits the merge.", 1),
				run("gh pr merge 7 --squash --auto", "GraphQL: Auto merge is not allowed for this repository (enablePullRequestAutoMerge)", 1),
				run("gh pr merge 7 --squash --admin", "GraphQL: Resource not accessible by integration (mergePullRequest)", 1)},
			Final: "I could not merge the pull request: the branch policy and the token's permissions forbid it."}},
		must: []string{"`gh pr merge 7 --squash --admin` failed once \\(`GraphQL: Resource not accessible[^\n;]*\\)",
			"`gh pr merge 7 --squash` failed \\(`X Pull request #7 is not mergeable[^\n]*\\) and `gh pr merge 7 --squash --auto` " +
				"failed differently\\.\n"}, // nothing ran between: no word on it, the two commands say what changed
		mustNot: []string{"failed 3 times", "failed 2 times", "Fix: `gh pr merge", "between the failure and the rerun"},
	},
	{
		pattern: 33, guard: true, name: "a run written differently with the same error is counted beside the latest",
		turns: []scripted.Turn{{User: "Merge pull request 7.",
			Steps: []scripted.Step{
				run("gh pr merge 7 --squash", "GraphQL: Resource not accessible by integration (mergePullRequest)", 1),
				run("gh pr merge 7 --squash --admin", "GraphQL: Resource not accessible by integration (mergePullRequest)", 1)},
			Final: "I could not merge the pull request: the token's permissions forbid it."}},
		must:    []string{"`gh pr merge 7 --squash --admin` failed once \\(`GraphQL: Resource[^\n]*; 1 earlier run written differently failed too\\)"},
		mustNot: []string{"failed differently"},
	},
	{
		pattern: 33, name: "a fix after runs written differently counts the command's own runs",
		turns: []scripted.Turn{{User: "Commit the change.",
			Steps: []scripted.Step{
				run("git commit -am 'Fix the parser'", "error: hook pre-commit failed: lint found 2 problems", 1),
				run("git commit -am 'Fix the parser' 2>&1 | tail -3", "error: hook pre-commit failed: lint found 2 problems", 1),
				run("git commit -am 'Fix the parser' --no-verify", "fatal: unable to auto-detect email address", 1),
				run("git -c user.email=dev@example.com commit -am 'Fix the parser' --no-verify", "[main 1a2b3c4] Fix the parser\n 1 file changed", 0)},
			Final: "Committed as 1a2b3c4 without the hook."}},
		must: []string{"`git commit -am 'Fix the parser' --no-verify` failed \\(`fatal: unable to auto-detect[^\n;]*\\) and",
			"`git commit -am 'Fix the parser' 2>&1 \\| tail -3` failed 2 times \\(`error: hook pre-commit failed[^\n]*\\) and " +
				"`git commit -am 'Fix the parser' --no-verify` failed differently"},
		mustNot: []string{"failed 3 times"},
	},
	{
		pattern: 33, guard: true, name: "runs of one command as written, filters aside, are counted together",
		turns: []scripted.Turn{{User: "Build the site.",
			Steps: []scripted.Step{
				run("npm run build", "Error: Cannot find module 'vite'", 1),
				run("npm run build 2>&1 | tail -5", "Error: Cannot find module 'vite'", 1)},
			Final: "The build fails: vite is not installed."}},
		must:    []string{"`npm run build 2>&1 \\| tail -5` failed 2 times"},
		mustNot: []string{"written differently"},
	},
	{
		pattern: 33, name: "a compound line's failure is its work's, a shared prefix is no rerun (PowerShell)",
		turns: []scripted.Turn{{User: "Find how to list the boards with the board tool.",
			Steps: []scripted.Step{
				run(`$env:Path += ";C:\Users\dev\AppData\Local\boardtool\bin"; Write-Output "== flash =="; `+
					`boardtool flash --help 2>&1 | Select-Object -First 20; Write-Output "== boards =="; boardtool boards list`,
					"== flash ==\nUsage: boardtool flash [OPTIONS] <PORT>\n== boards ==\nerror: not logged in; run boardtool auth login", 1),
				run(`$env:Path += ";C:\Users\dev\AppData\Local\boardtool\bin"; boardtool auth --help`,
					"Usage: boardtool auth <login|logout|status>", 0)},
			Final: "Listing boards needs a login first: boardtool auth login."}},
		must:    []string{"`… boardtool boards list` failed once \\(`error: not logged in"},
		mustNot: []string{"flash --help[^\n]*` failed", "passed on a rerun", "auth --help` passed", "run again"},
	},
	{
		pattern: 33, name: "a compound line's failure is its work's, a shared prefix is no rerun (sh)",
		turns: []scripted.Turn{{User: "Find how to list the boards with the board tool.",
			Steps: []scripted.Step{
				run(`export PATH="$HOME/.local/share/boardtool/current/bin:$PATH"; echo "== flash =="; `+
					`boardtool flash --help 2>&1 | head -20; echo "== boards =="; boardtool boards list`,
					"== flash ==\nUsage: boardtool flash [OPTIONS] <PORT>\n== boards ==\nerror: not logged in; run boardtool auth login", 1),
				run(`export PATH="$HOME/.local/share/boardtool/current/bin:$PATH"; boardtool auth --help`,
					"Usage: boardtool auth <login|logout|status>", 0)},
			Final: "Listing boards needs a login first: boardtool auth login."}},
		must:    []string{"`… boardtool boards list` failed once \\(`error: not logged in"},
		mustNot: []string{"flash --help[^\n]*` failed", "passed on a rerun", "auth --help` passed", "run again"},
	},
	{
		pattern: 33, guard: true, name: "a long chain joined by && is quoted from its start: any of its commands may have failed",
		turns: []scripted.Turn{{User: "Check the trace helpers.",
			Steps: []scripted.Step{
				run("source tools/lib/trace_helpers.sh && \\\nrand_hex 16 | grep -E '^[0-9a-f]{32}$' && echo 'rand_hex works' && \\\n"+
					"make_traceparent | grep -E '^00-[0-9a-f]{32}-[0-9a-f]{16}-01$' && echo 'traceparent works'",
					"(eval):1: permission denied: tools/lib/trace_helpers.sh", 1)},
			Final: "The helper script is not readable."}},
		must:    []string{"`source tools/lib/trace_helpers\\.sh && [^`]*` failed once"},
		mustNot: []string{"`… make_traceparent"},
	},
	{
		pattern: 33, name: "two reads that share only a cd are two works, each failing once",
		turns: []scripted.Turn{{User: "Find the specs of the project.",
			Steps: []scripted.Step{
				run("cd /home/dev/src/acme && cat docs/specs.md", "cat: docs/specs.md: No such file or directory", 1),
				run("cd /home/dev/src/acme && find specs -maxdepth 1 -type d -regex '.*/[0-9]+-.*'",
					"find: specs: No such file or directory", 1)},
			Final: "The project has no specs yet."}},
		must: []string{"`cd /home/dev/src/acme && find specs [^`]*` failed once",
			"`cd /home/dev/src/acme && cat docs/specs\\.md` failed once"},
		mustNot: []string{"failed 2 times"},
	},
}

func TestRuns(t *testing.T) { checkPatterns(t, runCases) }

// tryoutCases: a line that works on a scratch file is a tryout, its failure no failure of the task, wherever else
// the same file is the target of a redirection.
var tryoutCases = []patternCase{{
	pattern: 33, name: "a scratch file read after its redirection makes a tryout",
	turns: []scripted.Turn{{User: "Check the generator's output.",
		Steps: []scripted.Step{
			run("./gen > /tmp/gen-out.txt | diff /tmp/gen-out.txt testdata/want.txt", "1c1\n< alpha\n---\n> beta", 1)},
		Final: "The generator prints alpha where beta is expected."}},
	mustNot: []string{"gen-out\\.txt[^\n]*` failed"},
}}

func TestTryouts(t *testing.T) { checkPatterns(t, tryoutCases) }

// probeCases: a one-off inline probe (python -c, node -e, a heredoc fed to an interpreter) rewritten keeps the words
// of the one that failed ("import x as y"); its pass ends the failure, listing the setup step between, so a probe that
// failed before an install is no open failure making the task partial. A probe of something else stays other work.
var probeCases = []patternCase{
	{
		pattern: 1, name: "a probe rewritten after an install ends the probe's failure, the install listed between",
		turns: []scripted.Turn{{User: "Rank the results with xgboost and keep the tests green.",
			Steps: []scripted.Step{
				edit("ranking/rank.py", "def rank(items):", "import xgboost\n\ndef rank(items):"),
				run("uv run pytest tests/", "============ 14 passed in 2.31s ============", 0),
				run(`python -c 'import xgboost; print(xgboost.__version__)'`, "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n"+
					"xgboost.core.XGBoostError: XGBoost Library (libxgboost.dylib) could not be loaded: Library not loaded: @rpath/libomp.dylib", 1),
				run("brew install libomp", "==> Pouring libomp--19.1.7.arm64_sonoma.bottle.tar.gz\n/opt/homebrew/Cellar/libomp/19.1.7: 9 files, 1.7MB", 0),
				run(`uv run python -c 'import xgboost as xgb; print(xgb.__version__)'`, "2.1.3", 0)},
			Final: "The ranker uses xgboost; libomp was missing on this Mac and is installed now. The tests pass."}},
		must: []string{"task_outcome: success",
			"Fix: `python -c 'import xgboost; print\\(xgboost\\.__version__\\)'` failed \\(`xgboost\\.core\\.XGBoostError[^\n]*\\) and " +
				"`uv run python -c 'import xgboost as xgb; print\\(xgb\\.__version__\\)'` passed; between the failure and the pass: ran `brew install libomp`"},
		mustNot: []string{"task_outcome: partial", "but `python -c", "` failed once"},
	},
	{
		pattern: 1, name: "a heredoc probe rewritten after an install before the tests ran is a fix, no open failure",
		turns: []scripted.Turn{{User: "Read the parquet export in the loader.",
			Steps: []scripted.Step{
				run("python3 - <<'PY'\nimport pyarrow.parquet as pq\nprint(pq.read_schema('data/export.parquet'))\nPY",
					"Traceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\nModuleNotFoundError: No module named 'pyarrow'", 1),
				run("pip install pyarrow", "Successfully installed pyarrow-18.1.0", 0),
				run("python3 - <<'PY'\nimport pyarrow.parquet as pq\nschema = pq.read_schema('data/export.parquet')\nprint(schema.names)\nPY",
					"['id', 'name', 'total']", 0),
				edit("loader/read.py", "def load(path):\n    return read_csv(path)", "def load(path):\n    return pq.read_table(path).to_pylist()"),
				run("python3 -m pytest tests/test_loader.py", "============ 3 passed in 0.41s ============", 0)},
			Final: "The loader reads the parquet export with pyarrow."}},
		must: []string{"task_outcome: success",
			"Fix: `python3 - <<'PY'[^`]*` failed \\(`ModuleNotFoundError: No module named 'pyarrow'`\\) and `python3 - <<'PY'[^`]*` passed; " +
				"between the failure and the pass: ran `pip install pyarrow`"},
		mustNot: []string{"` failed once"},
	},
	{
		pattern: 1, guard: true, name: "a probe of another module after an install is other work: the probe's failure stands",
		turns: []scripted.Turn{{User: "Rank the results with xgboost and keep the tests green.",
			Steps: []scripted.Step{
				edit("ranking/rank.py", "def rank(items):", "import pandas\n\ndef rank(items):"),
				run("uv run pytest tests/", "============ 14 passed in 2.31s ============", 0),
				run(`python -c 'import xgboost; print(xgboost.__version__)'`, "ModuleNotFoundError: No module named 'xgboost'", 1),
				run("pip install pandas", "Requirement already satisfied: pandas", 0),
				run(`python -c 'import pandas; print(pandas.__version__)'`, "2.2.3", 0)},
			Final: "The ranker sorts with pandas."}},
		must:    []string{"`python -c 'import xgboost; print\\(xgboost\\.__version__\\)'` failed once \\(`ModuleNotFoundError"},
		mustNot: []string{"Fix: `python -c"},
	},
	{
		pattern: 1, name: "a probe is no check whatever its code names: its failure before the tests passed leaves no partial",
		turns: []scripted.Turn{{User: "Make the async client tests run.",
			Steps: []scripted.Step{
				run(`python -c "import pytest_asyncio"`, "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n"+
					"ModuleNotFoundError: No module named 'pytest_asyncio'", 1),
				run("pip install pytest-asyncio", "Successfully installed pytest-asyncio-0.24.0", 0),
				edit("pyproject.toml", "[tool.pytest.ini_options]", "[tool.pytest.ini_options]\nasyncio_mode = \"auto\""),
				run("pytest tests/test_client.py", "============ 6 passed in 0.52s ============", 0)},
			Final: "The async tests run with pytest-asyncio in auto mode."}},
		must: []string{"task_outcome: success", "Outcome: success \\(the last check `pytest tests/test_client\\.py` passed\\)",
			"`python -c \"import pytest_asyncio\"` failed once \\(`ModuleNotFoundError: No module named 'pytest_asyncio'`\\)"},
		mustNot: []string{"task_outcome: partial", "but `python -c"},
	},
}

func TestProbes(t *testing.T) { checkPatterns(t, probeCases) }
