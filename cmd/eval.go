package cmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/english"
	"github.com/memctl/memctl/internal/pipeline"
	"github.com/memctl/memctl/internal/regret"
	"github.com/memctl/memctl/internal/scan"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/store"
	"github.com/memctl/memctl/internal/textcut"
	"github.com/spf13/cobra"
)

// EvalOptions is what `memctl eval` needs: injected loaders first, then
// the flag values.
type EvalOptions struct {
	IO     *IOStreams
	Config func() (*config.Config, error)
	// Pipeline builds the user's Home: the replay runs a scratch copy of
	// it, and its database says which memories agents cited.
	Pipeline func(*config.Config, pipeline.Reporter) (*pipeline.Home, error)
	Getenv   func(string) string

	JSON      bool
	Source    []string // --source KIND=DIR
	MaxTokens int
	Dir       string
	Examples  int
}

func newEvalCmd(f *Factory, runF func(context.Context, *EvalOptions) error) *cobra.Command {
	opts := &EvalOptions{IO: f.IO, Config: f.Config, Pipeline: f.Pipeline, Getenv: f.Getenv}
	c := &cobra.Command{
		Use:   "eval",
		Short: "Measure whether memory keeps agents from repeating mistakes",
		Long: `Replay your own sessions and measure whether memory would have kept the
agents from repeating their mistakes. Nothing is sent anywhere and no model is
called: the replay runs in a scratch home, and your memory folder and stored
memories are left as they are.

eval reads every session of the configured sources (or of --source) and finds
the lessons they teach: a message of yours that corrects what the agent just did
("no, use pnpm", "I told you…", "don't run migrations"), and a failed command a
later run in the same session fixed. A lesson's topic comes back when a later
session of the same project repeats the mistake or meets the same need. For each
return eval rebuilds, in a scratch home, the memory as it stood when that session
started (the offline extractor and the heuristic consolidation replayed over the
sessions that ended before it) and sorts the return:

  prevented        the lesson was given (in the injected summary, or found by a
                   search for the session's first prompt) and not repeated
  extraction miss  repeated; the lesson was never extracted
  ranking miss     repeated; extracted, but neither injected within the summary
                   budget nor found by the search
  compliance miss  repeated although the memory given held the lesson
  unaided          not repeated, with no lesson in the memory given

The report gives, per project and overall, the share of returns that repeated
the mistake, each class with examples, memory precision (the share of injected
memories an agent ever cited, from the citation blocks in the sessions and the
uses your database recorded; threads you disabled or forgot there are left out;
"-" when no agent ever cited a memory, since precision is then unmeasured),
the junk rate (injected memories never cited and never matching a later need)
and the tokens injected per session; on a terminal, a line with the overall
memory figures (which a narrow terminal's table leaves out) and a sparkline
of repeats over time. Piped, one tab-separated row per project
("project"), for all of them ("all") and per return ("return"). docs/quality.md
explains the method and its limits.

The scratch home goes to a new folder under /dev/shm when there is one (the
replay writes many small files), else under $TMPDIR, and is deleted afterwards;
--dir keeps it.

EXIT STATUS
  0  the report was printed, whatever it says
  1  a source could not be read, or the replay failed
  2  a usage error (a malformed --source, a --dir that is not empty)`,
		Args: cobra.NoArgs,
		Example: `  $ memctl eval
  $ memctl eval --source claude-code=~/.claude/projects --source codex=~/.codex/sessions
  $ memctl eval --json | jq '.overall.repeated_correction_rate'`,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.JSON = f.JSON
			if opts.MaxTokens < 0 {
				return FlagErrorf("--max-tokens must be at least 0, got %d", opts.MaxTokens)
			}
			if opts.Examples < 0 {
				return FlagErrorf("--examples must be at least 0, got %d", opts.Examples)
			}
			if _, err := parseSources(opts.Source, opts.Getenv); err != nil {
				return err
			}
			return runOrHook(c.Context(), opts, runF, runEval)
		},
	}
	fl := c.Flags()
	fl.StringArrayVar(&opts.Source, "source", nil, "read the sessions of `KIND=DIR` instead of the configured sources (repeatable; KIND: codex, claude-code, jsonl)")
	fl.IntVar(&opts.MaxTokens, "max-tokens", 0, "cut each injected summary to about `N` tokens (default: as memctl summary, 2500)")
	fl.StringVar(&opts.Dir, "dir", "", "replay in `DIR` (empty or missing) and keep it")
	fl.IntVar(&opts.Examples, "examples", 3, "on a terminal, show at most `N` returns of each class")
	return c
}

// parseSources reads --source values.
func parseSources(vals []string, getenv func(string) string) ([]sessions.Source, error) {
	var out []sessions.Source
	for _, v := range vals {
		kind, dir, ok := strings.Cut(v, "=")
		k := sessions.Kind(kind)
		if !ok || dir == "" || (k != sessions.KindCodex && k != sessions.KindClaudeCode && k != sessions.KindJSONL) {
			return nil, FlagErrorf("--source %q: want KIND=DIR with KIND one of codex, claude-code, jsonl", v)
		}
		home := ""
		if getenv != nil {
			home = getenv("HOME")
		}
		dir = config.ExpandHome(dir, home)
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		out = append(out, sessions.Source{Kind: k, Path: dir})
	}
	return out, nil
}

func runEval(ctx context.Context, opts *EvalOptions) error {
	_, home, err := configAndQuietHome(opts.Config, opts.Pipeline)
	if err != nil {
		return err
	}
	srcs, err := parseSources(opts.Source, opts.Getenv)
	if err != nil {
		return err
	}
	if len(srcs) == 0 {
		srcs = home.Sources()
	}
	scratch, keep, err := evalScratch(opts.Dir, opts.Getenv)
	if err != nil {
		return err
	}
	if !keep {
		defer os.RemoveAll(scratch)
	}
	used, disabled := fromHome(ctx, opts.IO, home)
	prog := startProgress(opts.IO, opts.JSON, "replaying sessions", "sessions")
	rep, err := regret.Run(ctx, regret.Options{Home: home, Sources: srcs, Scratch: scratch, MaxTokens: opts.MaxTokens,
		Used: used, Disabled: disabled, Progress: prog.set, Log: opts.IO.ErrOut})
	prog.finish()
	if err != nil {
		var se *scan.SourcesError
		if errors.As(err, &se) {
			return withHint(err, "fix the folder, or name the folders to read with --source KIND=DIR")
		}
		return err
	}
	if keep {
		opts.IO.Infof("the replayed home is in %s", scratch)
	}
	if rep.Overall.Sessions == 0 {
		paths := make([]string, len(srcs))
		for i, s := range srcs {
			paths[i] = s.Path
		}
		if len(paths) == 0 {
			paths = []string{"no source (no [[sources]] in the config and no agent folder found)"}
		}
		opts.IO.Infof("no session with a message of yours in %s", strings.Join(paths, ", "))
	}
	if opts.JSON {
		return printJSON(opts.IO.Out, rep)
	}
	return printEval(opts, rep)
}

// evalScratch is the folder the replay works in: --dir (kept), else a new
// folder in memory when the system has one, else in the temporary folder.
func evalScratch(dir string, getenv func(string) string) (string, bool, error) {
	if dir != "" {
		if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
			return "", false, FlagErrorf("--dir %s is not empty", dir)
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", false, err
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", false, err
		}
		abs, err := filepath.Abs(dir)
		return abs, true, err
	}
	base := os.TempDir()
	if getenv == nil || getenv("TMPDIR") == "" {
		if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
			base = "/dev/shm"
		}
	}
	d, err := os.MkdirTemp(base, "memctl-eval-")
	if err != nil && base != os.TempDir() {
		d, err = os.MkdirTemp("", "memctl-eval-")
	}
	return d, false, err
}

// fromHome reads what the user's own database knows: the memories an
// agent cited, and the threads the user took out of memory. A home
// without a database, or one memctl cannot open, knows nothing.
func fromHome(ctx context.Context, ios *IOStreams, home *pipeline.Home) (used, disabled map[string]bool) {
	path := filepath.Join(home.Dir(), store.FileName(home.Config().Memories.Version))
	if _, err := os.Stat(path); err != nil {
		return nil, nil
	}
	st, err := store.Open(ctx, path)
	if err != nil {
		ios.Warnf("cannot read %s: %v; only the citations in the sessions count, and threads you disabled are replayed", path, err)
		return nil, nil
	}
	defer st.Close()
	used, disabled = map[string]bool{}, map[string]bool{}
	if outs, err := st.AllOutputs(ctx); err == nil {
		for _, o := range outs {
			if o.UsageCount > 0 {
				used[o.ThreadID] = true
			}
		}
	}
	if threads, err := st.ListThreads(ctx, store.ThreadFilter{}); err == nil {
		for _, t := range threads {
			if t.MemoryMode == sessions.MemoryDisabled {
				disabled[t.ID] = true
			}
		}
	}
	return used, disabled
}

// classLabel names a class for people.
func classLabel(c regret.Class) string {
	return strings.ReplaceAll(string(c), "_", " ")
}

func percent(p *float64) string {
	if p == nil {
		return "-"
	}
	return strconv.Itoa(int(*p*100+0.5)) + "%"
}

func ratioCell(ios *IOStreams, p *float64) string {
	if !ios.StdoutTTY {
		if p == nil {
			return "-"
		}
		return strconv.FormatFloat(*p, 'f', 3, 64)
	}
	return percent(p)
}

func printEval(opts *EvalOptions, rep *regret.Report) error {
	ios := opts.IO
	all := rep.Overall
	if ios.StdoutTTY {
		fmt.Fprintf(ios.Out, "Replayed %s in %s (%.1f s): %s, %s, %s.\n\n",
			english.Count(all.Sessions, "session", "sessions"), english.Count(len(rep.Projects), "project", "projects"), rep.Elapsed.Seconds(),
			english.Count(all.Lessons, "lesson", "lessons"), english.Count(all.Returns, "return", "returns"),
			english.Count(all.Repeats, "repeat", "repeats"))
	}
	tb := newTable(ios, "PROJECT", "SESSIONS", "LESSONS", "RETURNS", "REPEATS", "RATE", "PREVENTED", "EXTRACTION", "RANKING",
		"COMPLIANCE", "UNAIDED", "PRECISION", "JUNK", "TOKENS")
	tb.flex = 0
	// On a narrow terminal the memory-quality and volume columns go first;
	// repeats and their classes are what the command is for (tables never
	// wrap).
	tb.drop("JUNK").drop("TOKENS").drop("LESSONS").drop("SESSIONS").drop("PRECISION").drop("UNAIDED").shrink("PROJECT", 12)
	// Precision counts citations: when no agent ever cited a memory it
	// was not measured, and 0% would say every memory was useless.
	precision := func(m regret.MemoryTotals) *float64 {
		if all.Memory.CitedEntries == 0 {
			return nil
		}
		return m.Precision
	}
	row := func(kind, name string, t regret.Totals) {
		cells := []string{name, strconv.Itoa(t.Sessions), strconv.Itoa(t.Lessons), strconv.Itoa(t.Returns), strconv.Itoa(t.Repeats),
			ratioCell(ios, t.RepeatRate), strconv.Itoa(t.Classes.Prevented), strconv.Itoa(t.Classes.ExtractionMiss),
			strconv.Itoa(t.Classes.RankingMiss), strconv.Itoa(t.Classes.ComplianceMiss), strconv.Itoa(t.Classes.Unaided),
			ratioCell(ios, precision(t.Memory)), ratioCell(ios, t.Memory.JunkRate), strconv.Itoa(int(t.Memory.TokensPerSession + 0.5))}
		if !ios.StdoutTTY {
			cells = append([]string{kind}, cells...)
		}
		tb.add(cells...)
	}
	for _, p := range rep.Projects {
		row("project", p.Name, p.Totals)
	}
	row("all", "all", all)
	if err := tb.print(); err != nil {
		return err
	}
	if !ios.StdoutTTY {
		for _, r := range rep.Returns {
			then := r.Command
			if r.Repeat != nil {
				then = r.Repeat.Quote
			}
			fmt.Fprintln(ios.Out, strings.Join([]string{"return", rfc3339(r.Time), string(r.Class), r.Project, r.Session,
				r.Lesson.Session, foldSpace(r.Lesson.Quote), foldSpace(then)}, "\t"))
		}
		return nil
	}
	// A narrow terminal drops the memory columns: their figures for
	// every project are said here whatever its width.
	prec := percent(precision(all.Memory))
	if all.Memory.CitedEntries == 0 {
		prec = "n/a (no agent cited a memory)"
	}
	fmt.Fprintf(ios.Out, "\nInjected memory: precision %s; junk rate %s; about %d tokens a session.\n", prec, percent(all.Memory.JunkRate),
		int(all.Memory.TokensPerSession+0.5))
	counts := make([]int, len(rep.Timeline))
	for i, b := range rep.Timeline {
		counts[i] = b.Repeats
	}
	if len(counts) > 0 {
		fmt.Fprintf(ios.Out, "Repeats per %s, %s to %s: %s\n", rep.Period, rep.Timeline[0].Start.Format("2006-01-02"),
			rep.Timeline[len(rep.Timeline)-1].Start.Format("2006-01-02"), regret.Sparkline(counts))
	}
	misses := all.Classes.ExtractionMiss + all.Classes.RankingMiss + all.Classes.ComplianceMiss
	if rep.DominantMiss != "" {
		fmt.Fprintf(ios.Out, "Dominant miss: %s (%d of %d repeats)\n", classLabel(rep.DominantMiss), all.Classes.Of(rep.DominantMiss), misses)
	} else {
		fmt.Fprintln(ios.Out, "Dominant miss: none (no mistake came back)")
	}
	if opts.Examples == 0 || len(rep.Returns) == 0 {
		return nil
	}
	for _, class := range regret.Classes {
		shown := 0
		for _, r := range rep.Returns {
			if r.Class != class || shown == opts.Examples {
				continue
			}
			if shown == 0 {
				fmt.Fprintf(ios.Out, "\n%s (%d)\n", ios.Bold(classLabel(class)), all.Classes.Of(class))
			}
			shown++
			fmt.Fprintf(ios.Out, "  %s  %s  session %s\n", r.Time.Format("2006-01-02"), r.Project, shortID(r.Session))
			fmt.Fprintf(ios.Out, "    lesson (%s, %s): %s\n", r.Lesson.Time.Format("2006-01-02"), shortID(r.Lesson.Session), textcut.LineRunes(foldSpace(r.Lesson.Quote), 160))
			switch {
			case r.Repeat != nil:
				fmt.Fprintf(ios.Out, "    again: %s\n", textcut.LineRunes(foldSpace(r.Repeat.Quote), 160))
			case r.Command != "" && r.Repeated:
				fmt.Fprintf(ios.Out, "    again: ran %s\n", textcut.LineRunes(r.Command, 160))
			case r.Command != "":
				fmt.Fprintf(ios.Out, "    then: ran %s\n", textcut.LineRunes(r.Command, 160))
			}
		}
	}
	return nil
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

func foldSpace(s string) string { return strings.Join(strings.Fields(s), " ") }
