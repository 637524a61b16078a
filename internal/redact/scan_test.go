package redact

import (
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestScanFindsEveryAnchorInOrder compares the prefilter, whose anchors are
// keyed on a pair inside them, with a plain search for every anchor at
// every position: the same hits, in position order.
func TestScanFindsEveryAnchorInOrder(t *testing.T) {
	sc := Default().sc
	var pieces []string
	for _, a := range sc.anchors {
		pieces = append(pieces, string(a.lit), strings.ToUpper(string(a.lit)))
	}
	pieces = append(pieces, " ", "\n", `\n`, "_", "x", "=", `"`, "ss", "ma", "-")
	rng := rand.New(rand.NewPCG(3, 5))
	for i := 0; i < 2000; i++ {
		var b strings.Builder
		for n := rng.IntN(16); n >= 0; n-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := []byte(b.String())
		got := sc.scan(text, nil)
		var want []hit
		for p := range text {
			for ai, a := range sc.anchors {
				n := len(a.lit)
				if p+n > len(text) {
					continue
				}
				if a.fold && !equalFoldASCII(text[p:p+n], a.lit) || !a.fold && string(text[p:p+n]) != string(a.lit) {
					continue
				}
				if roughBefore(a.before, text, p) {
					want = append(want, hit{pos: p, a: int32(ai)})
				}
			}
		}
		if !sort.SliceIsSorted(got, func(i, j int) bool { return got[i].pos < got[j].pos }) {
			t.Fatalf("%q: hits out of order: %v", text, got)
		}
		key := func(hs []hit) []hit {
			out := append([]hit(nil), hs...)
			sort.Slice(out, func(i, j int) bool {
				return out[i].pos < out[j].pos || out[i].pos == out[j].pos && out[i].a < out[j].a
			})
			return out
		}
		g, w := key(got), key(want)
		if len(g) != len(w) {
			t.Fatalf("%q: %d hits, want %d", text, len(g), len(w))
		}
		for j := range g {
			if g[j] != w[j] {
				t.Fatalf("%q: hit %d is %v, want %v", text, j, g[j], w[j])
			}
		}
	}
}

// TestAnchorsKeyedOnUncommonPairs: the anchors that start with a common pair
// are looked up by a rarer one inside them.
func TestAnchorsKeyedOnUncommonPairs(t *testing.T) {
	for lit, want := range map[string]string{"sshpass": "sh", "secret": "cr", "password": "sw", "ghp_": "gh", "ntn_": "tn"} {
		k := keyOffset([]byte(lit))
		if got := lit[k : k+2]; got != want {
			t.Errorf("%s is keyed on %q, want %q", lit, got, want)
		}
	}
}

// TestScannerTableAsAddedOneByOne: the table built from one array holds
// the groups, in the order and with the anchors in the order, that
// entering each anchor's key pairs one by one gives.
func TestScannerTableAsAddedOneByOne(t *testing.T) {
	for _, rules := range [][]*rule{builtinRules(), codexRules()} {
		got := newScanner(rules)
		want := &scanner{tab: make([]uint8, 1<<16)}
		for _, a := range got.anchors {
			idx := int32(len(want.anchors))
			want.anchors = append(want.anchors, a)
			for _, b0 := range caseVariants(a.lit[a.key], a.fold) {
				for _, b1 := range caseVariants(a.lit[a.key+1], a.fold) {
					k := uint16(b0)<<8 | uint16(b1)
					if want.tab[k] == 0 {
						want.groups = append(want.groups, nil)
						want.tab[k] = uint8(len(want.groups))
					}
					want.groups[want.tab[k]-1] = append(want.groups[want.tab[k]-1], idx)
				}
			}
		}
		if !slices.Equal(got.tab, want.tab) || len(got.groups) != len(want.groups) {
			t.Fatalf("the table differs: %d groups, want %d", len(got.groups), len(want.groups))
		}
		for g := range want.groups {
			if !slices.Equal(got.groups[g], want.groups[g]) {
				t.Errorf("group %d: %v, want %v", g, got.groups[g], want.groups[g])
			}
		}
	}
}
