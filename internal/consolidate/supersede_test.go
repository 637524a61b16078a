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

// TestNewerFactsSupersedeOlderOnes: an older session saw `npm test` fail
// after a fix, a newer one saw it pass. The summary states the newer fact
// with its date; MEMORY.md keeps the older one as superseded, with the date
// it stopped holding.
func TestNewerFactsSupersedeOlderOnes(t *testing.T) {
	day := int64(86400)
	base := int64(1785840059) // 2026-08-04
	sel := []Selected{
		{ThreadID: "older", SourceUpdatedAt: base - 3*day, Cwd: "/home/dev/src/shop", RolloutSlug: "old",
			RawMemory: offlineMemory("fix the cart total", []string{"Fix: `npm test` failed (`total is NaN`) and passed after changes to src/cart.ts."},
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
		"- Check: `npm test` passed after the changes to src/coupon.ts. (as of 2026-08-04)",
		"- Check: `npm run lint` passed after the changes to src/coupon.ts. (as of 2026-08-04)",
	} {
		if !strings.Contains(summary, want+"\n") {
			t.Errorf("summary lacks %q:\n%s", want, summary)
		}
	}
	if strings.Contains(summary, "- Fix: `npm test` failed") {
		t.Errorf("a superseded fact is still a tip:\n%s", summary)
	}
	if !strings.Contains(summary, "  - learnings: Fix: `npm test` failed (`total is NaN`) and passed after changes to src/cart.ts. (superseded on 2026-08-04)\n") {
		t.Errorf("the older memory's learning is not marked superseded:\n%s", summary)
	}
	handbook := readFile(t, filepath.Join(root, memdir.MemoryFile))
	for _, want := range []string{
		"## Superseded (a later session says otherwise; kept as history)",
		"- Fix: `npm test` failed (`total is NaN`) and passed after changes to src/cart.ts. (superseded on 2026-08-04 by Task 1) [Task 2]",
		"- `npm run lint` failed once (`no-unused-vars`) and no later run passed. (superseded on 2026-08-04 by Task 1) [Task 2]",
	} {
		if !strings.Contains(handbook, want) {
			t.Errorf("MEMORY.md lacks %q:\n%s", want, handbook)
		}
	}
}
