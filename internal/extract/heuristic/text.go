package heuristic

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/memctl/memctl/internal/lazyre"
	"github.com/memctl/memctl/internal/textcut"
)

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
func quote(s string) string   { return "\u201c" + s + "\u201d" }
func key(s string) string     { return strings.TrimRight(strings.ToLower(oneLine(s)), ".!。！ ") } // to compare

// code wraps s in backticks, using a double fence when s has one.
func code(s string) string            { return cmp.Or(when(strings.Contains(s, "`"), "`` "+s+" ``"), "`"+s+"`") }
func codeLine(s string, n int) string { return code(textcut.Line(s, n)) }

func joinSet(sep string, parts ...string) string {
	return strings.Join(slices.DeleteFunc(parts, func(s string) bool { return s == "" }), sep)
}

// codeList quotes each item as code, cut to n bytes, joined by commas.
func codeList(items []string, n int) (out string) {
	for i, s := range items {
		out += when(i > 0, ", ") + codeLine(s, n)
	}
	return out
}

// normQuotes turns typographic apostrophes into ASCII ones.
func normQuotes(s string) string { return strings.NewReplacer("\u2019", "'", "\u2018", "'").Replace(s) }
func itoa(n int) string          { return strconv.Itoa(n) }

// when is s if c holds, else "".
func when(c bool, s string) string { return map[bool]string{true: s}[c] }

// more is " and N more" for the items of n past the shown.
func more(n, shown int) string          { return when(n > shown, " and "+itoa(n-shown)+" more") }
func times(n int) string                { return cmp.Or(when(n == 1, "once"), itoa(n)+" times") }
func capped[T any](list []T, n int) []T { return list[:min(len(list), n)] }

// meaningfulWords returns the lower-case words of text that are not stop words, in order, once each.
func meaningfulWords(text string) []string {
	out, seen := []string(nil), map[string]bool{}
	notWord := func(r rune) bool { return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '\'') }
	for _, f := range strings.FieldsFunc(strings.ToLower(text[:min(len(text), 4000)]), notWord) {
		f = strings.TrimSuffix(strings.Trim(f, "'_"), "'s")
		if len(f) >= 2 && len(f) <= 40 && !strings.Contains(f, "'") && !stopWords()[f] && !seen[f] &&
			strings.Trim(f, "0123456789") != "" {
			seen[f], out = true, append(out, f)
		}
	}
	return out
}

// stopWords say nothing about a task: function words, filler, and the verbs of requests ("fix", "add").
var stopWords = lazyre.Words(`a about above after again against all also am an and any are as at be because been before
being below between both but by can cannot could did do does doing don down during each few for from further had has
have having he her here hers him his how i if in into is it its itself let lets me more most my no nor not of off on
once only or other our out over own same she should so some such than that the their them then there these they this
those through to too under until up very was we were what when where which while who whom why will with would you your
yours please pls thanks thank ok okay hi hey yes yeah sure just now like want need needs make makes get got go going use
using used might may must shall one two thing things something anything everything stuff way bit lot really actually
maybe still new file files code help try see look looks seem seems know think well good give show tell us via per etc ie
eg within without onto add adds added create created fix fixes fixed fail fails failed update updated delete deleted
remove removed change changes changed run runs ran write wrote implement implemented check checks work works working
done always never instead prefer rather avoid`)

// sentencesOf splits text into sentences without list markers ("- ", "1. ", "2) "), also at "; " and at a
// full stop of Chinese or Japanese, which no space follows.
func sentencesOf(text string) []string {
	lines := strings.Split(strings.NewReplacer("。", "。\n", "！", "！\n", "？", "？\n", "; ", "\n").Replace(text), "\n")
	for i, l := range lines {
		l = strings.TrimLeft(strings.TrimSpace(l), "-*•> ")
		r := strings.TrimLeft(l, "0123456789")
		if len(r) < len(l) && len(r) > 1 && (r[0] == '.' || r[0] == ')') && r[1] == ' ' {
			l = r[2:]
		}
		lines[i] = l
	}
	return textcut.Sentences(strings.Join(lines, "\n"))
}
