package agentfiles

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReplace(t *testing.T) {
	block := func(body string) string { return Begin + "\n" + body + "\n" + End + "\n" }
	tests := []struct {
		name, existing, body, want string
		err                        error
	}{
		{name: "new file", existing: "", body: "m1", want: block("m1")},
		{name: "appended after the user's text", existing: "# Rules\nUse tabs.\n", body: "m1", want: "# Rules\nUse tabs.\n\n" + block("m1")},
		{name: "no final newline", existing: "# Rules", body: "m1", want: "# Rules\n\n" + block("m1")},
		{name: "replaced in place", existing: "top\n\n" + block("old") + "bottom\n", body: "new", want: "top\n\n" + block("new") + "bottom\n"},
		{name: "an END before its BEGIN", existing: End + "\n" + Begin + "\n", body: "x", err: ErrMarkers},
		{name: "two blocks", existing: block("a") + block("b"), body: "x", err: ErrMarkers},
		{name: "a BEGIN alone", existing: "x\n" + Begin + "\n", body: "x", err: ErrMarkers},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Replace(tt.existing, tt.body)
			if !errors.Is(err, tt.err) || got != tt.want {
				t.Errorf("got %q, %v; want %q, %v", got, err, tt.want, tt.err)
			}
		})
	}
}

func TestWriteIsIdempotent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "deep", "instructions.md")
	for i, want := range []bool{true, false} {
		changed, err := Write(path, "memory")
		if err != nil || changed != want {
			t.Fatalf("write %d: changed %v, %v", i, changed, err)
		}
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode: %v %v", fi, err)
	}
}

func TestProjectLessonsKeepOnlyTheProjectsOwnLists(t *testing.T) {
	summary := "## Project: acme/api\n\nkey: git:github.com/acme/api; folders: /src/api\n\n" +
		"### Preferences in this project\n\n- Use tabs.\n\n" +
		"### Tips for this project\n\n- Fix: `make test` needs the db up.\n- See rollout_summaries/2026-11-20T00-00-00-x-a.md for the steps.\n- Notes live in /home/u/.memctl/memories/x.\n" +
		"- As in projects/shop-1a2b3c4d/summary.md.\n- Check: `go test ./projects/...` passed.\n\n" +
		"### What's in memory for this project\n\n- api: keywords\n  - desc: a task (rollout_summaries/x.md)\n"
	l := ProjectLessons(summary, "/home/u/.memctl/memories")
	if len(l.Prefs) != 1 || l.Prefs[0] != "Use tabs." || len(l.Tips) != 2 || l.Tips[0] != "Fix: `make test` needs the db up." ||
		l.Tips[1] != "Check: `go test ./projects/...` passed." {
		t.Errorf("lessons: %+v", l)
	}
	if !ProjectLessons("## Project: x\n\n### Preferences in this project\n\n- none recorded yet\n", "").Empty() {
		t.Error("an empty list gave lessons")
	}
	body := l.Body(AgentsMD)
	if !strings.Contains(body, "## Preferences\n\n- Use tabs.\n") || !strings.Contains(body, "memctl export --to agents-md") {
		t.Errorf("body:\n%s", body)
	}
}
