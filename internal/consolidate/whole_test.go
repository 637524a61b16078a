package consolidate

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memversion"
)

// What the offline extractor keeps reaches the consolidated
// files whole. The agent's final answer, where causes and outcomes are,
// reaches MEMORY.md; the user's rule reaches the summary; and no bullet of
// either, nor a General Tip, is cut in the middle of a sentence: an item
// too long loses whole sentences, and a quote it leaves open is closed.
func TestItemsReachTheFilesWhole(t *testing.T) {
	answer := "The export failed because the CSV writer flushed before the header row was written, so every file started with a data row. " +
		"I moved the header write into NewExporter and added a test that reads the first line back. " +
		"The nightly job in cron/export.sh still calls the old entry point; it keeps working because the wrapper forwards to NewExporter. " +
		"Large exports above 2 GB were not tested and may still need the streaming writer the TODO in export.go mentions."
	fix := "Fix: `go test ./internal/export/... -run TestExportHeader -count=1` failed (`export_test.go:41: first line = \"4711,2026-01-02,paid\", want \"id,date,status\"`; failing: TestExportHeader) " +
		"and passed on a rerun; between the failure and the pass: edited internal/export/writer.go (`w.writeHeader()`), internal/export/export.go (`func NewExporter(w io.Writer) *Exporter {`)."
	raw := "---\ndescription: fix the CSV export header — outcome success\ntask: fix the CSV export header\ntask_group: billing\ntask_outcome: success\n" +
		"cwd: /home/dev/src/billing\nkeywords: export, csv, header\nwritten_by: memctl heuristic\n---\n\n" +
		"### Task 1: fix the CSV export header\ntask: fix the CSV export header\ntask_group: billing\ntask_outcome: success\n\n" +
		"Preference signals:\n- “Always run the export tests with -count=1, the cache hides the fixture changes.”\n\n" +
		"Reusable knowledge:\n- " + fix + "\n- Final answer: “" + answer + "”\n\n" +
		"Failures and how to do differently:\n- none\n\nReferences:\n- none\n"
	sel := []Selected{{ThreadID: "019b7f94-51b4-7593-922e-ba12b5b73b60", SourceUpdatedAt: 1785840059, RawMemory: raw,
		RolloutSummary: "# fix the CSV export header\n\nDetails.", RolloutSlug: "csv-export", RolloutPath: "/home/dev/.codex/sessions/a.jsonl",
		Cwd: "/home/dev/src/billing", ProjectKey: "git:github.com/acme/billing", ProjectName: "acme/billing"}}
	for _, version := range []memversion.Version{"v1", "v2"} {
		root := runHeuristic(t, version, sel)
		files := map[string]string{memdir.SummaryFile: readFile(t, filepath.Join(root, memdir.SummaryFile))}
		if version == "v1" {
			files[memdir.MemoryFile] = readFile(t, filepath.Join(root, memdir.MemoryFile))
			if m := files[memdir.MemoryFile]; !strings.Contains(m, "Final answer: “"+answer+"”") {
				t.Errorf("MEMORY.md lacks the final answer whole:\n%s", m)
			}
		}
		if !strings.Contains(files[memdir.SummaryFile], "Always run the export tests with -count=1, the cache hides the fixture changes.") {
			t.Errorf("%s summary lacks the user's rule:\n%s", version, files[memdir.SummaryFile])
		}
		cut := regexp.MustCompile(`\w(\.\.\.|…)( \[Task [^\]]*\]| \(seen in \d+ sessions\))*$`)
		for name, text := range files {
			for _, l := range strings.Split(text, "\n") {
				if strings.HasPrefix(l, "- ") && cut.MatchString(l) {
					t.Errorf("%s %s: a bullet cut mid-sentence: %q", version, name, l)
				}
			}
		}
		if s := files[memdir.SummaryFile]; strings.Contains(s, "Fix: `go test ./internal/export") && !strings.Contains(s, "internal/export/export.go (`func NewExporter(w io.Writer) *Exporter {`).") {
			t.Errorf("%s: the Fix tip is cut:\n%s", version, s)
		}
	}
}
