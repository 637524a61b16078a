package cmd

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/english"
	"github.com/memctl/memctl/internal/extract"
	"github.com/memctl/memctl/internal/pipeline"
	"github.com/memctl/memctl/internal/store"
	"github.com/memctl/memctl/internal/textcut"
	"github.com/spf13/cobra"
)

// ExtractFlags are the flags of extract, which run accepts too.
type ExtractFlags struct {
	// ProviderKind overrides provider.kind; "" when not given.
	ProviderKind string
	// Model overrides memories.extract_model; "" when not given.
	Model string
	// Max claims at most this many threads; nil: memories.max_rollouts_per_startup.
	Max *int
	// Concurrency overrides extract.concurrency; nil when not given.
	Concurrency   *int
	All           bool
	Threads       []string
	CurrentThread string
	DryRun        bool
	// Yes takes a first run's whole backlog with a model provider without
	// asking.
	Yes bool
}

func (o *ExtractFlags) bind(c *cobra.Command) {
	fl := c.Flags()
	stringEnumFlag(c, fl, &o.ProviderKind, "provider", "", config.ProviderKinds, "model provider (overrides provider.kind)")
	fl.StringVar(&o.Model, "model", "", "extraction model (overrides memories.extract_model)")
	optionalIntFlag(fl, &o.Max, "max", "claim at most `N` threads this run (default: memories.max_rollouts_per_startup)")
	optionalIntFlag(fl, &o.Concurrency, "concurrency", "`N` model calls in flight (default: extract.concurrency, 8)")
	fl.BoolVar(&o.All, "all", false, "ignore the age and idle windows (a first run still takes every past session)")
	fl.StringArrayVar(&o.Threads, "thread", nil, "extract only this thread `ID` (repeatable)")
	fl.StringVar(&o.CurrentThread, "current-thread", "", "never extract this thread `ID` (the host agent's live session)")
	fl.BoolVar(&o.DryRun, "dry-run", false, "list what would be claimed with approximate token counts; call no model")
	fl.BoolVar(&o.Yes, "yes", false, "on a first run with a model provider, extract every past session without asking")
}

// check refuses values no config could hold.
func (o *ExtractFlags) check() error {
	if o.Max != nil && *o.Max < 1 {
		return FlagErrorf("--max must be at least 1")
	}
	return checkRange("concurrency", "extract.concurrency", o.Concurrency)
}

// request is what the flags ask of Phase 1.
func (o *ExtractFlags) request() pipeline.ExtractRequest {
	req := pipeline.ExtractRequest{All: o.All, Threads: o.Threads, CurrentThread: o.CurrentThread, DryRun: o.DryRun, Yes: o.Yes}
	if o.Max != nil {
		req.Max = *o.Max
	}
	return req
}

// apply writes the flags that mirror config keys into cfg.
func (o *ExtractFlags) apply(cfg *config.Config) error {
	set := func(flag, key string, v any) error {
		if err := cfg.Set(key, v, config.FromFlag); err != nil {
			return &FlagError{Err: fmt.Errorf("--%s: %w", flag, err)}
		}
		return nil
	}
	if o.ProviderKind != "" {
		if err := set("provider", "provider.kind", o.ProviderKind); err != nil {
			return err
		}
	}
	if o.Model != "" {
		if err := set("model", "memories.extract_model", o.Model); err != nil {
			return err
		}
	}
	if o.Concurrency != nil {
		if err := set("concurrency", "extract.concurrency", *o.Concurrency); err != nil {
			return err
		}
	}
	return nil
}

// ExtractOptions is what `memctl extract` needs: injected loaders first,
// then the flag values.
type ExtractOptions struct {
	IO     *IOStreams
	Config func() (*config.Config, error)
	// Pipeline builds the Home that runs the stages.
	Pipeline func(*config.Config, pipeline.Reporter) (*pipeline.Home, error)

	JSON bool
	ExtractFlags
}

func newExtractCmd(f *Factory, runF func(context.Context, *ExtractOptions) error) *cobra.Command {
	opts := &ExtractOptions{IO: f.IO, Config: f.Config, Pipeline: f.Pipeline}
	c := &cobra.Command{
		Use:   "extract",
		Short: "Phase 1: turn idle threads into raw memories, one model call each",
		Long: `Scan the transcript sources, then claim idle threads and turn each into a raw
memory, a rollout summary and a slug with one structured model call (or the
offline heuristic extractor). Claims are leases in SQLite, so any number of
extract processes can run at once without extracting a thread twice.

A thread is claimed when it comes from an interactive source, its memory mode is
enabled, it was updated within memories.max_rollout_age_days and has been idle
for memories.min_rollout_idle_hours (--all ignores both windows), and this
version of it has not been extracted yet. A failed job backs off for an hour and
is tried at most three times per version of the thread.

A first run (this memory version never extracted) takes every past session,
not only the two the windows let through: at once with the offline heuristic;
with a model provider only after the estimated input tokens are shown and
accepted (--yes, or y at the prompt on a terminal), else with the usual limits
and a hint. The past sessions are those updated by the first run's start; until
every one is taken, later runs take the rest whatever cut the first run short
(Ctrl-C, a crash, a failed call), and memctl status says how many wait. --all
widens the rule (the windows go for every thread); --max and --thread take what
they say, and start no first run.

EXIT STATUS
  0  every claimed job succeeded (or nothing was eligible)
  3  some jobs failed; each is recorded with its reason and retried later`,
		Args: cobra.NoArgs,
		Example: `  $ memctl extract --provider heuristic --all
  $ memctl extract --dry-run --json
  $ memctl extract --thread 019e1625 --model gpt-5.4-mini`,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.JSON = f.JSON
			if err := opts.check(); err != nil {
				return err
			}
			return runOrHook(c.Context(), opts, runF, runExtract)
		},
	}
	opts.bind(c)
	_ = c.RegisterFlagCompletionFunc("thread", completeThreadIDs(f))
	_ = c.RegisterFlagCompletionFunc("current-thread", completeThreadIDs(f))
	return c
}

func runExtract(ctx context.Context, opts *ExtractOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	if err := opts.apply(cfg); err != nil {
		return err
	}
	home, rep, err := sessionReadingHome(opts.IO, opts.JSON, cfg, opts.Pipeline)
	if err != nil {
		return err
	}
	res, scanned, err := home.Extract(ctx, opts.request())
	if err != nil {
		return extractError(err)
	}
	if opts.JSON {
		if err := printJSON(opts.IO.Out, res); err != nil {
			return err
		}
	} else {
		reportScan(opts.IO, scanned)
		printExtract(opts.IO, res)
		rep.hintSources(scanned)
	}
	// A source that could not be read is an error (exit 1) even when the
	// others gave threads to extract.
	if err := sourcesError(scanned, cfg); err != nil {
		return err
	}
	if res.Failed > 0 {
		return &PartialError{Failed: res.Failed, Total: res.Claimed}
	}
	return nil
}

// extractError words a --thread id that names no thread (or several) as
// the flag's error; other errors pass through.
func extractError(err error) error {
	var badID *pipeline.ThreadIDError
	if errors.As(err, &badID) {
		return threadIDError(badID.ID, "--thread", badID.Err)
	}
	return err
}

func printExtract(ios *IOStreams, res extract.RunResult) {
	if res.DryRun {
		tb := newTable(ios, "THREAD", "~TOKENS", "PREVIEW")
		tb.ids("THREAD")
		for _, j := range res.Jobs {
			tokens := fmt.Sprint(j.ApproxTokens)
			if j.Error != "" {
				tokens = "error: " + j.Error
			}
			tb.add(j.ThreadID, tokens, textcut.LineRunes(j.Preview, 70))
		}
		_ = tb.print()
		ios.Infof("would claim %s, about %d input tokens in total%s", english.Count(len(res.Jobs), "thread", "threads"), res.ApproxTokens, notClaimedText(res.NotClaimed))
		return
	}
	for _, j := range res.Jobs {
		switch j.Status {
		case extract.StatusFailed:
			ios.Warnf("%s failed: %s", j.ThreadID, j.Error)
		default:
			ios.Debugf("%s %s", j.ThreadID, strings.ReplaceAll(j.Status, "_", " "))
		}
	}
	msg := fmt.Sprintf("extracted %s: %d with a memory, %d with nothing worth keeping, %d failed", english.Count(res.Claimed, "thread", "threads"), res.Succeeded, res.SucceededNoOutput, res.Failed)
	if res.Usage.TotalTokens > 0 {
		msg += fmt.Sprintf(" (%d tokens)", res.Usage.TotalTokens)
	}
	ios.Infof("%s%s", msg, notClaimedText(res.NotClaimed))
}

// notClaimedText says why the other indexed threads were not claimed, the
// most common reason first: "; not claimed: 3 up to date, 1 not idle".
// A reason a flag or command overrides names the override.
func notClaimedText(counts map[string]int) string {
	if len(counts) == 0 {
		return ""
	}
	return "; not claimed: " + reasonsText(counts)
}

// reasonsText lists counts of threads by why they are not claimed, the
// most common reason first.
func reasonsText(counts map[string]int) string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if counts[keys[i]] != counts[keys[j]] {
			return counts[keys[i]] > counts[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		label := notClaimedLabel[k]
		if counts[k] == 1 {
			label = strings.Replace(strings.Replace(label, "sessions", "session", 1), "imported memories", "imported memory", 1) // "1 non-interactive (exec) session", "1 imported memory"
		}
		parts[i] = fmt.Sprintf("%d %s", counts[k], label)
		if notClaimedLabel[k] == "" {
			parts[i] = fmt.Sprintf("%d %s", counts[k], strings.ReplaceAll(k, "_", " "))
		}
	}
	return strings.Join(parts, ", ")
}

var notClaimedLabel = map[string]string{
	store.ReasonNonInteractive: "non-interactive (exec) sessions",
	store.ReasonSubagent:       "sub-agent sessions",
	store.ReasonImported:       "imported memories (no transcript here)",
	store.ReasonMemoryDisabled: "with memory disabled (`memctl threads enable ID` turns it on)",
	store.ReasonMemoryFolder:   "run in the memory folder (agent consolidations)",
	store.ReasonArchived:       "archived",
	store.ReasonNoPreview:      "without a human message",
	store.ReasonTooOld:         "older than memories.max_rollout_age_days (--all ignores it)",
	store.ReasonNotIdle:        "not idle for memories.min_rollout_idle_hours yet (--all ignores it)",
	extract.ReasonUpToDate:     "already extracted",
	extract.ReasonRunning:      "claimed by another process",
	extract.ReasonBackoff:      "backing off for an hour after a failure",
	extract.ReasonNoRetries:    "out of retries for this version",
	extract.ReasonOverLimit:    "eligible, past this run's limit (--max N claims more)",
}
