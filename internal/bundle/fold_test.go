package bundle

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/store"
)

// The store is what export, import and sync run on.
var _ Store = (*store.Store)(nil)

func mem(id, rev, machine, at string, sua int64, bases ...string) Record {
	return Record{Type: TypeMemory, ID: id, Rev: rev, Bases: bases, At: at, Machine: machine,
		Memory: &Memory{RawMemory: "text " + rev, SourceUpdatedAt: sua}}
}

func pin(id, machine, at string, p bool) Record {
	return Record{Type: TypePin, ID: id, Machine: machine, At: at, Pinned: &p}
}

func TestFoldConflictRules(t *testing.T) {
	const t1, t2, t3 = "2026-06-01T00:00:00Z", "2026-06-02T00:00:00Z", "2026-06-03T00:00:00Z"
	tests := []struct {
		name      string
		recs      []Record
		heads     []string
		forgotten bool
		pinned    bool
	}{
		{name: "one revision", recs: []Record{mem("x", "r1", "a", t1, 10)}, heads: []string{"r1"}},
		{name: "an edit replaces its base", recs: []Record{mem("x", "r1", "a", t1, 10), mem("x", "r2", "b", t2, 10, "r1")}, heads: []string{"r2"}},
		{name: "two edits of one base are both kept, newest first",
			recs:  []Record{mem("x", "r1", "a", t1, 10), mem("x", "r2", "a", t2, 10, "r1"), mem("x", "r3", "b", t3, 10, "r1")},
			heads: []string{"r3", "r2"}},
		{name: "an edit of both heads settles the conflict",
			recs:  []Record{mem("x", "r1", "a", t1, 10), mem("x", "r2", "a", t2, 10, "r1"), mem("x", "r3", "b", t2, 10, "r1"), mem("x", "r4", "a", t3, 10, "r2", "r3")},
			heads: []string{"r4"}},
		{name: "a forget wins over a stale copy edited later",
			recs: []Record{mem("x", "r1", "a", t1, 10), {Type: TypeForget, ID: "x", Machine: "b", At: t2, SourceUpdatedAt: 10},
				mem("x", "r2", "a", t3, 10, "r1")},
			forgotten: true, heads: []string{"r2"}},
		{name: "a new extraction after the forget lives",
			recs:  []Record{mem("x", "r1", "a", t1, 10), {Type: TypeForget, ID: "x", Machine: "b", At: t2, SourceUpdatedAt: 10}, mem("x", "r2", "a", t3, 20)},
			heads: []string{"r2"}},
		{name: "the newest pin wins", recs: []Record{mem("x", "r1", "a", t1, 10), pin("x", "a", t1, true), pin("x", "b", t2, false), pin("x", "a", t3, true)},
			heads: []string{"r1"}, pinned: true},
		{name: "pins at the same time: the order of the records does not matter",
			recs:  []Record{mem("x", "r1", "a", t1, 10), pin("x", "a", t1, true), pin("x", "b", t1, false)},
			heads: []string{"r1"}, pinned: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for round := 0; round < 20; round++ {
				recs := append([]Record(nil), tt.recs...)
				rand.Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
				if round%2 == 1 {
					recs = append(recs, recs...) // a record seen twice counts once
				}
				m := Fold(recs).Memories["x"]
				if m.Forgotten != tt.forgotten || m.Pinned != tt.pinned {
					t.Fatalf("forgotten %v pinned %v, want %v %v", m.Forgotten, m.Pinned, tt.forgotten, tt.pinned)
				}
				if !tt.forgotten && !reflect.DeepEqual(m.Heads, tt.heads) {
					t.Fatalf("heads %v, want %v", m.Heads, tt.heads)
				}
			}
		})
	}
}

func TestReadRefusesWhatItCannotApply(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"a newer schema", `{"type":"header","format":"memctl-bundle","schema":9}`, "x.jsonl:1: schema 9: written by a newer memctl"},
		{"an unknown type", "\n" + `{"type":"teleport","id":"x"}`, `x.jsonl:2: unknown record type "teleport"`},
		{"an id that is a path", `{"type":"forget","id":"../../etc"}`, `is not a memory id`},
		{"not JSON", `{"type":`, "x.jsonl:1: not a record"},
		{"a memory without its text", `{"type":"memory","id":"x","rev":"r"}`, "needs id, rev and memory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tt.text), "x.jsonl")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
}
