package team

import (
	"strings"
	"testing"
)

const offlineMemory = "---\ndescription: fix the rounding — outcome success\ncwd: /home/ada/app\nwritten_by: memctl heuristic\n---\n\n" +
	"### Task 1: fix the rounding\ntask: fix the rounding\n\n" +
	"Preference signals:\n- “Always run `go test -race` here.”\n\n" +
	"Reusable knowledge:\n- Fix: `go test ./...` failed and passed after changes to round.go.\n" +
	"- Finding: the agent said “the helper scales the float straight to cents”\n\n" +
	"Failures and how to do differently:\n- `go test ./...` failed once; it passed after changes to round.go.\n\n" +
	"References:\n- round.go (update)\n"

func TestLessonsAreThePreferencesAndLessonsOnly(t *testing.T) {
	ls := Lessons(offlineMemory)
	want := []Lesson{
		{N: 1, Kind: KindPreference, Text: "“Always run `go test -race` here.”"},
		{N: 2, Kind: KindLesson, Text: "Fix: `go test ./...` failed and passed after changes to round.go."},
	}
	if len(ls) != len(want) {
		t.Fatalf("lessons %+v, want %+v", ls, want)
	}
	for i := range want {
		if ls[i] != want[i] {
			t.Errorf("lesson %d: %+v, want %+v", i+1, ls[i], want[i])
		}
	}
	body := LessonBody(ls)
	for _, not := range []string{"the agent said", "/home/ada", "References", "round.go (update)"} {
		if strings.Contains(body, not) {
			t.Errorf("the shared text carries %q:\n%s", not, body)
		}
	}
	if _, err := Pick(ls, 3); err == nil || !strings.Contains(err.Error(), "has 2") {
		t.Errorf("lesson 3 of 2: %v", err)
	}
}

// A memory with many long lessons still makes a file under 1.5 KB.
func TestLessonFileStaysSmall(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("### Task 1: t\n\nReusable knowledge:\n")
	for i := 0; i < 30; i++ {
		sb.WriteString("- " + strings.Repeat("the deploy needs the signing key from the vault first ", 10) + "\n")
		sb.WriteString("- lesson " + strings.Repeat("x", i+1) + "\n")
	}
	ls := Lessons(sb.String())
	e := Entry{ID: "0199a1b2-0000-7000-8000-000000000001", Title: Title(sb.String()), Author: "Ada Lovelace <ada@example.com>",
		Session: "0199a1b2-0000-7000-8000-000000000001 (claude-code, 2026-11-20)", Project: "git:github.com/acme/app", Date: "2026-11-27",
		Body: LessonBody(ls)}
	if n := len(Render(e)); n >= 1536 {
		t.Errorf("the team file is %d bytes, want under 1.5 KB:\n%s", n, Render(e))
	}
}
