package bundle

import (
	"sort"
	"time"
)

// The conflict rules of a sync log (docs/sync.md), applied by Fold:
//
//   - Every record is kept; folding the same records in any order, or
//     twice, gives the same state, so a log merged from any number of
//     machines needs no coordination.
//   - A memory record names the revisions it replaces (bases). The
//     memory's heads are its revisions no other record replaces: one head
//     is the memory; two or more are edits made apart, and both are kept
//     (the newest is the memory, the others are flagged copies).
//   - A forget wins over every revision extracted no later than the
//     newest extraction the forgetting machine knew of: a stale copy
//     edited elsewhere does not bring the memory back. Only a new
//     extraction of the session (the user enabled it again) does.
//   - The newest pin record says whether the memory is pinned.
//   - A note is a file name and its text; the first text seen for a name
//     is kept, as notes are never overwritten.

// MemoryState is what the log says of one memory.
type MemoryState struct {
	ID string
	// Versions holds every revision, by rev (the first record of each).
	Versions map[string]Record
	// Heads are the current revisions, newest first; empty when only
	// forgets name the memory.
	Heads []string
	// Forgotten: a forget wins over every head.
	Forgotten bool
	// ForgetFloor is the newest extraction a forget knew of.
	ForgetFloor int64
	// Pinned is what the newest pin record says (false without one).
	Pinned bool
	pinAt  time.Time
	pinKey string
}

// Has reports whether rev is one of the memory's revisions.
func (m *MemoryState) Has(rev string) bool {
	if m == nil {
		return false
	}
	_, ok := m.Versions[rev]
	return ok
}

// Winner is the record of the newest head; ok is false when there is none.
func (m *MemoryState) Winner() (Record, bool) {
	if m == nil || len(m.Heads) == 0 {
		return Record{}, false
	}
	return m.Versions[m.Heads[0]], true
}

// NewestExtraction is the newest source_updated_at among the revisions.
func (m *MemoryState) NewestExtraction() int64 {
	var n int64
	if m == nil {
		return 0
	}
	for _, v := range m.Versions {
		n = max(n, v.Memory.SourceUpdatedAt)
	}
	return n
}

// State is a folded log.
type State struct {
	Memories map[string]*MemoryState
	// Notes maps a note's file name to its record.
	Notes map[string]Record
	// Records counts the distinct records folded.
	Records int
}

// Fold computes the state a set of records describes (see the rules
// above). The order of recs does not matter.
func Fold(recs []Record) *State {
	st := &State{Memories: map[string]*MemoryState{}, Notes: map[string]Record{}}
	get := func(id string) *MemoryState {
		m := st.Memories[id]
		if m == nil {
			m = &MemoryState{ID: id, Versions: map[string]Record{}}
			st.Memories[id] = m
		}
		return m
	}
	replaced := map[string]map[string]bool{} // id → revs some record replaces
	seen := map[string]bool{}
	for _, r := range recs {
		key := Line(r)
		if seen[key] {
			continue
		}
		seen[key] = true
		st.Records++
		switch r.Type {
		case TypeMemory:
			m := get(r.ID)
			// Of two records of one revision, keep the one written first
			// (its provenance is the original's), whatever the order.
			if prev, ok := m.Versions[r.Rev]; !ok || newer(prev, r) {
				m.Versions[r.Rev] = r
			}
			if replaced[r.ID] == nil {
				replaced[r.ID] = map[string]bool{}
			}
			for _, b := range r.Bases {
				if b != r.Rev {
					replaced[r.ID][b] = true
				}
			}
		case TypeForget:
			m := get(r.ID)
			m.Forgotten = true
			m.ForgetFloor = max(m.ForgetFloor, r.SourceUpdatedAt)
		case TypePin:
			m := get(r.ID)
			at, k := atOf(r), r.Machine+"\x00"+boolKey(*r.Pinned)
			if m.pinKey == "" || at.After(m.pinAt) || at.Equal(m.pinAt) && k > m.pinKey {
				m.Pinned, m.pinAt, m.pinKey = *r.Pinned, at, k
			}
		case TypeNote:
			if prev, ok := st.Notes[r.Path]; !ok || newer(prev, r) {
				st.Notes[r.Path] = r
			}
		}
	}
	for id, m := range st.Memories {
		var heads []string
		for rev := range m.Versions {
			if !replaced[id][rev] {
				heads = append(heads, rev)
			}
		}
		sort.Slice(heads, func(i, j int) bool {
			a, b := m.Versions[heads[i]], m.Versions[heads[j]]
			if ta, tb := atOf(a), atOf(b); !ta.Equal(tb) {
				return ta.After(tb)
			}
			if a.Machine != b.Machine {
				return a.Machine < b.Machine
			}
			return a.Rev < b.Rev
		})
		m.Heads = heads
		if m.Forgotten {
			// A forget wins unless a head was extracted after what it knew.
			var live []string
			for _, h := range heads {
				if m.Versions[h].Memory.SourceUpdatedAt > m.ForgetFloor {
					live = append(live, h)
				}
			}
			if len(live) > 0 {
				m.Forgotten, m.Heads = false, live
			}
		}
	}
	return st
}

// newer reports whether b was written before a (so b should replace a as
// the kept record): earlier time first, then machine, then the line.
func newer(a, b Record) bool {
	ta, tb := atOf(a), atOf(b)
	if !ta.Equal(tb) {
		return tb.Before(ta)
	}
	if a.Machine != b.Machine {
		return b.Machine < a.Machine
	}
	return Line(b) < Line(a)
}

func boolKey(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// IDs lists the memories of the state, sorted.
func (s *State) IDs() []string {
	out := make([]string, 0, len(s.Memories))
	for id := range s.Memories {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}
