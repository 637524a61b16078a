package cmd

// Flag helpers. Values are checked when the flag is parsed, so a bad value
// is a usage error (exit 2) before any command reads the config or opens a
// database, and the message names the flag, the value and what is allowed.

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/memctl/memctl/internal/config"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// enumValue is a string flag restricted to a fixed list of values.
type enumValue struct {
	target  *string
	options []string
}

func (e *enumValue) Set(v string) error {
	for _, o := range e.options {
		if v == o {
			*e.target = v
			return nil
		}
	}
	return fmt.Errorf("want one of: %s", strings.Join(e.options, ", "))
}

func (e *enumValue) String() string { return *e.target }
func (e *enumValue) Type() string   { return "string" }

// stringEnumFlag defines a string flag on fs whose value must be one of
// options: the values are listed in its usage and offered by shell
// completion. def may be "" (meaning "not given"), which need not be an
// option.
func stringEnumFlag(c *cobra.Command, fs *pflag.FlagSet, p *string, name, def string, options []string, usage string) *pflag.Flag {
	*p = def
	fs.Var(&enumValue{target: p, options: options}, name, fmt.Sprintf("%s: {%s}", usage, strings.Join(options, "|")))
	fl := fs.Lookup(name)
	_ = c.RegisterFlagCompletionFunc(name, fixedCompletions(options))
	return fl
}

// fixedCompletions completes from a fixed list and never offers files.
func fixedCompletions(options []string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return options, cobra.ShellCompDirectiveNoFileComp
	}
}

// optionalInt is an int flag that stays nil unless it is given, so a flag
// that overrides a config key is told apart from the key's value.
type optionalInt struct{ target **int }

func (o optionalInt) Set(v string) error {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return errors.New("want an integer")
	}
	*o.target = &n
	return nil
}

func (o optionalInt) String() string {
	if *o.target == nil {
		return ""
	}
	return strconv.Itoa(**o.target)
}

func (o optionalInt) Type() string { return "int" }

// optionalIntFlag defines an int flag that leaves *p nil unless given.
func optionalIntFlag(fs *pflag.FlagSet, p **int, name, usage string) {
	fs.Var(optionalInt{target: p}, name, usage)
}

// flagError turns pflag's parse errors into usage errors in memctl's
// words: `--max: invalid value "abc": want an integer`.
func flagError(c *cobra.Command, err error) error {
	var unknown *pflag.NotExistError
	if errors.As(err, &unknown) && strings.HasPrefix(err.Error(), "unknown flag: --") {
		if s := flagSuggestion(c, unknown.GetSpecifiedName()); len(s) > 0 {
			return withHint(&FlagError{Err: err}, "did you mean "+strings.Join(s, " or ")+"?")
		}
	}
	var invalid *pflag.InvalidValueError
	if errors.As(err, &invalid) {
		cause := errors.Unwrap(invalid)
		var num *strconv.NumError
		if errors.As(cause, &num) {
			cause = numberWant(num)
		}
		return FlagErrorf("--%s: invalid value %q: %v", invalid.GetFlag().Name, invalid.GetValue(), cause)
	}
	return &FlagError{Err: err}
}

// numberWant says what a numeric flag accepts, without strconv's jargon.
func numberWant(e *strconv.NumError) error {
	switch {
	case strings.HasPrefix(e.Func, "ParseInt"), strings.HasPrefix(e.Func, "Atoi"):
		return errors.New("want an integer")
	case strings.HasPrefix(e.Func, "ParseUint"):
		return errors.New("want a whole number, 0 or more")
	case strings.HasPrefix(e.Func, "ParseFloat"):
		return errors.New("want a number")
	case strings.HasPrefix(e.Func, "ParseBool"):
		return errors.New("want true or false")
	}
	return e
}

// checkRange refuses a flag value outside the range of the config key the
// flag overrides (a config file's value would be clamped; a flag typed now
// is refused, so the user sees the mistake).
func checkRange(flag, key string, v *int) error {
	if v == nil {
		return nil
	}
	lo, hi, ok := config.Range(key)
	if ok && (*v < lo || *v > hi) {
		return FlagErrorf("--%s: invalid value %d: want %d to %d", flag, *v, lo, hi)
	}
	return nil
}
