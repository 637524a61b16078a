package redact

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/memctl/memctl/internal/redact/redacttest"
)

// TestIssue24SecretAtLineStart: a token that starts a line of tool output,
// where the line break is a \n escape, is redacted, and so is PGPASSWORD.
func TestIssue24SecretAtLineStart(t *testing.T) {
	tok := fake("gh"+"p_", setAlnum, 36)
	for _, tt := range []struct{ in, want string }{
		{`{"output":"ok\n` + tok + `"}`, `{"output":"ok\n` + Token + `"}`},
		{`{"output":"ok ` + tok + `"}`, `{"output":"ok ` + Token + `"}`},
		{"PGPASSWORD=hunter2 psql -h db", "PGPASSWORD=" + Token + " psql -h db"},
	} {
		if got := Default().String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestNoFamilyLeaksOnAnyBoundary puts every family of the leak corpus on every
// boundary and redacts it whole (String) and streamed a byte at a time (Copy):
// no secret may survive. It prints the leaks per family and boundary when any.
func TestNoFamilyLeaksOnAnyBoundary(t *testing.T) {
	fams, bounds := redacttest.Families(), redacttest.Boundaries()
	if len(fams) < 40 {
		t.Fatalf("the corpus has %d families, want at least 40", len(fams))
	}
	r := Default()
	leaks := map[string]map[string]int{}
	n := 0
	for _, c := range redacttest.Cases() {
		n++
		var streamed bytes.Buffer
		if err := r.Copy(&streamed, iotest.OneByteReader(strings.NewReader(c.Text))); err != nil {
			t.Fatal(err)
		}
		// Also as the text lies in a transcript line: escaped once more.
		inLine := redacttest.JSONString(c.Text)
		for _, out := range []string{r.String(c.Text), streamed.String(), r.String(inLine)} {
			if strings.Contains(out, c.Secret) {
				if leaks[c.Family] == nil {
					leaks[c.Family] = map[string]int{}
				}
				leaks[c.Family][c.Boundary]++
				t.Errorf("%s on %s survived:\n in  %q\n out %q", c.Family, c.Boundary, c.Text, out)
			}
		}
	}
	t.Logf("%d families × %d boundaries = %d cases, %d leaked", len(fams), len(bounds), n, countLeaks(leaks))
	if len(leaks) > 0 {
		t.Log("\n" + leakTable(leaks))
	}
}

func countLeaks(m map[string]map[string]int) int {
	n := 0
	for _, bs := range m {
		for _, k := range bs {
			n += k
		}
	}
	return n
}

func leakTable(m map[string]map[string]int) string {
	var fams []string
	for f := range m {
		fams = append(fams, f)
	}
	sort.Strings(fams)
	var b strings.Builder
	for _, f := range fams {
		var bs []string
		for bd, k := range m[f] {
			bs = append(bs, fmt.Sprintf("%s×%d", bd, k))
		}
		sort.Strings(bs)
		fmt.Fprintf(&b, "%-24s %s\n", f, strings.Join(bs, " "))
	}
	return b.String()
}

// TestLookAlikesKeptOnEveryBoundary: strings shaped like secrets that are not
// (commit hashes, UUIDs, lockfile hashes, prose) come out unchanged wherever
// they stand. A password position in a URL is the one place they go.
func TestLookAlikesKeptOnEveryBoundary(t *testing.T) {
	looks := redacttest.LookAlikes()
	if len(looks) < 10 {
		t.Fatalf("%d look-alikes, want at least 10", len(looks))
	}
	kept, all := 0, 0
	for _, s := range looks {
		for _, b := range redacttest.Boundaries() {
			if b.Name == "url_userinfo" {
				continue
			}
			all++
			in := b.Wrap(s)
			if got := Default().String(in); got != in {
				t.Errorf("look-alike changed on %s:\n in  %q\n out %q", b.Name, in, got)
				continue
			}
			kept++
		}
	}
	t.Logf("%d of %d look-alike placements kept", kept, all)
}

// TestEscapesDoNotChangeCodexFloor: the escape-aware boundary is memctl's own;
// Codex itself reads "\nAKIA…" as glued, and Codex() keeps saying so.
func TestEscapesDoNotChangeCodexFloor(t *testing.T) {
	id := fake("AKIA", setUpper, 16)
	in := `"ok\n` + id + `"`
	if got := Codex(in); got != in {
		t.Errorf("Codex(%q) = %q: Codex has no escape-aware boundary", in, got)
	}
	if got := Default().String(in); got != `"ok\n`+Token+`"` {
		t.Errorf("Default().String(%q) = %q", in, got)
	}
}

func TestEscapedBefore(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want rune
		ok   bool
	}{
		{`ok\n`, '\n', true},
		{`ok\\t`, '\t', true},
		{`a\u0026`, '&', true},
		{`a\u00e9`, 'é', true},
		{`a\x3c`, '<', true},
		{"a&amp;", '&', true},
		{"x%0A", '\n', true},
		{"x%3d", '=', true},
		{"\x1b[0m", 0x1b, true},
		{`\u001b[01;31m`, 0x1b, true},
		{`\033[K`, 0x1b, true},
		{"ok n", 0, false},
		{"[0m", 0, false},
		{`\q`, 0, false},
		{`\u00zz`, 0, false},
	} {
		r, ok := escapedBefore([]byte(tt.in), len(tt.in))
		if r != tt.want || ok != tt.ok {
			t.Errorf("escapedBefore(%q) = %q %v, want %q %v", tt.in, r, ok, tt.want, tt.ok)
		}
		// The scanner's rough check must accept wherever the exact one does.
		b := []byte(tt.in + "sig=x")
		for _, k := range []boundary{wordBefore, alnumBefore, queryBefore} {
			if boundaryOK(k, b, len(tt.in), true) && !roughBefore(k, b, len(tt.in)) {
				t.Errorf("after %q, boundary %d: the exact check accepts and the scanner's rejects", tt.in, k)
			}
		}
	}
}

// TestPrivateTagsAtAnyDepth: the tags are found raw and escaped at any depth
// of JSON nesting, with an escaped closing slash, in any case; a half-escaped
// or unbalanced form and a path such as /private/var are not tags.
func TestPrivateTagsAtAnyDepth(t *testing.T) {
	for depth := 0; depth <= 5; depth++ {
		bs := strings.Repeat(`\`, 1<<depth>>1) // 0, 1, 2, 4, 8, 16 backslashes
		open, close := "<private>", "</private>"
		if bs != "" {
			open, close = bs+`u003cprivate`+bs+`u003e`, bs+`u003c/private`+bs+`u003e`
		}
		in := "a " + open + "the door code is 4711" + close + " b"
		if got, want := Default().String(in), "a "+Token+" b"; got != want {
			t.Errorf("%d backslashes: %q gave %q", len(bs), in, got)
		}
	}
	for _, tt := range []struct{ in, want string }{
		{`x <PRIVATE>code 4711<\/Private> y`, "x " + Token + " y"},
		{`x \u003cprivate\u003ecode 4711\u003c\/private\u003e y`, "x " + Token + " y"},
		{`x \u003cprivate\\u003ecode 4711\u003c/private\u003e y`, `x \u003cprivate\\u003ecode 4711\u003c/private\u003e y`},
		{"ls /private/var/folders and /private/tmp", "ls /private/var/folders and /private/tmp"},
		{"<private code 4711</private>", "<private code 4711</private>"},
	} {
		if got := Default().String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
