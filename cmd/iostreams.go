package cmd

// Output conventions, for every command:
//   - stdout carries data only (the summary, the visible reply, tables,
//     one JSON document under --json); progress, warnings, hints and errors
//     go to stderr, so `memctl summary` and `memctl cite` are safe to pipe
//     into a prompt;
//   - tables have headers, aligned columns and relative times only on a
//     terminal; piped output is tab-separated with RFC 3339 UTC times;
//   - colour only when the stream is a terminal, NO_COLOR is unset,
//     TERM is not "dumb" and --no-color was not given;
//   - progress bars only when stderr is a terminal and --quiet is off;
//   - prompts only when stdin and stdout are both terminals;
//   - text memctl did not write (transcripts, memories, memory files, paths
//     found on disk) goes through Text (ErrText on stderr) before it is
//     printed, so its control characters cannot drive the terminal; tables
//     and printJSON do it for every value.

import (
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/fatih/color"
	"github.com/memctl/memctl/internal/termtext"
	"golang.org/x/term"
)

// IOStreams are the standard streams and what is known about them.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	StdinTTY, StdoutTTY, StderrTTY bool

	// Quiet and Verbose are the global -q and -v: Infof is silent with
	// Quiet, Debugf speaks only with Verbose.
	Quiet, Verbose bool

	colorOut, colorErr bool

	// width reports the terminal's columns; nil means 80.
	width func() int
}

// SystemIO returns the process's streams.
func SystemIO() *IOStreams {
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		StdinTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		StdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		StderrTTY: term.IsTerminal(int(os.Stderr.Fd())),
		width: func() int {
			if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil && w > 0 {
				return w
			}
			if w, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && w > 0 {
				return w
			}
			return 80
		},
	}
}

// TerminalWidth is the number of columns of the terminal stdout writes to.
func (s *IOStreams) TerminalWidth() int {
	if s.width == nil {
		return 80
	}
	return s.width()
}

// decideColor applies the colour rule once per stream.
func (s *IOStreams) decideColor(noColorFlag bool, getenv func(string) string) {
	allowed := !noColorFlag && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
	force := getenv("CLICOLOR_FORCE") != "" && getenv("CLICOLOR_FORCE") != "0"
	s.colorOut = allowed && (s.StdoutTTY || force)
	s.colorErr = allowed && (s.StderrTTY || force)
	// fatih/color's own init-time guess looks only at stdout; override it.
	color.NoColor = !s.colorOut && !s.colorErr
}

// CanPrompt reports whether the user can be asked a question.
func (s *IOStreams) CanPrompt() bool { return s.StdinTTY && s.StdoutTTY }

func (s *IOStreams) paint(on bool, attr color.Attribute, text string) string {
	if !on {
		return text
	}
	c := color.New(attr)
	c.EnableColor()
	return c.Sprint(text)
}

// Bold and friends colour text for stdout when colour is on.
func (s *IOStreams) Bold(t string) string  { return s.paint(s.colorOut, color.Bold, t) }
func (s *IOStreams) Green(t string) string { return s.paint(s.colorOut, color.FgGreen, t) }
func (s *IOStreams) Red(t string) string   { return s.paint(s.colorOut, color.FgRed, t) }
func (s *IOStreams) Faint(t string) string { return s.paint(s.colorOut, color.Faint, t) }

// errPaint colours text for stderr when colour is on there.
func (s *IOStreams) errPaint(attr color.Attribute, t string) string {
	return s.paint(s.colorErr, attr, t)
}

// Text makes text memctl did not write safe to print on stdout: on a
// terminal every control character (C0, C1, DEL, bidi controls, bytes
// that are not UTF-8) is written as a visible escape, otherwise the C0
// controls other than newline and tab (internal/termtext).
func (s *IOStreams) Text(v string) string { return termtext.Escape(v, s.StdoutTTY) }

// ErrText is Text for stderr.
func (s *IOStreams) ErrText(v string) string { return termtext.Escape(v, s.StderrTTY) }

// Infof prints a progress or confirmation line to stderr unless --quiet.
// Like Debugf and Warnf, it escapes the line (ErrText): the arguments may
// be thread ids, paths or words of a transcript.
func (s *IOStreams) Infof(format string, args ...any) {
	if s.Quiet {
		return
	}
	fmt.Fprintln(s.ErrOut, s.ErrText(fmt.Sprintf(format, args...)))
}

// Debugf prints a detail line to stderr with --verbose.
func (s *IOStreams) Debugf(format string, args ...any) {
	if !s.Verbose {
		return
	}
	fmt.Fprintln(s.ErrOut, s.ErrText(fmt.Sprintf("memctl: "+format, args...)))
}

// Warnf prints a warning to stderr, even with --quiet.
func (s *IOStreams) Warnf(format string, args ...any) {
	fmt.Fprintln(s.ErrOut, s.ErrText(fmt.Sprintf("memctl: warning: "+format, args...)))
}
