package textcut

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/redact"
)

func TestApproxTokens(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
	}{{"", 0}, {"a", 1}, {"abcd", 1}, {"abcde", 2}, {strings.Repeat("x", 10000), 2500}, {"€", 1}} {
		if got := ApproxTokens(tt.in); got != tt.want {
			t.Errorf("ApproxTokens(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestMiddleTokens(t *testing.T) {
	a5000 := strings.Repeat("a", 5000)
	b5000 := strings.Repeat("b", 5000)
	tests := []struct {
		name      string
		in        string
		tokens    int
		want      string
		truncated bool
	}{
		{"empty stays empty", "", 10, "", false},
		{"empty with zero budget", "", 0, "", false},
		{"exactly the summary budget is kept", strings.Repeat("x", 10000), 2500, strings.Repeat("x", 10000), false},
		{"one byte over keeps head and tail", a5000 + "c" + b5000, 2500, a5000 + "…1 tokens truncated…" + b5000, true},
		{"K counts from the overflow", a5000 + strings.Repeat("c", 2000) + b5000, 2500, a5000 + "…500 tokens truncated…" + b5000, true},
		{"K rounds up", a5000 + strings.Repeat("c", 7) + b5000, 2500, a5000 + "…2 tokens truncated…" + b5000, true},
		{"zero budget leaves the marker", "hello", 0, "…2 tokens truncated…", true},
		{"negative budget acts as zero", "hello world", -3, "…3 tokens truncated…", true},
		{"small budget", "abcdefghij", 1, "ab…2 tokens truncated…ij", true},
		// 15 bytes of three-byte runes, budget 4 bytes: no whole rune fits in
		// the two bytes on either side.
		{"multibyte with no room", strings.Repeat("€", 5), 1, "…3 tokens truncated…", true},
		{"multibyte head and tail on boundaries", strings.Repeat("€", 5), 2, "€…2 tokens truncated…€", true},
		{"mixed widths", "aé€😀z" + strings.Repeat("-", 20) + "z😀€éa", 4, "aé€…7 tokens truncated…€éa", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MiddleTokens(tt.in, tt.tokens)
			if truncated := got != tt.in; got != tt.want || truncated != tt.truncated {
				t.Errorf("MiddleTokens(%d bytes, %d) = %q, %v; want %q, %v", len(tt.in), tt.tokens, got, truncated, tt.want, tt.truncated)
			}
			if !utf8.ValidString(got) {
				t.Errorf("output is not valid UTF-8: %q", got)
			}
		})
	}
}

func TestMiddleTokensLargeSummaryKeepsHalves(t *testing.T) {
	head := strings.Repeat("H", 6000)
	tail := strings.Repeat("T", 6000)
	got := MiddleTokens(head+tail, 2500)
	if got == head+tail {
		t.Fatal("12,000 bytes at 2,500 tokens should be truncated")
	}
	want := strings.Repeat("H", 5000) + "…500 tokens truncated…" + strings.Repeat("T", 5000)
	if got != want {
		t.Fatalf("got %d bytes starting %q", len(got), got[:20])
	}
}

func TestMiddle(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		max       int
		want      string
		truncated bool
	}{
		{"empty", "", 3, "", false},
		{"fits", "hello", 5, "hello", false},
		{"ascii", "abcdefghij", 4, "ab…6 chars truncated…ij", true},
		{"K counts removed characters", strings.Repeat("€", 5), 8, "€…3 chars truncated…€", true},
		{"zero budget", "héllo", 0, "…5 chars truncated…", true},
		{"no whole rune fits", strings.Repeat("€", 3), 4, "…3 chars truncated…", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Middle(tt.in, tt.max)
			if truncated := got != tt.in; got != tt.want || truncated != tt.truncated {
				t.Errorf("Middle(%q, %d) = %q, %v; want %q, %v", tt.in, tt.max, got, truncated, tt.want, tt.truncated)
			}
		})
	}
}

func FuzzMiddleTokens(f *testing.F) {
	f.Add("hello world", 1)
	f.Add(strings.Repeat("€a", 50), 7)
	f.Fuzz(func(t *testing.T, s string, tokens int) {
		if tokens > 1<<20 || tokens < -1 {
			return
		}
		got := MiddleTokens(s, tokens)
		truncated := got != s
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8 from valid input")
		}
		if !truncated && got != s {
			t.Fatalf("unchanged flag but text changed")
		}
		if truncated && tokens > 0 && len(got) > tokens*4+len("…999999999 tokens truncated…") {
			t.Fatalf("output too long: %d bytes for %d tokens", len(got), tokens)
		}
	})
}

// Codex's own vectors for the token flavour (as the model input cuts it).
func TestMiddleTokensCodexVectors(t *testing.T) {
	tests := []struct {
		s     string
		limit int
		want  string
	}{
		{"", 10, ""},
		{"abcdefgh", 2, "abcdefgh"},
		{"abcdefghij", 2, "abcd…1 tokens truncated…ghij"},
		{"abcdefghijklmnopqrst", 2, "abcd…3 tokens truncated…qrst"},
		{"abcdefghijklm", 1, "ab…3 tokens truncated…lm"},
		{"abc", 0, "…1 tokens truncated…"},
		// multi-byte: é is 2 bytes; the cut never splits it
		{"ééééé", 1, "é…2 tokens truncated…é"},
		{"aéééé", 1, "a…2 tokens truncated…é"},
	}
	for _, tt := range tests {
		if got := MiddleTokens(tt.s, tt.limit); got != tt.want {
			t.Errorf("MiddleTokens(%q, %d) = %q, want %q", tt.s, tt.limit, got, tt.want)
		}
	}
}

// The chars flavour as the extractor cuts model output (codex-memories.md 8.2).
func TestMiddleCodexVectors(t *testing.T) {
	tests := []struct {
		s    string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"abcdefghij", 4, "ab…6 chars truncated…ij"},
		{"abcdefghijk", 5, "ab…6 chars truncated…ijk"},
		// Both cuts fall inside an "é": the head backs off, the tail moves on.
		{"aébcdefgéh", 4, "a…8 chars truncated…h"},
		{"abc", 0, "…3 chars truncated…"},
		{"abc", -2, "…3 chars truncated…"},
	}
	for _, tt := range tests {
		if got := Middle(tt.s, tt.max); got != tt.want {
			t.Errorf("Middle(%q, %d) = %q, want %q", tt.s, tt.max, got, tt.want)
		}
	}
}

func TestPrefixEnd(t *testing.T) {
	s := "a€b" // € is 3 bytes: 1..3
	for n, want := range map[int]int{-1: 0, 0: 0, 1: 1, 2: 1, 3: 1, 4: 4, 5: 5, 9: 5} {
		if got := PrefixEnd(s, n); got != want {
			t.Errorf("PrefixEnd(%q, %d) = %d, want %d", s, n, got, want)
		}
	}
	// Stray continuation bytes are cut like single bytes, as late as possible.
	if got := PrefixEnd("ab\x80\x80\x80\x80cd", 5); got != 5 {
		t.Errorf("PrefixEnd over invalid bytes = %d, want 5", got)
	}
}

func TestLine(t *testing.T) {
	tests := []struct {
		s    string
		max  int
		want string
	}{
		{"fits\n  on one\tline", 40, "fits on one line"},
		{"one two three four", 10, "one two…"},
		{"ééééé", 6, "é…"},
		{"key [REDACTED_SECRET] here", 15, "key…"},
		{"abc", 1, "…"},
	}
	for _, tt := range tests {
		if got := Line(tt.s, tt.max); got != tt.want {
			t.Errorf("Line(%q, %d) = %q, want %q", tt.s, tt.max, got, tt.want)
		}
		if got := Line(tt.s, tt.max); len(got) > max(tt.max, len("…")) {
			t.Errorf("Line(%q, %d) is %d bytes", tt.s, tt.max, len(got))
		}
	}
}

func TestLineRunes(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"fits", 4, "fits"},
		{"héllo wörld", 6, "héllo…"},
		{"日本語のテキスト", 4, "日本語…"},
		{"a\n\nb   c", 10, "a b c"},
	}
	for _, tt := range tests {
		if got := LineRunes(tt.s, tt.n); got != tt.want {
			t.Errorf("LineRunes(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

func TestHead(t *testing.T) {
	s := strings.Repeat("é", 10) // 2 bytes each
	if got := Head(s, 5); got != "éé…" {
		t.Errorf("Head = %q", got)
	}
	if got := Head("short", 10); got != "short" {
		t.Errorf("Head = %q", got)
	}
}

func TestWords(t *testing.T) {
	if got := Words("deploy the service, then check the logs carefully", 30); got != "deploy the service, then..." {
		t.Errorf("Words = %q", got)
	}
	if got := Words("short", 10); got != "short" {
		t.Errorf("Words = %q", got)
	}
}

func TestRedactedMarkerIsTheRedactors(t *testing.T) {
	if redactedMarker != redact.Token {
		t.Errorf("textcut keeps %q whole, the redactor writes %q", redactedMarker, redact.Token)
	}
}

func TestSentences(t *testing.T) {
	got := Sentences("Fixed hello.py in v1.2. Tests pass!\nWhy? Because  it was\tbroken.")
	want := []string{"Fixed hello.py in v1.2.", "Tests pass!", "Why?", "Because it was broken."}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Sentences = %q, want %q", got, want)
	}
}

// A bullet is shortened by whole sentences from its end: the first stays
// whatever its length, and from the first that does not fit on nothing
// comes (a shorter one after it would skip what leads to it).
func TestWholeSentences(t *testing.T) {
	s := "The cause was a float. It is fixed. Very" + strings.Repeat(" very", 16) + " long. Short one."
	if got := WholeSentences(s, 60); got != "The cause was a float. It is fixed." {
		t.Errorf("WholeSentences = %q", got)
	}
	if got := WholeSentences("One very long first sentence without an end", 10); got != "One very long first sentence without an end" {
		t.Errorf("the first sentence was cut: %q", got)
	}
	if got := WholeSentences("Ran `go test ./... -run X`. It passed.", 30); got != "Ran `go test ./... -run X`." {
		t.Errorf("a sentence ended inside code: %q", got)
	}
	if got := Sentences("Fixed: Stop closes it, and go test ./worker/... passes. E.g. this; e.g. that. Done."); len(got) != 3 {
		t.Errorf("a sentence ended before a word in lower case: %q", got)
	}
	if got := WholeSentences("fits.", 10); got != "fits." {
		t.Errorf("WholeSentences = %q", got)
	}
}
