package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// printJSON writes one indented JSON document.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// table prints rows: aligned with a header on a terminal, tab-separated
// without a header when piped.
type table struct {
	ios    *IOStreams
	header []string
	rows   [][]string
}

func newTable(ios *IOStreams, header ...string) *table { return &table{ios: ios, header: header} }

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) print() error {
	if !t.ios.StdoutTTY {
		for _, r := range t.rows {
			if _, err := fmt.Fprintln(t.ios.Out, strings.Join(r, "\t")); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(t.ios.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, t.ios.Bold(strings.Join(t.header, "\t")))
	for _, r := range t.rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
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
	future := d < 0
	if future {
		d = -d
	}
	var s string
	switch {
	case d < time.Minute:
		s = "moments"
	case d < time.Hour:
		s = fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		s = fmt.Sprintf("%dh", int(d.Hours()))
	default:
		s = fmt.Sprintf("%dd", int(d.Hours()/24))
	}
	if future {
		return "in " + s
	}
	return s + " ago"
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }
