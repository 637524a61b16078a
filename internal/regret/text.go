package regret

import (
	"math"
	"sort"
	"strings"
	"unicode"

	"github.com/memctl/memctl/internal/lazyre"
)

// stopwords carry no topic: function words, the words of asking and
// correcting ("please", "don't", "use"), and the words every coding
// session says. What is left names a tool, a file, an error or a thing.
var stopwords = lazyre.Words(`a an the and or but if then else so of to in on at by for with from into onto
over under about as is are was were be been being am do does did done doing have has had having
it its it's this that these those there here what which who whom whose when where why how
i me my mine we us our you your yours he him his she her they them their
not no nope never don't dont do doesn't didn't isn't aren't wasn't weren't won't can't cannot
can could should would will shall may might must need needs needed
please thanks thank ok okay yes yeah sure just also now then again still already only even
very really quite more most less much many some any all every each both either neither other another
same such own too than like want wanted get got let make made use used using run ran running
try tried see saw look looked told tell said say asks asked ask know think thought go going went
instead rather always from now on time times one two first last next new old good bad right wrong
way thing things something anything nothing stuff it'll that's there's i'm you're we're they're i've
you've i'd you'd let's here's what's who's where's
file files line lines code change changes changed work works working worked fix fixed fixing
error errors fail failed failing failure output result results check checks checked
session task agent user repo repository project folder dir directory path
before after uses use's undo revert stop stopped properly myself yourself itself ourselves back here's`)

// stem folds the commonest English endings and cuts long words to six
// letters, so "migrations", "migrate" and "migrating" are one term. It is
// crude on purpose: both sides of every comparison go through it.
func stem(w string) string {
	if len(w) > 4 && (strings.HasSuffix(w, "ies") || strings.HasSuffix(w, "ied")) {
		w = w[:len(w)-3] + "y"
	}
	for _, suf := range []string{"ing", "ed", "es", "s", "ly"} {
		if len(w) > len(suf)+3 && strings.HasSuffix(w, suf) {
			w = w[:len(w)-len(suf)]
			break
		}
	}
	if len(w) > 6 {
		w = w[:6]
	}
	return w
}

// rawWords splits s into lower-case words: runs of letters and digits,
// with an apostrophe inside a word kept ("don't").
func rawWords(s string) []string {
	s = strings.NewReplacer("\u2019", "'", "\u2018", "'").Replace(strings.ToLower(s))
	return strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
}

// terms are the topic words of s, stemmed, in order, without stopwords,
// one-letter words or short numbers.
func terms(s string) []string {
	var out []string
	for _, w := range rawWords(s) {
		w = strings.Trim(w, "'")
		if len(w) < 2 || stopwords()[w] {
			continue
		}
		if isNumber(w) && len(w) < 3 {
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

func isNumber(w string) bool {
	for _, r := range w {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// termSet is the set of terms of s.
func termSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, t := range terms(s) {
		m[t] = true
	}
	return m
}

// idf weighs terms by how few sessions use them: a word every session says
// tells two topics apart no better than a stopword.
type idf struct {
	n  int
	df map[string]int
}

func newIDF() *idf { return &idf{df: map[string]int{}} }

// add counts one document (a session's words).
func (x *idf) add(set map[string]bool) {
	x.n++
	for t := range set {
		x.df[t]++
	}
}

// weight is the inverse document frequency of t, at least a small floor so
// that a word of every session still counts for something.
func (x *idf) weight(t string) float64 {
	w := math.Log(float64(x.n+1) / (float64(x.df[t]) + 0.5))
	return math.Max(w, 0.1)
}

// weighted is a topic's terms with their weights, heaviest first.
type weighted struct {
	terms   []string
	weights map[string]float64
}

// topTerms keeps the n heaviest distinct terms of ts (ties by first use).
func (x *idf) topTerms(ts []string, n int) weighted {
	seen := map[string]int{}
	var order []string
	for _, t := range ts {
		if _, ok := seen[t]; !ok {
			seen[t] = len(order)
			order = append(order, t)
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return x.weight(order[i]) > x.weight(order[j]) })
	if len(order) > n {
		order = order[:n]
	}
	w := weighted{terms: order, weights: map[string]float64{}}
	for _, t := range order {
		w.weights[t] = x.weight(t)
	}
	return w
}

func (w weighted) total() float64 {
	s := 0.0
	for _, v := range w.weights {
		s += v
	}
	return s
}

// overlap returns the shared terms of a and b and their weight.
func overlap(a, b weighted) (n int, weight float64) {
	for _, t := range a.terms {
		if _, ok := b.weights[t]; ok {
			n++
			weight += math.Min(a.weights[t], b.weights[t])
		}
	}
	return n, weight
}
