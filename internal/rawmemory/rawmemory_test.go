package rawmemory

import (
	"reflect"
	"strings"
	"testing"
)

func sample() Doc {
	return Doc{
		Front: Front{
			Description: "fix the rounding of invoice totals — outcome success; changed 1 file",
			Task:        "fix the rounding of invoice totals",
			TaskGroup:   "invoicer",
			TaskOutcome: "success",
			Cwd:         "/home/dev/src/invoicer",
			Keywords:    []string{"go test", "round.go", "cents"},
			Other:       map[string]string{"thread_id": "01a1f83b"},
		},
		Title:   "fix the rounding of invoice totals in invoicer",
		Context: "Codex CLI session in /home/dev/src/invoicer (project invoicer).",
		Tasks: []Task{{
			Title: "fix the rounding of invoice totals", Task: "fix the rounding of invoice totals", Group: "invoicer",
			Outcome: "success", OutcomeReason: "the last check `go test -race ./...` passed",
			Prefs:     []string{"“From now on always run `go test -race` for this repo.”"},
			Steps:     []string{"The user asked: “fix the rounding”", "Ran `go test ./...`: failed, exit 1."},
			Failures:  []string{"`go test ./...` failed once (`round_test.go:24: RoundCents(2.675) = 267, want 268`)."},
			Knowledge: []string{TagCheck + " `go test -race ./...` passed after the edits.", TagFinding + " “the cutoff was inclusive”"},
			Refs:      []string{"internal/money/round.go (update)", "Final answer: “done”"},
		}, {
			Title: "update the docs", Task: "update the docs", Group: "invoicer", Outcome: "uncertain",
		}},
	}
}

// Render and Parse agree: what the extractor writes is what the
// consolidator reads, field by field.
func TestRoundTrip(t *testing.T) {
	d := sample()
	raw := Parse(Render(d))
	want := d
	want.Title, want.Context = "", ""
	want.Tasks = []Task{d.Tasks[0], d.Tasks[1]}
	// The raw memory has no steps and no outcome reasons.
	want.Tasks[0].Steps, want.Tasks[0].OutcomeReason = nil, ""
	if !reflect.DeepEqual(raw, want) {
		t.Errorf("raw memory round trip:\n got %#v\nwant %#v\ntext:\n%s", raw, want, Render(d))
	}

	sum := Parse(RenderSummary(d, false))
	want = d
	want.Front = Front{}
	for i := range want.Tasks {
		want.Tasks[i].Task, want.Tasks[i].Group = "", ""
	}
	if !reflect.DeepEqual(sum, want) {
		t.Errorf("summary round trip:\n got %#v\nwant %#v\ntext:\n%s", sum, want, RenderSummary(d, false))
	}
	if v2 := Parse(RenderSummary(d, true)); !reflect.DeepEqual(v2, want) {
		t.Errorf("v2 summary round trip:\n got %#v\nwant %#v", v2, want)
	}
}

func TestRenderShape(t *testing.T) {
	text := Render(sample())
	for _, s := range []string{"---\ndescription: ", "\ntask: ", "\ntask_group: ", "\ntask_outcome: ", "\ncwd: ",
		"\nkeywords: go test, round.go, cents\n", "thread_id: 01a1f83b\n---\n", "\n### Task 1: ", "\n### Task 2: update the docs\n",
		"\nPreference signals:\n- none\n"} {
		if !strings.Contains(text, s) {
			t.Errorf("raw memory lacks %q:\n%s", s, text)
		}
	}
	sum := RenderSummary(sample(), true)
	for _, s := range []string{"# fix the rounding", "\nRollout context: Codex CLI", "\n## Task 1: ", "\nOutcome: success (the last check",
		"\nWhat happened, in order:\n", "\nReferences:\n1. internal/money/round.go (update)\n2. Final answer"} {
		if !strings.Contains(sum, s) {
			t.Errorf("summary lacks %q:\n%s", s, sum)
		}
	}
}

func TestParseVariants(t *testing.T) {
	text := "**description**: not front matter\n\n## Task 1: Ship the release\nOutcome: success\n\n**Preference signals:**\n* prefers squash merges\n\n**Reusable knowledge:** tags are signed with the release key\n1. run make release\n\n## Task 2 - Docs\n### Failures and how to do differently\n- forgot the changelog\n  and the version bump\n- … 3 more\n"
	doc := Parse(text)
	if len(doc.Tasks) != 2 {
		t.Fatalf("got %d tasks", len(doc.Tasks))
	}
	t1, t2 := doc.Tasks[0], doc.Tasks[1]
	if t1.Title != "Ship the release" || t1.Outcome != "success" {
		t.Errorf("task 1 = %+v", t1)
	}
	if len(t1.Prefs) != 1 || t1.Prefs[0] != "prefers squash merges" {
		t.Errorf("prefs = %q", t1.Prefs)
	}
	if len(t1.Knowledge) != 2 || t1.Knowledge[0] != "tags are signed with the release key" {
		t.Errorf("knowledge = %q", t1.Knowledge)
	}
	if t2.Title != "Docs" || len(t2.Failures) != 1 || t2.Failures[0] != "forgot the changelog and the version bump" {
		t.Errorf("task 2 = %+v", t2)
	}
	front := Parse("---\ndescription: \"quoted\"\nkeywords:\n  - a\n  - b\nrollout_path: /x\n---\ntask: loose\n")
	if front.Front.Description != "quoted" || !reflect.DeepEqual(front.Front.Keywords, []string{"a", "b"}) ||
		front.Front.Other["rollout_path"] != "/x" || front.Loose.Task != "loose" {
		t.Errorf("front = %+v", front)
	}
}

func TestTagged(t *testing.T) {
	for item, want := range map[string]string{
		"Check: `go test ./...` passed": TagCheck, "Fix: `git push` needs": TagFix, "Finding: “x”": TagFinding, "plain": "",
	} {
		if got := Tagged(item); got != want {
			t.Errorf("Tagged(%q) = %q", item, got)
		}
	}
}
