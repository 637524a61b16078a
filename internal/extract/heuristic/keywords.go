package heuristic

import (
	"sort"
	"strings"

	"github.com/memctl/memctl/internal/program"
)

const maxKeywordPool = 2000

// keywords scores the words of a thread: the human's words, file names,
// commands and error identifiers.
type keywords struct {
	score map[string]int
}

func newKeywords() keywords { return keywords{score: map[string]int{}} }

func (k *keywords) addWords(words []string, weight int) {
	for _, w := range words {
		if len(w) >= 3 {
			k.add(w, weight)
		}
	}
}

func (k *keywords) add(w string, weight int) {
	w = strings.TrimSpace(w)
	if w == "" || stopWords()[w] {
		return
	}
	if _, ok := k.score[w]; !ok && len(k.score) >= maxKeywordPool {
		return
	}
	k.score[w] += weight
}

// addErrorWords scores the error names an error line holds (TypeError,
// TS2345, ENOENT): what a later search for the error would type.
func (k *keywords) addErrorWords(line string) {
	for _, m := range program.ErrorCodes(line, 3) {
		k.add(m, 2)
	}
}

// top returns the best keywords: highest score first, ties broken
// alphabetically so the output never depends on map order.
func (k *keywords) top(n int) []string {
	all := make([]string, 0, len(k.score))
	for w := range k.score {
		all = append(all, w)
	}
	sort.Slice(all, func(i, j int) bool {
		if k.score[all[i]] != k.score[all[j]] {
			return k.score[all[i]] > k.score[all[j]]
		}
		return all[i] < all[j]
	})
	if len(all) > n {
		all = all[:n]
	}
	return all
}
