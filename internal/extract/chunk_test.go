package extract

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSplitChunks(t *testing.T) {
	tests := []struct {
		name string
		s    string
		max  int
		want []string
	}{
		{"empty", "", 10, nil},
		{"fits", "abc", 3, []string{"abc"}},
		{"ascii", "abcdefg", 3, []string{"abc", "def", "g"}},
		{"two-byte runes never split", "ééé", 3, []string{"é", "é", "é"}},
		{"three-byte runes", "a€€b", 4, []string{"a€", "€b"}},
		{"four-byte rune larger than max stays whole", "😀a", 2, []string{"😀", "a"}},
		{"mixed", "ab😀cd", 5, []string{"ab", "😀c", "d"}},
		{"no limit", "abc", 0, []string{"abc"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SplitChunks(tt.s, tt.max)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// checkChunks asserts the SplitChunks contract on one input.
func checkChunks(t *testing.T, s string, max int) {
	t.Helper()
	chunks := SplitChunks(s, max)
	if strings.Join(chunks, "") != s {
		t.Fatalf("chunks do not rejoin to the input (max %d)", max)
	}
	valid := utf8.ValidString(s)
	for i, c := range chunks {
		if c == "" {
			t.Fatalf("chunk %d is empty", i)
		}
		if len(c) > max && max >= utf8.UTFMax {
			t.Fatalf("chunk %d has %d bytes > %d", i, len(c), max)
		}
		if valid && !utf8.ValidString(c) {
			t.Fatalf("chunk %d cuts a rune", i)
		}
		// Greedy: a chunk is short only because the next rune did not fit.
		if i < len(chunks)-1 && max >= utf8.UTFMax {
			_, n := utf8.DecodeRuneInString(chunks[i+1])
			if len(c)+n <= max {
				t.Fatalf("chunk %d (%d bytes) could have taken the next rune", i, len(c))
			}
		}
	}
}

func TestSplitChunksUnicode(t *testing.T) {
	s := strings.Repeat("héllo wörld € 😀 日本語 ", 2000)
	for _, max := range []int{4, 5, 7, 100, 8900} {
		checkChunks(t, s, max)
	}
}

func FuzzSplitChunks(f *testing.F) {
	f.Add("héllo 😀 wörld", 5)
	f.Add(strings.Repeat("€", 50), 8)
	f.Add("\xff\xfe abc", 4)
	f.Fuzz(func(t *testing.T, s string, max int) {
		if max < utf8.UTFMax || max > 1<<16 {
			return
		}
		checkChunks(t, s, max)
	})
}
