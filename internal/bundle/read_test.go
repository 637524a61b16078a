package bundle

import (
	"errors"
	"strings"
	"testing"
)

func TestReadRefusesAFileThatIsNoBundle(t *testing.T) {
	header := `{"type":"header","format":"memctl-bundle","schema":1}`
	note := `{"type":"note","path":"2026-06-01T00-00-00-n.md","content":"x"}`
	tests := []struct {
		name, text, want string
	}{
		{"empty", "", "b.jsonl:1: no record"},
		{"blank lines only", "\n\n  \n", "b.jsonl:3: no record"},
		{"no header", note + "\n", `b.jsonl:1: the first record is of type "note"`},
		{"a sync log", `{"type":"header","format":"memctl-sync-log","schema":1}` + "\n", `b.jsonl:1: the header names format "memctl-sync-log"`},
		{"a newer schema", `{"type":"header","format":"memctl-bundle","schema":99}` + "\n", "b.jsonl:1: schema 99: written by a newer memctl"},
		{"a bad line", header + "\n" + note + "\n{oops\n", "b.jsonl:3: not a record"},
		{"an over-long line", header + "\n" + `{"type":"note","content":"` + strings.Repeat("x", maxLine) + `"}` + "\n", "b.jsonl:2: a line longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tt.text), "b.jsonl")
			var le *LineError
			if err == nil || !errors.As(err, &le) || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error %v, want it to start with %q", err, tt.want)
			}
		})
	}
	recs, err := Read(strings.NewReader(header+"\n\n"+note+"\n"), "b.jsonl")
	if err != nil || len(recs) != 2 {
		t.Errorf("a good bundle: %d records, %v", len(recs), err)
	}
}

func TestReadLenientSetsAsideWhatItCannotUse(t *testing.T) {
	lines := []string{
		`{"type":"header","format":"memctl-sync-log","schema":1}`,
		`{"type":"note","path":"2026-06-01T00-00-00-a.md","content":"a"}`,
		`not json`,
		`{"type":"` + strings.Repeat("z", 10000) + `"}`,
		`{"type":"forget"}`,
		`{"type":"note","content":"` + strings.Repeat("x", maxLine+10) + `"}`,
		``,
		`{"type":"note","path":"2026-06-01T00-00-00-b.md","content":"b"}`,
	}
	recs, aside, err := ReadLenient(strings.NewReader(strings.Join(lines, "\r\n")), "events/m.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || recs[2].Path != "2026-06-01T00-00-00-b.md" {
		t.Errorf("records: %+v", recs)
	}
	want := []string{"events/m.jsonl:3: not a record", `events/m.jsonl:4: unknown record type "zzzz`, "events/m.jsonl:5: a forget record needs id", "events/m.jsonl:6: a line longer than"}
	if len(aside) != len(want) {
		t.Fatalf("set aside: %v", aside)
	}
	for i, a := range aside {
		if !strings.HasPrefix(a.String(), want[i]) || len(a.String()) > 200 {
			t.Errorf("set aside %d: %.300s, want it to start with %q and stay short", i, a, want[i])
		}
	}
	_, aside, _ = ReadLenient(strings.NewReader(`{"type":"header","format":"memctl-sync-log","schema":2}`), "n")
	if len(aside) != 1 || !aside[0].TooNew() {
		t.Errorf("a newer schema: %v", aside)
	}
}
