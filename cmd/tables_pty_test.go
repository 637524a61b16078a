package cmd

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/creack/pty"
	"github.com/mattn/go-runewidth"
)

// In a terminal of 80 or 100 columns (tmux) every row of the
// tables wrapped and the preview shrank to 11 characters. Each table
// command runs in a real pseudo-terminal of that width over the real
// transcripts: no line may be wider than the terminal (the terminal would
// wrap it), the free text keeps room, and doctor breaks lines at spaces.
// ptyEscape matches the terminal escapes a pty run prints.
var ptyEscape = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)

// inPty runs memctl in a real pseudo-terminal cols wide and returns its
// stdout lines without escapes; stderr (messages, which the terminal may
// wrap) is left out.
func (w *walk) inPty(cols uint16, args ...string) []string {
	w.t.Helper()
	c := w.command(w.env(), args...)
	var errOut bytes.Buffer
	c.Stderr = &errOut
	f, err := pty.StartWithSize(c, &pty.Winsize{Rows: 50, Cols: cols})
	if err != nil {
		w.t.Fatal(err)
	}
	var buf bytes.Buffer
	_, err = io.Copy(&buf, f)
	var perr *os.PathError
	if err != nil && !errors.As(err, &perr) { // EIO once the child exits
		w.t.Fatal(err)
	}
	_ = c.Wait()
	f.Close()
	text := strings.ReplaceAll(ptyEscape.ReplaceAllString(buf.String(), ""), "\r", "")
	return strings.Split(strings.TrimRight(text, "\n"), "\n")
}

func TestTablesFitTerminal(t *testing.T) {
	w := &walk{t: t, home: t.TempDir(), extra: []string{"MEMCTL_NOW=2026-12-01T12:00:00Z"}}
	real := filepath.Join("..", "internal", "sessions", "testdata", "real")
	copyTree(t, filepath.Join(real, "codex", "sessions"), filepath.Join(w.home, ".codex", "sessions"))
	copyTree(t, filepath.Join(real, "claude", "projects"), filepath.Join(w.home, ".claude", "projects"))
	inPty := func(cols uint16, args ...string) []string { t.Helper(); return w.inPty(cols, args...) }
	check := func(cols uint16, args []string, column string, wide int) {
		t.Helper()
		lines := inPty(cols, args...)
		name := strings.Join(args, " ")
		for _, l := range lines {
			if got := runewidth.StringWidth(l); got > int(cols) {
				t.Errorf("memctl %s at %d columns: a line of %d columns wraps:\n%s", name, cols, got, l)
			}
		}
		header := lines[0]
		at := strings.Index(header, column)
		if at < 0 {
			t.Errorf("memctl %s at %d columns: no %s column:\n%s", name, cols, column, strings.Join(lines, "\n"))
			return
		}
		// The column runs to the next header, or to the longest line.
		width := 0
		if next := strings.IndexFunc(header[at+len(column):], func(r rune) bool { return r != ' ' }); next > 0 {
			width = len(column) + next - tableGap
		} else {
			for _, l := range lines {
				width = max(width, runewidth.StringWidth(l)-runewidth.StringWidth(header[:at]))
			}
		}
		if width < wide {
			t.Errorf("memctl %s at %d columns: %s is %d columns wide, want at least %d:\n%s", name, cols, column, width, wide, strings.Join(lines, "\n"))
		}
	}
	for _, cols := range []uint16{80, 100} {
		check(cols, []string{"extract", "--dry-run", "--all", "--max", "50"}, "PREVIEW", 24)
	}
	w.expect(0, []string{"run"}, "memctl: first run: extracting all 7 past sessions")
	for _, cols := range []uint16{80, 100} {
		for _, tt := range []struct {
			args []string
			// column is a header that must stay, at least wide wide.
			column string
			wide   int
		}{
			{[]string{"threads", "list"}, "PREVIEW", 24},
			{[]string{"memories", "list"}, "DESCRIPTION", 24},
			{[]string{"search", "tools"}, "SNIPPET", 24},
			{[]string{"history"}, "FILES", 5},
			{[]string{"config", "show"}, "VALUE", 12},
			{[]string{"doctor"}, "", 0},
		} {
			if tt.column == "" {
				for _, l := range inPty(cols, tt.args...) {
					if got := runewidth.StringWidth(l); got > int(cols) {
						t.Errorf("memctl %s at %d columns: a line of %d columns wraps:\n%s", strings.Join(tt.args, " "), cols, got, l)
					}
				}
				continue
			}
			check(cols, tt.args, tt.column, tt.wide)
		}
	}
	// doctor's lines break at spaces: every word of the provider's fix is
	// whole on some line.
	lines := inPty(80, "doctor")
	joined := strings.Join(lines, "\n")
	for _, word := range strings.Fields(`export OPENAI_API_KEY=… (or ANTHROPIC_API_KEY=…), or set provider.kind = "heuristic" to say so`) {
		if !strings.Contains(joined, word) {
			t.Errorf("doctor at 80 columns cut the word %q:\n%s", word, joined)
		}
	}
	if !strings.Contains(joined, "\n       ") {
		t.Errorf("doctor at 80 columns: no continued fix line:\n%s", joined)
	}
}
