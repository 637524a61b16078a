package cmd

// Usage errors in memctl's words. cobra's positional-argument checks
// ("accepts 1 arg(s), received 0") and pflag's unknown flags are turned
// into messages that name the command, what it takes and what it got,
// with a "did you mean" hint for a mistyped command or flag.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/memctl/memctl/internal/lazyre"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The patterns of cobra's messages, compiled on first use: most runs
// never print a usage error.
var (
	reNoArgs   = lazyre.New(`^unknown command "(.*)" for "`)
	reExact    = lazyre.New(`^accepts (\d+) arg\(s\), received (\d+)$`)
	reAtLeast  = lazyre.New(`^requires at least (\d+) arg\(s\), only received (\d+)$`)
	reAtMost   = lazyre.New(`^accepts at most (\d+) arg\(s\), received (\d+)$`)
	reInvalid  = lazyre.New(`^invalid argument "(.*)" for "`)
	reFlagWord = lazyre.New(`^--?[A-Za-z]`)
)

// argError rewrites cobra's message about c's positional arguments.
func argError(c *cobra.Command, args []string, err error) error {
	name := c.CommandPath()
	msg := err.Error()
	want := argSpec(c)
	got := quoteAll(args)
	switch {
	case reNoArgs().MatchString(msg):
		return FlagErrorf("%s takes no arguments, got %s", name, got)
	case reExact().MatchString(msg):
		m := reExact().FindStringSubmatch(msg)
		n, _ := strconv.Atoi(m[1])
		if len(args) < n {
			return FlagErrorf("%s needs %s", name, want)
		}
		return FlagErrorf("%s takes %s (%s), got %d: %s", name, countArgs(n), want, len(args), got)
	case reAtLeast().MatchString(msg):
		return FlagErrorf("%s needs %s", name, want)
	case reAtMost().MatchString(msg):
		n, _ := strconv.Atoi(reAtMost().FindStringSubmatch(msg)[1])
		return FlagErrorf("%s takes at most %s (%s), got %d: %s", name, countArgs(n), want, len(args), got)
	case reInvalid().MatchString(msg):
		bad := reInvalid().FindStringSubmatch(msg)[1]
		return FlagErrorf("%s: invalid argument %q: want one of: %s", name, bad, strings.Join(validArgNames(c), ", "))
	}
	return &FlagError{Err: err}
}

// argSpec says what a command's arguments are, from its Use line
// ("show ID" → "ID") or, when it has them, its valid values.
func argSpec(c *cobra.Command) string {
	if v := validArgNames(c); len(v) > 0 {
		return "one of: " + strings.Join(v, ", ")
	}
	var parts []string
	fields := strings.Fields(c.Use)
	for i := 1; i < len(fields); i++ {
		f := fields[i]
		switch {
		case f == "[flags]":
		case reFlagWord().MatchString(f):
			if i+1 < len(fields) && strings.ToUpper(fields[i+1]) == fields[i+1] {
				i++ // the flag's value: "--slug SLUG"
			}
		default:
			parts = append(parts, f)
		}
	}
	if len(parts) == 0 {
		return "an argument"
	}
	return strings.Join(parts, " ")
}

func countArgs(n int) string {
	if n == 1 {
		return "one argument"
	}
	return fmt.Sprintf("%d arguments", n)
}

func validArgNames(c *cobra.Command) []string {
	var out []string
	for _, v := range c.ValidArgs {
		name, _, _ := strings.Cut(v, "\t")
		out = append(out, name)
	}
	return out
}

func quoteAll(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = strconv.Quote(a)
	}
	return strings.Join(q, " ")
}

// unknownCommand is the error of a command group given a word that names
// none of its subcommands, with the closest ones as a hint.
func unknownCommand(c *cobra.Command, word string) error {
	err := FlagErrorf("unknown command %q for %q", word, c.CommandPath())
	if c.SuggestionsMinimumDistance <= 0 {
		c.SuggestionsMinimumDistance = 2
	}
	if s := c.SuggestionsFor(word); len(s) > 0 {
		for i := range s {
			s[i] = c.CommandPath() + " " + s[i]
		}
		return withHint(err, "did you mean "+strings.Join(s, " or ")+"?")
	}
	return withHint(err, fmt.Sprintf("run '%s --help' for the commands", c.CommandPath()))
}

// flagSuggestion returns the flags of c whose names are close to name
// (a typo, or a prefix), for "did you mean".
func flagSuggestion(c *cobra.Command, name string) []string {
	var out []string
	seen := map[string]bool{}
	visit := func(f *pflag.Flag) {
		if seen[f.Name] || f.Hidden {
			return
		}
		seen[f.Name] = true
		if levenshtein(name, f.Name) <= 2 || (len(name) >= 3 && strings.HasPrefix(f.Name, name)) {
			out = append(out, "--"+f.Name)
		}
	}
	c.Flags().VisitAll(visit)
	c.InheritedFlags().VisitAll(visit)
	return out
}

// levenshtein is the edit distance between a and b.
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
