package heuristic_test

import (
	"testing"

	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/sessions/scripted"
)

// exitStatusCases: a line's exit status is its last command's. When the line goes on after a failure (";", a line
// break, "||", a pipe without pipefail), an exit 0 says nothing of the earlier commands, so an error its output
// prints is quoted beside the status, never turned into a failure; a line that stops on a failure ("&&") is ok.
// Each case is written in both agents' formats: a Codex exec_command with an exit code, a Claude Bash result.
var exitStatusCases = []patternCase{
	{
		name: "an exit 0 after a command that failed before a semicolon is no plain ok",
		turns: []scripted.Turn{{User: "Regenerate the fixtures and stage them.",
			Steps: []scripted.Step{
				run("go generate ./fixtures/...; git add fixtures", "error: pattern ./fixtures/...: no packages", 0)},
			Final: "The fixtures are staged."}},
		must: []string{"Ran `go generate \\./fixtures/\\.\\.\\.; git add fixtures`: no error status(, exit 0)?; " +
			"its output says: `error: pattern \\./fixtures/\\.\\.\\.: no packages`"},
		mustNot: []string{"git add fixtures`: ok", "fixtures`: failed"},
	},
	{
		name: "a traceback from the first of two lines is quoted, the exit status of the second kept",
		turns: []scripted.Turn{{User: "Seed the local database.",
			Steps: []scripted.Step{
				run("python3 tools/seed.py\ntouch .seeded", "Traceback (most recent call last):\n"+
					"  File \"tools/seed.py\", line 4, in <module>\nKeyError: 'DATABASE_URL'", 0)},
			Final: "The database is seeded."}},
		must:    []string{"no error status(, exit 0)?; its output says: `KeyError: 'DATABASE_URL'`"},
		mustNot: []string{"touch \\.seeded`: ok", "seeded`: failed"},
	},
	{
		name: "a drive letter (\"C:\") is no error's signature, nor any field that ends as one does",
		turns: []scripted.Turn{{User: "Install the git hooks.",
			Steps: []scripted.Step{run("where git; make hooks", "C:\\Program Files\\Git\\cmd\\git.exe", 0)},
			Final: "The hooks are installed."}},
		must:    []string{"Ran `where git; make hooks`: ok"},
		mustNot: []string{"no error status", "its output says"},
	},
	{
		name: "commands joined by && stop on a failure: their exit 0 stays ok",
		turns: []scripted.Turn{{User: "Build the bundle.",
			Steps: []scripted.Step{
				run("npm ci && npm run bundle", "added 12 packages\nerror: is a word the bundle prints", 0)},
			Final: "The bundle is built."}},
		must:    []string{"Ran `npm ci && npm run bundle`: ok"},
		mustNot: []string{"no error status"},
	},
}

// TestExitZeroOfTheLastCommandOnly checks exitStatusCases.
func TestExitZeroOfTheLastCommandOnly(t *testing.T) { checkPatterns(t, exitStatusCases) }

// A failed search that printed nothing found nothing, whether its exit status is recorded ("Exit code 1") or not:
// Claude Code 1.0 writes a bare "Error" for any failed command that printed nothing, and a search that could not
// run prints why ("grep: …: No such file"). A command of another kind with the same result still failed.
var claudeSilentFailures = claudeLines(
	user("Check that no TODO markers are left in the docs, then build the site."),
	use("t1", "Bash", `{"command":"grep -rn TODO docs/"}`),
	result("t1", "Error", true),
	use("t2", "Bash", `{"command":"make site"}`),
	result("t2", "Error", true),
	answer("No TODO markers are left in docs/; make site did not succeed."),
)

func TestSilentSearchFoundNothing(t *testing.T) {
	checkPatterns(t, []patternCase{{
		pattern: 2, name: "a search with no exit status and no output found nothing; a build with the same result failed",
		raw:     map[sessions.Kind]string{sessions.KindClaudeCode: claudeSilentFailures},
		must:    []string{"`make site`[^\n]*failed"},
		mustNot: []string{"`grep -rn TODO docs/`[^\n]*failed", "`Error`"},
	}})
}
