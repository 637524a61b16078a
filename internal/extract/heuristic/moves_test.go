package heuristic_test

import (
	"testing"

	"github.com/memctl/memctl/internal/sessions/scripted"
)

// TestMovesAndUnnamedEdits: a move's sources are moved, not deleted (into a folder, to a new name, and a file the
// session made lives on under its new name: no "created and deleted again"); an in-place edit over files the line
// does not name makes the count a lower bound and the list of files changed quotes the line, unless it failed or
// was thrown away. Both agents' formats.
func TestMovesAndUnnamedEdits(t *testing.T) {
	checkPatterns(t, []patternCase{
		{
			name: "a move is no deletion",
			turns: []scripted.Turn{{User: "Move the legacy handlers out of the api package.",
				Steps: []scripted.Step{
					edit("api/routes.go", "legacy.Register(mux)", "legacyapi.Register(mux)"),
					run("mkdir -p api/legacy && git mv api/v1.go api/v1_test.go api/legacy/", "", 0),
					edit("draft.md", "", "# Legacy handlers\n\nThey live in api/legacy now."),
					run("mv draft.md docs/legacy.md && mv api/README api/legacy", "", 0)},
				Final: "The v1 handlers and their test live in api/legacy."}},
			must: []string{"api/v1\\.go \\(moved to `api/legacy/`\\)", "api/v1_test\\.go \\(moved to `api/legacy/`\\)",
				"api/README \\(moved to `api/legacy`\\)", "docs/legacy\\.md \\(add\\)", "changed 5 files"},
			mustNot: []string{"\\(delete\\)", "deleted again", "undone", "Files changed: [^\n]*draft\\.md"},
		},
		{
			name: "a folder moved takes its files along, is no file of its own and makes the count a floor",
			turns: []scripted.Turn{{User: "Put the draft handlers in their own package and wire them in.",
				Steps: []scripted.Step{
					edit("api/routes.go", "v1.Register(mux)", "v1.Register(mux)\n\tdrafts.Register(mux)"),
					edit("api/wip/drafts.go", "", "package wip\n\nfunc Register() {}\n"),
					edit("api/wip/drafts_test.go", "", "package wip\n"),
					run("git mv api/wip api/drafts", "", 0),
					edit("api/drafts/drafts.go", "package wip", "package drafts")},
				Final: "The handlers live in api/drafts."}},
			must: []string{"outcome [a-z]+; changed at least 2 files", "failed\\) and changed at least 2 files",
				"api/drafts/drafts\\.go \\(update\\)"},
			mustNot: []string{"api/wip \\(", "`api/wip`", "api/wip/drafts\\.go", "changed [3-9] files"},
		},
		{
			name: "a folder moved in a later task takes along the files an earlier task wrote under it",
			turns: []scripted.Turn{{User: "Write a spec for the export feature in specs/wip.",
				Steps: []scripted.Step{edit("specs/wip/spec.md", "", "# Export\n"), edit("specs/wip/plan.md", "", "# Plan\n")},
				Final: "The spec and the plan are in specs/wip."},
				{User: "Different job: give that directory its ticket number as prefix, matching our numbering " +
					"convention, then outline the first milestone.",
					Steps: []scripted.Step{run("mv specs/wip specs/003-export", "", 0),
						edit("specs/003-export/plan.md", "# Plan\n", "# Plan\n\n1. Write the CSV writer.\n")},
					Final: "The folder is specs/003-export and the plan has its first step."}},
			must:    []string{"failed\\) and changed at least 1 file"},
			mustNot: []string{"`specs/wip`", "specs/wip \\(", "changed [2-9]"},
		},
		{
			name: "an in-place edit over files the line does not name makes the count a lower bound",
			turns: []scripted.Turn{{User: "Rename the Fetcher type to Loader everywhere.",
				Steps: []scripted.Step{
					edit("loader/loader.go", "type Fetcher struct", "type Loader struct"),
					edit("README.md", "the Fetcher", "the Loader"),
					run("git ls-files '*.go' | xargs sed -i 's/Fetcher/Loader/g'", "", 0),
					run("go build ./...", "", 0)},
				Final: "Fetcher is Loader everywhere."}},
			must: []string{"outcome [a-z]+; changed at least 2 files", "failed\\) and changed at least 2 files",
				"Files changed: [^\n]*README\\.md \\(update\\)[^\n]*, and the " +
					"files `git ls-files '\\*\\.go' \\| xargs sed -i 's/Fetcher/Loader/g'` edited in place"},
		},
		{
			name: "a session whose only change is an unnamed in-place edit did edit files",
			turns: []scripted.Turn{{User: "Bump the copyright year in every header.",
				Steps: []scripted.Step{run("find . -name '*.go' -exec sed -i 's/2025/2026/' {} +", "", 0)},
				Final: "Every header says 2026."}},
			must:    []string{"failed\\) and changed files it does not name", "Files changed: the files `find"},
			mustNot: []string{"edited no file"},
		},
		{
			name: "a read that exits non-zero with its errors discarded read nothing",
			turns: []scripted.Turn{{User: "Is there a plan file for the export yet?",
				Steps: []scripted.Step{run("cat docs/export-plan.md 2>/dev/null", "", 1), run("cat README.md", "# Acme", 0)},
				Final: "There is no plan file for the export yet."}},
			must:    []string{"Files read: README\\.md"},
			mustNot: []string{"Files read: [^\n]*export-plan"},
		},
		{
			name: "an in-place edit that failed or was thrown away changed nothing",
			turns: []scripted.Turn{{User: "Rename the Fetcher type to Loader everywhere.",
				Steps: []scripted.Step{
					edit("loader/loader.go", "type Fetcher struct", "type Loader struct"),
					run("sed -i 's/Fetcher/Loader/g' $(git ls-files '*.md')", "sed: no input files", 4),
					run("perl -pi -e 's/Fetcher/Loader/g' $(git ls-files '*.go')", "", 0),
					run("git checkout .", "Updated 7 paths from the index", 0),
					edit("loader/loader.go", "type Fetcher struct", "type Loader struct")},
				Final: "Only loader.go changed."}},
			must:    []string{"changed 1 file"},
			mustNot: []string{"at least", "edited in place"},
		},
	})
}
