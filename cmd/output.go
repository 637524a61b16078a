package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-runewidth"
	"github.com/memctl/memctl/internal/humantime"
	"github.com/memctl/memctl/internal/termtext"
)

// printJSON writes one indented JSON document. encoding/json escapes the
// C0 controls; the C1 and bidi controls, which it leaves raw, are written
// as \u escapes too (the same strings to a JSON reader), so a document
// printed on a terminal cannot drive it.
func printJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(termtext.JSON(buf.Bytes()))
	return err
}

// table prints rows. Piped: tab-separated, no header, every cell whole,
// so scripts can rely on it. On a terminal: a bold header and columns
// aligned by their visible width (colour codes take no room), with the
// free-text column cut so every row fits the terminal's width.
type table struct {
	ios    *IOStreams
	header []string
	rows   [][]string
	// flex is the column cut to fit the terminal (a preview, a snippet);
	// the last one unless set, -1 for none.
	flex int
}

func newTable(ios *IOStreams, header ...string) *table {
	return &table{ios: ios, header: header, flex: len(header) - 1}
}

// add appends a row. Every cell is data, escaped as IOStreams.Text says:
// a cell may hold a transcript's words or a path found on disk.
func (t *table) add(cells ...string) {
	for i, c := range cells {
		cells[i] = t.ios.Text(c)
	}
	t.rows = append(t.rows, cells)
}

// tableGap is the space between two columns on a terminal.
const tableGap = 2

// minFlexWidth is the narrowest the free-text column gets, however narrow
// the terminal: below it the row wraps instead of saying nothing.
const minFlexWidth = 12

func (t *table) print() error {
	if !t.ios.StdoutTTY {
		for _, r := range t.rows {
			if _, err := fmt.Fprintln(t.ios.Out, strings.Join(r, "\t")); err != nil {
				return err
			}
		}
		return nil
	}
	widths := make([]int, len(t.header))
	for i, h := range t.header {
		widths[i] = visibleWidth(h)
	}
	for _, r := range t.rows {
		for i, c := range r {
			if i < len(widths) {
				widths[i] = max(widths[i], visibleWidth(c))
			}
		}
	}
	if t.flex >= 0 && t.flex < len(widths) {
		total := tableGap * (len(widths) - 1)
		for _, w := range widths {
			total += w
		}
		if over := total - t.ios.TerminalWidth(); over > 0 {
			widths[t.flex] = max(widths[t.flex]-over, min(widths[t.flex], minFlexWidth))
		}
	}
	line := func(cells []string) string {
		var b strings.Builder
		for i, c := range cells {
			if i == t.flex {
				c = cutEnd(c, widths[i])
			}
			b.WriteString(c)
			if i < len(cells)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-visibleWidth(c)+tableGap))
			}
		}
		return b.String()
	}
	if _, err := fmt.Fprintln(t.ios.Out, t.ios.Bold(line(t.header))); err != nil {
		return err
	}
	for _, r := range t.rows {
		if _, err := fmt.Fprintln(t.ios.Out, line(r)); err != nil {
			return err
		}
	}
	return nil
}

// ansiEscape matches the colour and style codes memctl writes.
var ansiEscape = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\x1b\[[0-9;]*m`) })

// visibleWidth is the number of terminal columns s takes: escape codes
// take none, wide characters two.
func visibleWidth(s string) int {
	if strings.IndexByte(s, 0x1b) >= 0 {
		s = ansiEscape().ReplaceAllString(s, "")
	}
	return runewidth.StringWidth(s)
}

// cutEnd cuts s to at most w terminal columns, ending it with "…" when
// something was cut. s must hold no escape codes.
func cutEnd(s string, w int) string {
	if visibleWidth(s) <= w {
		return s
	}
	if w < 1 {
		return ""
	}
	return strings.TrimRight(runewidth.Truncate(s, w-1, ""), " ") + "…"
}

// timeCell renders a time: relative on a terminal, RFC 3339 UTC otherwise.
func timeCell(ios *IOStreams, t time.Time, now time.Time) string {
	if t.IsZero() {
		return "-"
	}
	if !ios.StdoutTTY {
		return t.UTC().Format(time.RFC3339)
	}
	return relTime(now.Sub(t))
}

func relTime(d time.Duration) string {
	if d > -time.Minute && d < time.Minute {
		return "moments ago"
	}
	if d < 0 {
		return "in " + humantime.Duration(d)
	}
	return humantime.Duration(d) + " ago"
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }
