package doctor

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"sort"
	"strings"

	"github.com/memctl/memctl/internal/store"
)

// Near-duplicate detection compares word 3-grams of the memories' text
// (Jaccard similarity). Comparing every pair of 10,000 memories is 50
// million comparisons, so candidates come from MinHash with locality-
// sensitive hashing: numHashes minimum hashes per memory, cut into bands;
// two memories sharing a band are compared exactly.
const (
	shingleWords = 3
	numHashes    = 32
	bandRows     = 4 // 8 bands: pairs at 0.8 similarity meet with p ≈ 0.9996, at 0.5 with p ≈ 0.4
	// minShingles keeps very short memories out: two one-line memories
	// are alike by accident.
	minShingles = 8
)

// metaKeys are front-matter and header lines that differ between copies
// of the same memory (where and when), not what it says.
var metaKeys = []string{"cwd:", "written_by:", "thread_id:", "updated_at:", "rollout_path:", "git_branch:", "keywords:", "rollout context:"}

// content is what a memory says, normalised: lowercase words, without the
// lines that only say where and when.
func content(o store.Output) string {
	text := o.RawMemory
	if strings.TrimSpace(text) == "" {
		text = o.RolloutSummary
	}
	var b strings.Builder
	for _, line := range strings.Split(text, "\n") {
		l := strings.ToLower(strings.TrimSpace(line))
		meta := false
		for _, k := range metaKeys {
			if strings.HasPrefix(l, k) {
				meta = true
				break
			}
		}
		if meta || l == "---" || l == "- none" {
			continue
		}
		b.WriteString(strings.Join(strings.FieldsFunc(l, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 0x7f || r == '_' || r == '.' || r == '/' || r == '-')
		}), " "))
		b.WriteString(" ")
	}
	return strings.TrimSpace(b.String())
}

func shingles(text string) map[uint64]bool {
	words := strings.Fields(text)
	out := map[uint64]bool{}
	for i := 0; i+shingleWords <= len(words); i++ {
		h := fnv.New64a()
		for _, w := range words[i : i+shingleWords] {
			h.Write([]byte(w))
			h.Write([]byte{0})
		}
		out[h.Sum64()] = true
	}
	return out
}

// mix is splitmix64: one cheap independent hash per seed.
func mix(x, seed uint64) uint64 {
	x += seed * 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

func signature(set map[uint64]bool) [numHashes]uint64 {
	var sig [numHashes]uint64
	for i := range sig {
		sig[i] = ^uint64(0)
	}
	for s := range set {
		for i := range sig {
			if v := mix(s, uint64(i+1)); v < sig[i] {
				sig[i] = v
			}
		}
	}
	return sig
}

func jaccard(a, b map[uint64]bool) float64 {
	if len(a) > len(b) {
		a, b = b, a
	}
	inter := 0
	for x := range a {
		if b[x] {
			inter++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

// duplicates finds groups of raw memories that say the same thing
// (exactly, once normalised) and groups that say nearly the same thing
// (word 3-gram similarity at least near).
func duplicates(outs []store.Output, near float64) (exact, similar []Finding) {
	type mem struct {
		o   store.Output
		set map[uint64]bool
	}
	byHash := map[[32]byte][]int{}
	var mems []mem
	for _, o := range outs {
		c := content(o)
		if c == "" {
			continue
		}
		i := len(mems)
		mems = append(mems, mem{o: o})
		h := sha256.Sum256([]byte(c))
		byHash[h] = append(byHash[h], i)
		mems[i].set = shingles(c)
	}
	// Exact copies: one finding per group; the copies are compared no further.
	copyOf := map[int]bool{}
	var hashes [][32]byte
	for h, ids := range byHash {
		if len(ids) > 1 {
			hashes = append(hashes, h)
		}
	}
	sort.Slice(hashes, func(i, j int) bool {
		return mems[byHash[hashes[i]][0]].o.ThreadID < mems[byHash[hashes[j]][0]].o.ThreadID
	})
	for _, h := range hashes {
		group := make([]store.Output, 0, len(byHash[h]))
		for _, i := range byHash[h][1:] {
			copyOf[i] = true
		}
		for _, i := range byHash[h] {
			group = append(group, mems[i].o)
		}
		exact = append(exact, groupFinding(CheckDuplicates, group, "raw memories say exactly the same thing"))
	}
	// Near copies: LSH candidates, verified.
	parent := make([]int, len(mems))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	buckets := map[[2]uint64][]int{}
	for i, m := range mems {
		if copyOf[i] || len(m.set) < minShingles {
			continue
		}
		sig := signature(m.set)
		for b := 0; b < numHashes/bandRows; b++ {
			h := fnv.New64a()
			var buf [8]byte
			for _, v := range sig[b*bandRows : (b+1)*bandRows] {
				binary.LittleEndian.PutUint64(buf[:], v)
				h.Write(buf[:])
			}
			key := [2]uint64{uint64(b), h.Sum64()}
			buckets[key] = append(buckets[key], i)
		}
	}
	checked := map[[2]int]bool{}
	for _, ids := range buckets {
		if len(ids) < 2 || len(ids) > 200 {
			continue // a huge bucket is boilerplate, not a copy
		}
		for x := 0; x < len(ids); x++ {
			for y := x + 1; y < len(ids); y++ {
				a, b := ids[x], ids[y]
				if checked[[2]int{a, b}] {
					continue
				}
				checked[[2]int{a, b}] = true
				if find(a) != find(b) && jaccard(mems[a].set, mems[b].set) >= near {
					parent[find(a)] = find(b)
				}
			}
		}
	}
	groups := map[int][]store.Output{}
	for i := range mems {
		if copyOf[i] || len(mems[i].set) < minShingles {
			continue
		}
		groups[find(i)] = append(groups[find(i)], mems[i].o)
	}
	var gs [][]store.Output
	for _, g := range groups {
		if len(g) > 1 {
			gs = append(gs, g)
		}
	}
	for _, g := range gs {
		sort.Slice(g, func(i, j int) bool { return newer(g[i], g[j]) })
	}
	sort.Slice(gs, func(i, j int) bool { return gs[i][0].ThreadID < gs[j][0].ThreadID })
	for _, g := range gs {
		similar = append(similar, groupFinding(CheckNearDuplicates, g,
			fmt.Sprintf("raw memories say nearly the same thing (at least %d%% of their wording in common)", int(near*100+0.5))))
	}
	return capped(exact, CheckDuplicates, Warning, "groups of copies"), capped(similar, CheckNearDuplicates, Warning, "groups of near copies")
}

// newer orders the newest memory first: it is the one to keep.
func newer(a, b store.Output) bool {
	if a.SourceUpdatedAt != b.SourceUpdatedAt {
		return a.SourceUpdatedAt > b.SourceUpdatedAt
	}
	return a.ThreadID < b.ThreadID
}

// groupFinding reports a group: the newest memory is kept, the fix
// forgets the others.
func groupFinding(check string, group []store.Output, what string) Finding {
	sort.Slice(group, func(i, j int) bool { return newer(group[i], group[j]) })
	ids := make([]string, len(group))
	for i, o := range group {
		ids[i] = o.ThreadID
	}
	// One command for the whole group, not a chain of forgets, one per
	// memory.
	return Finding{Check: check, Severity: Warning, Subject: ids[0],
		Message:   fmt.Sprintf("%d %s; the newest, %s, is kept", len(group), what, ids[0]),
		Fix:       "memctl memories forget " + strings.Join(ids[1:], " "),
		ThreadIDs: ids}
}
