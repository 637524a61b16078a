package heuristic

import (
	"path"
	"strings"
	"sync"
	"unicode"

	"github.com/memctl/memctl/internal/lazyre"
	"github.com/memctl/memctl/internal/textcut"
)

// lazyRE compiles an expression on first use (lazyre.New).
var lazyRE = lazyre.New

// wordSet builds a set from a space-separated list on first use.
func wordSet(words string) func() map[string]bool {
	return sync.OnceValue(func() map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.Fields(words) {
			m[w] = true
		}
		return m
	})
}

// oneLine folds all whitespace runs into single spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func cutLines(list []string, max int) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = textcut.Line(s, max)
	}
	return out
}

func quote(s string) string { return "\u201c" + s + "\u201d" }

// code wraps s in backticks, using a double fence when s has one.
func code(s string) string {
	if strings.Contains(s, "`") {
		return "`` " + s + " ``"
	}
	return "`" + s + "`"
}

// normQuotes turns typographic apostrophes into ASCII ones so "don’t"
// matches the same rules as "don't".
func normQuotes(s string) string {
	return strings.NewReplacer("\u2019", "'", "\u2018", "'").Replace(s)
}

// sentences splits s after ".", "!", "?" or ";" followed by a space, and
// at line breaks, so "hello.py" or "v1.2" stay whole. List markers at the
// start of a line are dropped.
func sentences(s string, max int) []string {
	var out []string
	add := func(seg string) {
		seg = strings.TrimSpace(seg)
		seg = strings.TrimLeft(seg, "-*•> ")
		if seg != "" && len(out) < max {
			out = append(out, oneLine(seg))
		}
	}
	start := 0
	for i := 0; i < len(s) && len(out) < max; i++ {
		switch s[i] {
		case '\n':
			add(s[start:i])
			start = i + 1
		case '.', '!', '?', ';':
			if i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\n' {
				add(s[start : i+1])
				start = i + 1
			}
		}
	}
	add(s[start:])
	return out
}

// keywordScanBytes bounds how much of a long message feeds keywords.
const keywordScanBytes = 4000

// meaningfulWords lowercases text and returns its words that are not stop
// words, in order, without duplicates. File names split into their parts
// ("hello.py" gives "hello" and "py") so they match later mentions.
func meaningfulWords(text string) []string {
	if len(text) > keywordScanBytes {
		text = text[:keywordScanBytes]
	}
	stop := stopWords()
	var out []string
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '\'')
	}) {
		f = strings.TrimSuffix(strings.Trim(f, "'_"), "'s")
		if strings.Contains(f, "'") {
			continue // contractions never name a topic
		}
		if len(f) < 2 || len(f) > 40 || stop[f] || isNumber(f) || seen[f] {
			continue
		}
		seen[f] = true
		out = append(out, f)
	}
	return out
}

func nameParts(p string) []string {
	return meaningfulWords(path.Base(p))
}

func isNumber(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// weakWords are verbs of requests ("fix X", "add Y"): fine in a slug, but
// they neither identify a topic nor tie two requests together.
var weakWords = wordSet(`add adds added create creates created fix fixes fixed fail fails failed failing
update updates updated delete deletes deleted remove removes removed change changes changed run runs ran
write writes wrote implement implemented check checks work works working do done
always never instead prefer rather avoid`)

// topicWords drops the weak words from a word list.
func topicWords(words []string) []string {
	weak := weakWords()
	var out []string
	for _, w := range words {
		if !weak[w] {
			out = append(out, w)
		}
	}
	return out
}

// stopWords are words that say nothing about a task: English function
// words and the filler of requests to an assistant.
var stopWords = wordSet(`
a about above after again against all also am an and any are aren't as at be because been before
being below between both but by can can't cannot could couldn't did didn't do does doesn't doing
don't down during each few for from further had hadn't has hasn't have haven't having he her here
hers herself him himself his how i i'd i'll i'm i've if in into is isn't it it's its itself let's
lets me more most mustn't my myself no nor not of off on once only or other ought our ours
ourselves out over own same shan't she should shouldn't so some such than that that's the their
theirs them themselves then there there's these they this those through to too under until up
very was wasn't we we're were weren't what what's when where which while who whom why will with
won't would wouldn't you you'd you'll you're you've your yours yourself yourselves
please pls thanks thank ok okay hi hey yes yeah sure just now also like want need needs
make makes let get got go going use using used can could would should might may must will shall
one two thing things something anything everything stuff way bit lot really actually maybe
still again new file files code help try see look looks seem seems know think way well good
there's here's it's let's give show tell me us our via per etc ie eg within without into onto
don doesn didn isn wasn aren won shouldn couldn wouldn ll ve re
`)

// relatedWords reports whether one word starts with the other and the
// shorter has at least four letters ("track" and "tracking").
func relatedWords(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	return len(a) >= 4 && strings.HasPrefix(b, a)
}

func times(n int) string {
	if n == 1 {
		return "once"
	}
	return itoa(n) + " times"
}

func itoa(n int) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	var buf [20]byte
	i := len(buf)
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	return string(buf[i:])
}
