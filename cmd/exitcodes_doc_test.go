package cmd

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestExitCodesDoc runs every `memctl …` example of docs/exit-codes.md's
// table of mistakes and checks the code the table gives: the page and the
// code cannot disagree.
func TestExitCodesDoc(t *testing.T) {
	b, err := os.ReadFile("../docs/exit-codes.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "## The same mistake, the same code")
	if start < 0 {
		t.Fatal("docs/exit-codes.md has no table of mistakes")
	}
	row := regexp.MustCompile(`(?m)^\|(.*)\|(.*)\| (\d+) \|$`)
	example := regexp.MustCompile("`(memctl [^`]*)`")
	ran := 0
	for _, m := range row.FindAllStringSubmatch(doc[start:], -1) {
		want, _ := strconv.Atoi(m[3])
		for _, ex := range example.FindAllStringSubmatch(m[2], -1) {
			args := strings.Fields(ex[1])[1:]
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				ios, code := runMemctl(t, false, map[string]string{"MEMCTL_PROVIDER_KIND": "heuristic"}, args...)
				if code != want {
					t.Errorf("exit %d, the page says %d\nstderr: %s", code, want, ios.errOut)
				}
			})
			ran++
		}
	}
	if ran < 15 {
		t.Errorf("only %d examples found in the table", ran)
	}
}
