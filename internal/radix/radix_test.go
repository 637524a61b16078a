package radix

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// SortStable orders as the standard library's stable sort does, over
// lists of every length up to a few hundred with keys that repeat.
func TestSortStableAsSlices(t *testing.T) {
	type entry struct {
		key uint16
		at  int
	}
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 300 {
		s := make([]entry, n)
		for i := range s {
			s[i] = entry{uint16(r.IntN(40)) << uint(r.IntN(9)), i}
		}
		want := slices.Clone(s)
		slices.SortStableFunc(want, func(a, b entry) int { return cmp.Compare(a.key, b.key) })
		if got := SortStable(s, func(e entry) uint16 { return e.key }); !slices.Equal(got, want) {
			t.Fatalf("%d entries: %v, want %v", n, got, want)
		}
	}
}
