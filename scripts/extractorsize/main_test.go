package main

import (
	"strings"
	"testing"
)

func TestWrappedLines(t *testing.T) {
	for _, c := range []struct {
		line string
		want int
	}{
		{"", 1},
		{strings.Repeat("x", 120), 1},
		{strings.Repeat("x", 121), 2},
		{strings.Repeat("x", 241), 3},
		{"\t\t" + strings.Repeat("x", 112), 1}, // two tabs are 8 columns: 120 in all
		{"\t\t" + strings.Repeat("x", 113), 2},
		{strings.Repeat("é", 120), 1}, // a character is a column, whatever its bytes
	} {
		if got := wrappedLines(c.line); got != c.want {
			t.Errorf("wrappedLines(%d bytes %q…) = %d, want %d", len(c.line), c.line[:min(len(c.line), 4)], got, c.want)
		}
	}
}

func TestCountLines(t *testing.T) {
	var s size
	countLines("package p\n\n"+strings.Repeat("y", 250)+"\n}\n", &s)
	if s.written != 4 || s.lines != 6 || s.long != 1 {
		t.Errorf("countLines: written %d, at 120 columns %d, wider %d; want 4, 6, 1", s.written, s.lines, s.long)
	}
}
