package cmd

import (
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

// printJSON writes one indented JSON document (termtext.MarshalJSON):
// encoding/json escapes the C0 controls; the C1 and bidi controls, which
// it leaves raw, are written as \u escapes too (the same strings to a
// JSON reader), so a document printed on a terminal cannot drive it.
func printJSON(w io.Writer, v any) error {
	b, err := termtext.MarshalJSON(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// table prints rows. Piped: tab-separated, no header, every cell whole,
// so scripts can rely on it. On a terminal: a bold header and columns
// aligned by their visible width (colour codes take no room), fitted to
// the terminal's width without ever wrapping a row (at 80 or 100 columns a
// wrapped row is unreadable).
// Fitting first shortens ids to their unique prefix (every command takes
// one), then applies the table's fit steps in order, dropping or cutting
// its least useful columns, gives what room is left back to the free-text
// column, and as a last resort cuts each line at the edge.
type table struct {
	ios    *IOStreams
	header []string
	rows   [][]string
	// flex is the free-text column (a preview, a snippet): the last one
	// unless set, -1 for none. Without fit steps it is the one cut to fit.
	flex  int
	cuts  map[int]cutMode
	steps []fitStep
}

// cutMode is how a column's cells are cut to its width.
type cutMode int

const (
	cutTail   cutMode = iota // free text: keep the start, end with "…"
	cutHead                  // a path: keep the end, start with "…" (an id: its prefix)
	cutPrefix                // an id: keep its shortest unique prefix, no "…"
)

// fitStep is one way to make a table narrower: drop a column, or cut it
// to at most min columns.
type fitStep struct {
	col  int
	drop bool
	min  int
}

func newTable(ios *IOStreams, header ...string) *table {
	return &table{ios: ios, header: header, flex: len(header) - 1, cuts: map[int]cutMode{}}
}

// add appends a row. Every cell is data, escaped as IOStreams.Text says:
// a cell may hold a transcript's words or a path found on disk.
func (t *table) add(cells ...string) {
	for i, c := range cells {
		cells[i] = t.ios.Text(c)
	}
	t.rows = append(t.rows, cells)
}

// index is the position of the column named name; it panics on a name the
// table does not have (a programming error).
func (t *table) index(name string) int {
	for i, h := range t.header {
		if h == name {
			return i
		}
	}
	panic("table has no column " + name)
}

// ids marks an id column: cut to the unique prefix of its ids.
func (t *table) ids(name string) *table { t.cuts[t.index(name)] = cutPrefix; return t }

// paths marks a column of paths: cut from the start, keeping the end.
func (t *table) paths(name string) *table { t.cuts[t.index(name)] = cutHead; return t }

// shrink adds a fit step that cuts a column to at most min columns.
func (t *table) shrink(name string, min int) *table {
	t.steps = append(t.steps, fitStep{col: t.index(name), min: min})
	return t
}

// drop adds a fit step that leaves a column out.
func (t *table) drop(name string) *table {
	t.steps = append(t.steps, fitStep{col: t.index(name), drop: true})
	return t
}

// tableGap is the space between two columns on a terminal.
const tableGap = 2

// minFlexWidth is the narrowest the free-text column of a table without
// fit steps gets; past it the line is cut at the terminal's edge.
const minFlexWidth = 12

// minIDWidth is the shortest id prefix shown: commands need four
// characters, eight stay unique among thousands of UUIDs.
const minIDWidth = 8

func (t *table) print() error {
	if !t.ios.StdoutTTY {
		for _, r := range t.rows {
			if _, err := fmt.Fprintln(t.ios.Out, strings.Join(r, "\t")); err != nil {
				return err
			}
		}
		return nil
	}
	limit := t.ios.TerminalWidth()
	widths, shown := t.fit(limit)
	line := func(cells []string) string {
		var b strings.Builder
		pad := 0
		for i, c := range cells {
			if i >= len(widths) || !shown[i] {
				continue
			}
			if b.Len() > 0 {
				b.WriteString(strings.Repeat(" ", pad+tableGap))
			}
			c = cutCell(c, widths[i], t.cuts[i])
			b.WriteString(c)
			pad = max(0, widths[i]-visibleWidth(c))
		}
		// Never wrap: what the steps could not fit is cut at the edge.
		if l := b.String(); visibleWidth(l) > limit {
			return cutEnd(ansiEscape().ReplaceAllString(l, ""), limit)
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

// fit returns each column's width and whether it is shown, for a terminal
// of limit columns.
func (t *table) fit(limit int) ([]int, []bool) {
	n := len(t.header)
	widths, natural, shown := make([]int, n), make([]int, n), make([]bool, n)
	for i, h := range t.header {
		widths[i], shown[i] = visibleWidth(h), true
	}
	for _, r := range t.rows {
		for i, c := range r {
			if i < n {
				widths[i] = max(widths[i], visibleWidth(c))
			}
		}
	}
	copy(natural, widths)
	total := func() int {
		sum, cols := 0, 0
		for i, w := range widths {
			if shown[i] {
				sum += w
				cols++
			}
		}
		return sum + tableGap*max(cols-1, 0)
	}
	if total() <= limit {
		return widths, shown
	}
	for i, m := range t.cuts {
		if m == cutPrefix {
			widths[i] = max(visibleWidth(t.header[i]), uniquePrefixLen(t.rows, i, minIDWidth))
		}
	}
	steps := t.steps
	if len(steps) == 0 && t.flex >= 0 && t.flex < n {
		steps = []fitStep{{col: t.flex, min: minFlexWidth}}
	}
	for _, s := range steps {
		over := total() - limit
		if over <= 0 {
			break
		}
		if s.drop {
			shown[s.col] = false
			continue
		}
		widths[s.col] = max(min(widths[s.col], max(s.min, visibleWidth(t.header[s.col]))), widths[s.col]-over)
	}
	// Room left after a drop goes back to the free text, then to the
	// other cut columns, up to what they hold.
	order := []int{}
	if t.flex >= 0 && t.flex < n {
		order = append(order, t.flex)
	}
	for _, s := range steps {
		if !s.drop && s.col != t.flex {
			order = append(order, s.col)
		}
	}
	for _, i := range order {
		if spare := limit - total(); spare > 0 && shown[i] && widths[i] < natural[i] {
			widths[i] = min(natural[i], widths[i]+spare)
		}
	}
	return widths, shown
}

// uniquePrefixLen is the length of the shortest prefix, at least least
// characters, that tells the ids of column col apart.
func uniquePrefixLen(rows [][]string, col, least int) int {
	l := least
	for {
		seen := map[string]bool{}
		clash, longest := false, 0
		for _, r := range rows {
			if col >= len(r) {
				continue
			}
			id := r[col]
			longest = max(longest, len(id))
			p := id[:min(l, len(id))]
			if seen[p] {
				clash = true
			}
			seen[p] = true
		}
		if !clash || l >= longest {
			return min(l, max(longest, least))
		}
		l++
	}
}

// cutCell cuts one cell to w columns the way its column is cut.
func cutCell(c string, w int, m cutMode) string {
	if visibleWidth(c) <= w {
		return c
	}
	switch m {
	case cutPrefix:
		return runewidth.Truncate(c, w, "")
	case cutHead:
		if !strings.ContainsRune(c, '/') {
			return runewidth.Truncate(c, w, "") // an id among paths: a prefix still names it
		}
		return cutStart(c, w)
	}
	return cutEnd(c, w)
}

// cutStart cuts s to at most w columns from the start, beginning it with
// "…": the end of a path says more than its start.
func cutStart(s string, w int) string {
	if visibleWidth(s) <= w {
		return s
	}
	if w < 1 {
		return ""
	}
	r := []rune(s)
	for i := range r {
		if tail := string(r[i:]); runewidth.StringWidth(tail) <= w-1 {
			return "…" + tail
		}
	}
	return "…"
}

// wrapWords breaks text into lines of at most width columns at spaces,
// the first line after first and the others after rest (indents). A word
// longer than a line stays whole on its own line.
func wrapWords(text string, width int, first, rest string) string {
	var b strings.Builder
	indent := first
	line := ""
	flush := func() {
		b.WriteString(indent + line + "\n")
		indent, line = rest, ""
	}
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case visibleWidth(indent+line+" "+word) <= width:
			line += " " + word
		default:
			flush()
			line = word
		}
	}
	if line != "" || b.Len() == 0 {
		flush()
	}
	return b.String()
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
