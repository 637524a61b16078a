package inject

import (
	"strings"
	"testing"
	"unicode/utf8"
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

func TestTruncateTokens(t *testing.T) {
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
			got, truncated := TruncateTokens(tt.in, tt.tokens)
			if got != tt.want || truncated != tt.truncated {
				t.Errorf("TruncateTokens(%d bytes, %d) = %q, %v; want %q, %v", len(tt.in), tt.tokens, got, truncated, tt.want, tt.truncated)
			}
			if !utf8.ValidString(got) {
				t.Errorf("output is not valid UTF-8: %q", got)
			}
		})
	}
}

func TestTruncateTokensLargeSummaryKeepsHalves(t *testing.T) {
	head := strings.Repeat("H", 6000)
	tail := strings.Repeat("T", 6000)
	got, truncated := TruncateTokens(head+tail, 2500)
	if !truncated {
		t.Fatal("12,000 bytes at 2,500 tokens should be truncated")
	}
	want := strings.Repeat("H", 5000) + "…500 tokens truncated…" + strings.Repeat("T", 5000)
	if got != want {
		t.Fatalf("got %d bytes starting %q", len(got), got[:20])
	}
}

func TestTruncateBytes(t *testing.T) {
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
			got, truncated := TruncateBytes(tt.in, tt.max)
			if got != tt.want || truncated != tt.truncated {
				t.Errorf("TruncateBytes(%q, %d) = %q, %v; want %q, %v", tt.in, tt.max, got, truncated, tt.want, tt.truncated)
			}
		})
	}
}

func FuzzTruncateTokens(f *testing.F) {
	f.Add("hello world", 1)
	f.Add(strings.Repeat("€a", 50), 7)
	f.Fuzz(func(t *testing.T, s string, tokens int) {
		if tokens > 1<<20 || tokens < -1 {
			return
		}
		got, truncated := TruncateTokens(s, tokens)
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
