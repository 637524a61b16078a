package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/english"
	"github.com/memctl/memctl/internal/extract"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/pipeline"
	"github.com/memctl/memctl/internal/store"
	"github.com/memctl/memctl/internal/textcut"
	"github.com/spf13/cobra"
)

func newThreadsCmd(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "threads <command>",
		Short: "List, inspect, enable, disable and forget indexed threads",
		Long: `Work with the threads memctl indexed from transcripts. A thread id may be
given in full or as a unique prefix of at least four characters. Alone,
threads lists them as threads list does.`,
		Example: `  $ memctl threads list
  $ memctl threads show 019e1625
  $ memctl threads forget 019e1625`,
	}
	list := newThreadsListCmd(f, nil)
	// Alone, it lists: what a user who types `memctl threads` wants.
	c.Args = cobra.NoArgs
	c.RunE = func(c *cobra.Command, args []string) error {
		list.SetContext(c.Context())
		return list.RunE(list, args)
	}
	c.AddCommand(
		list,
		newThreadsShowCmd(f, nil),
		newThreadsInputCmd(f, nil),
		newThreadsModeCmd(f, nil, "enable", "enabled", "Allow a thread to be extracted and consolidated"),
		newThreadsModeCmd(f, nil, "disable", "disabled", "Keep a thread out of extraction, consolidation and search"),
		newThreadsForgetCmd(f, nil),
	)
	return c
}

// threadJSON is the CLI.md shape of one thread.
type threadJSON struct {
	ID         string `json:"id"`
	Source     string `json:"source"`
	SourceKind string `json:"source_kind"`
	Path       string `json:"path"`
	Cwd        string `json:"cwd"`
	GitBranch  string `json:"git_branch,omitempty"`
	Preview    string `json:"preview"`
	CreatedAt  string `json:"created_at"`
	UpdatedAt  string `json:"updated_at"`
	MemoryMode string `json:"memory_mode"`
	HasMemory  bool   `json:"has_memory"`
	Subagent   bool   `json:"subagent"`
	Archived   bool   `json:"archived"`
	ProjectKey string `json:"project_key"`
	Project    string `json:"project"`
}

func toThreadJSON(t store.Thread, hasMemory bool) threadJSON {
	return threadJSON{ID: t.ID, Source: t.Source, SourceKind: t.SourceKind, Path: t.Path, Cwd: t.Cwd, GitBranch: t.GitBranch,
		Preview: t.Preview, CreatedAt: rfc3339(t.CreatedAt), UpdatedAt: rfc3339(t.UpdatedAt), MemoryMode: t.MemoryMode,
		HasMemory: hasMemory, Subagent: t.Subagent, Archived: t.Archived, ProjectKey: t.ProjectKey, Project: t.ProjectName}
}

// ThreadsListOptions is what `memctl threads list` needs: injected
// loaders first, then the flag values.
type ThreadsListOptions struct {
	IO        *IOStreams
	Config    func() (*config.Config, error)
	OpenStore func(ctx context.Context, version memversion.Version) (*store.Store, error)
	Now       func() time.Time
	// MemoryRoot locates the memory folder, whose project index knows
	// projects by name too.
	MemoryRoot func(version memversion.Version) (string, error)

	JSON  bool
	Limit int
	Scope ProjectScope
}

func newThreadsListCmd(f *Factory, runF func(context.Context, *ThreadsListOptions) error) *cobra.Command {
	opts := &ThreadsListOptions{IO: f.IO, Config: f.Config, OpenStore: f.OpenStore, Now: f.Now, MemoryRoot: f.MemoryRoot}
	c := &cobra.Command{
		Use:   "list",
		Short: "List indexed threads, most recently updated first",
		Long: `List indexed threads, most recently updated first. Only the threads of the
working directory's project are listed (all of them when it has none);
--project picks another project and --all-projects lists every thread.`,
		Args: cobra.NoArgs,
		Example: `  $ memctl threads list
  $ memctl threads list --all-projects --json | jq '.[] | select(.has_memory)'
  $ memctl threads list --project acme/api`,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.JSON = f.JSON
			if err := opts.Scope.check(c); err != nil {
				return err
			}
			return runOrHook(c.Context(), opts, runF, runThreadsList)
		},
	}
	c.Flags().IntVar(&opts.Limit, "limit", 0, "list at most `N` threads (0: all)")
	opts.Scope.addFlags(c, "list the threads")
	return c
}

func runThreadsList(ctx context.Context, opts *ThreadsListOptions) error {
	cfg, st, err := configAndStore(ctx, opts.Config, opts.OpenStore)
	if err != nil {
		return err
	}
	defer st.Close()
	root, err := optionalRoot(opts.MemoryRoot, cfg.Memories.Version)
	if err != nil {
		return err
	}
	scope, err := opts.Scope.resolve(ctx, cfg, st, root)
	if err != nil {
		return err
	}
	threads, err := st.ListThreads(ctx, store.ThreadFilter{Limit: opts.Limit, ProjectKey: scope.Key})
	if err != nil {
		return err
	}
	if scope.Key != "" && !opts.JSON {
		opts.IO.Infof("threads of project %s (--all-projects for every project)", scope.Name)
	}
	if opts.JSON {
		out := make([]threadJSON, 0, len(threads))
		for _, t := range threads {
			out = append(out, toThreadJSON(t.Thread, t.HasMemory))
		}
		return printJSON(opts.IO.Out, out)
	}
	// PROJECT comes last: piped output keeps the columns scripts read.
	tb := newTable(opts.IO, "ID", "SOURCE", "UPDATED", "MODE", "MEMORY", "CWD", "PREVIEW", "PROJECT")
	tb.flex = 6 // the preview is cut to fit
	// The project says where a thread ran more briefly than its folder,
	// and the mode is nearly always "enabled": they go first.
	tb.ids("ID").paths("CWD").drop("CWD").drop("MODE").shrink("PROJECT", 13).shrink("SOURCE", 11).
		shrink("PREVIEW", 24).drop("MEMORY").drop("SOURCE").shrink("PREVIEW", minFlexWidth).drop("PROJECT")
	var unread []string
	for _, t := range threads {
		if blankThread(t.Thread) {
			unread = append(unread, t.Path)
			continue
		}
		mem := "-"
		if t.HasMemory {
			mem = "yes"
		}
		tb.add(t.ID, sourceCell(opts.IO, t.Thread), timeCell(opts.IO, t.UpdatedAt, opts.Now()), t.MemoryMode, mem, t.Cwd, textcut.LineRunes(t.Preview, 60), orDash(t.ProjectName))
	}
	if err := tb.print(); err != nil {
		return err
	}
	if len(unread) > 0 {
		opts.IO.Infof("not listed: %s where nothing could be read (empty, or not a transcript; `memctl scan` said why when it indexed %s): %s",
			english.Count(len(unread), "file", "files"), english.Noun(len(unread), "it", "them"), strings.Join(unread, ", "))
	}
	return nil
}

// blankThread is a file indexed from an agent's session folder in which
// nothing could be read: no human message, no folder, no model, only
// problems. Listed, it would be a row of dashes dated by the file's mtime.
// It stays indexed, so a rescan skips it without a warning,
// and --json still lists it.
func blankThread(t store.Thread) bool {
	return t.Problems > 0 && strings.TrimSpace(t.Preview) == "" && t.Cwd == "" && t.Model == ""
}

// sourceCell names where a thread came from. On a terminal that is the
// agent (codex, claude-code, jsonl), with the session's origin when it is
// not an interactive CLI session ("codex exec"); piped it stays the
// origin alone ("cli"), as scripts read it.
func sourceCell(ios *IOStreams, t store.Thread) string {
	if !ios.StdoutTTY {
		return t.Source
	}
	if t.Source == "" || t.Source == "cli" {
		return t.SourceKind
	}
	return t.SourceKind + " " + t.Source
}

// lookupThread resolves a thread id or unique prefix typed on the command
// line. The same mistake gets the same words and the same exit code (2)
// wherever an id is typed: no such thread, a prefix too short, a prefix
// that matches several threads (they are listed). flag names the flag
// the id came from ("--thread"); "" for an argument.
func lookupThread(ctx context.Context, st *store.Store, id, flag string) (store.Thread, error) {
	t, err := st.Thread(ctx, id)
	return t, threadIDError(id, flag, err)
}

// threadIDError words the error of looking up the thread id (or prefix)
// typed in flag (see lookupThread); nil stays nil.
func threadIDError(id, flag string, err error) error {
	name := "thread"
	if flag != "" {
		name = flag
	}
	var amb *store.AmbiguousError
	switch {
	case errors.As(err, &amb):
		return withHint(FlagErrorf("%s %q: the prefix matches %d threads: %s", name, id, len(amb.Candidates), strings.Join(amb.Candidates, ", ")),
			"give more characters of the id")
	case errors.Is(err, store.ErrNotFound) && len(id) < store.MinIDPrefix:
		return withHint(FlagErrorf("%s %q: an id prefix needs at least %d characters", name, id, store.MinIDPrefix),
			"`memctl threads list` shows the ids")
	case errors.Is(err, store.ErrNotFound):
		return withHint(FlagErrorf("%s %q: no such thread", name, id),
			"`memctl threads list` shows the indexed threads; `memctl scan` indexes new sessions")
	}
	return err
}

// ThreadsShowOptions is what `memctl threads show` needs: injected
// loaders first, then the argument and flag values.
type ThreadsShowOptions struct {
	IO     *IOStreams
	Config func() (*config.Config, error)
	// Pipeline builds the Home whose claim rules the explanation applies.
	Pipeline func(*config.Config, pipeline.Reporter) (*pipeline.Home, error)

	JSON bool
	ID   string
}

// threadMemoryJSON is the raw memory in `threads show --json`.
type threadMemoryJSON struct {
	RawMemory         string     `json:"raw_memory"`
	RolloutSummary    string     `json:"rollout_summary"`
	RolloutSlug       *string    `json:"rollout_slug"`
	UsageCount        int64      `json:"usage_count"`
	LastUsage         *time.Time `json:"last_usage"`
	SourceUpdatedAt   int64      `json:"source_updated_at"`
	SelectedForPhase2 bool       `json:"selected_for_phase2"`
	// Searchable: search finds it (its thread is in memory).
	Searchable bool `json:"searchable"`
}

// threadShowJSON is the --json document of threads show.
type threadShowJSON struct {
	Thread       threadJSON          `json:"thread"`
	Memory       *threadMemoryJSON   `json:"memory"`
	Eligibility  extract.Eligibility `json:"eligibility"`
	RelatedPaths []string            `json:"related_paths"`
	Problems     int                 `json:"problems"`
}

func newThreadsShowCmd(f *Factory, runF func(context.Context, *ThreadsShowOptions) error) *cobra.Command {
	opts := &ThreadsShowOptions{IO: f.IO, Config: f.Config, Pipeline: f.Pipeline}
	return &cobra.Command{
		Use:               "show ID",
		ValidArgsFunction: completeThreadIDs(f),
		Short:             "Show one thread, its raw memory and why it is or is not eligible for extraction",
		Args:              cobra.ExactArgs(1),
		Example: `  $ memctl threads show 019e1625
  $ memctl threads show 019e1625 --json | jq .memory.rollout_summary`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.JSON, opts.ID = f.JSON, args[0]
			return runOrHook(c.Context(), opts, runF, runThreadsShow)
		},
	}
}

func runThreadsShow(ctx context.Context, opts *ThreadsShowOptions) error {
	cfg, home, err := configAndQuietHome(opts.Config, opts.Pipeline)
	if err != nil {
		return err
	}
	st, err := home.OpenStore(ctx, cfg.Memories.Version)
	if err != nil {
		return err
	}
	defer st.Close()
	t, err := lookupThread(ctx, st, opts.ID, "")
	if err != nil {
		return err
	}
	var out *store.Output
	if o, err := st.Output(ctx, t.ID); err == nil {
		out = &o
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	elig, err := home.Explain(ctx, st, t)
	if err != nil {
		return err
	}
	if opts.JSON {
		doc := threadShowJSON{Thread: toThreadJSON(t, out != nil), Eligibility: elig, RelatedPaths: t.Related, Problems: t.Problems}
		if out != nil {
			doc.Memory = &threadMemoryJSON{RawMemory: out.RawMemory, RolloutSummary: out.RolloutSummary, RolloutSlug: out.RolloutSlug,
				UsageCount: out.UsageCount, LastUsage: out.LastUsage, SourceUpdatedAt: out.SourceUpdatedAt,
				SelectedForPhase2: out.SelectedForPhase2, Searchable: store.Searchable(t, *out)}
		}
		return printJSON(opts.IO.Out, doc)
	}
	ios := opts.IO
	w := ios.Out
	tx := ios.Text // every field below comes from a transcript or a model
	fmt.Fprintf(w, "%s %s\n", ios.Bold("thread"), tx(t.ID))
	fmt.Fprintf(w, "  source    %s (%s)\n  path      %s\n  cwd       %s\n", tx(t.Source), tx(t.SourceKind), tx(t.Path), tx(t.Cwd))
	if t.ProjectKey != "" {
		fmt.Fprintf(w, "  project   %s (%s)\n", tx(t.ProjectName), tx(t.ProjectKey))
	}
	if t.GitBranch != "" {
		fmt.Fprintf(w, "  branch    %s\n", tx(t.GitBranch))
	}
	fmt.Fprintf(w, "  created   %s\n  updated   %s\n  mode      %s\n  preview   %s\n", rfc3339(t.CreatedAt), rfc3339(t.UpdatedAt), tx(t.MemoryMode), tx(textcut.LineRunes(t.Preview, 100)))
	if t.Problems > 0 {
		fmt.Fprintf(w, "  problems  %s (see `memctl scan`)\n", english.Count(t.Problems, "unreadable part", "unreadable parts"))
	}
	verdict := ios.Red("not eligible")
	if elig.Eligible {
		verdict = ios.Green("eligible")
	}
	fmt.Fprintf(w, "\n%s: %s\n", ios.Bold("extraction"), verdict)
	for _, c := range elig.Checks {
		mark := "ok "
		if !c.OK {
			mark = "NO "
		}
		fmt.Fprintf(w, "  %s %-15s %s\n", mark, c.Name, tx(c.Detail))
	}
	if out != nil {
		searchable := ""
		if !store.InMemory(t) {
			searchable = "; out of memory: neither consolidated nor found by search until `memctl threads enable`"
		}
		fmt.Fprintf(w, "\n%s (used %d times%s)\n", ios.Bold("raw memory"), out.UsageCount, searchable)
		if out.RawMemory != "" {
			fmt.Fprintln(w, tx(strings.TrimSpace(out.RawMemory)))
		}
		fmt.Fprintf(w, "\n%s\n%s\n", ios.Bold("rollout summary"), tx(strings.TrimSpace(out.RolloutSummary)))
	}
	return nil
}

// ThreadsInputOptions is what `memctl threads input` needs: injected
// loaders first, then the argument and flag values.
type ThreadsInputOptions struct {
	IO        *IOStreams
	Config    func() (*config.Config, error)
	OpenStore func(ctx context.Context, version memversion.Version) (*store.Store, error)

	JSON   bool
	ID     string
	System bool
}

// threadInputJSON is the --json document of threads input.
type threadInputJSON struct {
	System string   `json:"system"`
	Input  []string `json:"input"`
}

func newThreadsInputCmd(f *Factory, runF func(context.Context, *ThreadsInputOptions) error) *cobra.Command {
	opts := &ThreadsInputOptions{IO: f.IO, Config: f.Config, OpenStore: f.OpenStore}
	c := &cobra.Command{
		Use:               "input ID",
		ValidArgsFunction: completeThreadIDs(f),
		Short:             "Print exactly the text Phase 1 would send to the model for a thread",
		Long: `Print the user message(s) Phase 1 would send for a thread: filtered, redacted
and cut to the token budget, wrapped in the input template. v2 splits its evidence
into messages of at most 8,900 bytes; they are separated by a line of dashes.`,
		Args:    cobra.ExactArgs(1),
		Example: `  $ memctl threads input 019e1625 | less`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.JSON, opts.ID = f.JSON, args[0]
			return runOrHook(c.Context(), opts, runF, runThreadsInput)
		},
	}
	c.Flags().BoolVar(&opts.System, "system", false, "print the system prompt first")
	return c
}

func runThreadsInput(ctx context.Context, opts *ThreadsInputOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	red, err := redactor(cfg)
	if err != nil {
		return err
	}
	st, err := opts.OpenStore(ctx, cfg.Memories.Version)
	if err != nil {
		return err
	}
	defer st.Close()
	t, err := lookupThread(ctx, st, opts.ID, "")
	if err != nil {
		return err
	}
	system, input, err := extract.Input(t, cfg.Memories.Version, cfg.TokenLimit(), red, cfg.Templates.Dir)
	if err != nil {
		return err
	}
	if opts.JSON {
		return printJSON(opts.IO.Out, threadInputJSON{System: system, Input: input})
	}
	if opts.System {
		fmt.Fprintln(opts.IO.Out, system)
		fmt.Fprintln(opts.IO.Out, "-----")
	}
	_, err = fmt.Fprint(opts.IO.Out, opts.IO.Text(strings.Join(input, "\n-----\n")))
	return err
}

// ThreadsModeOptions is what `memctl threads enable|disable|forget` need:
// injected loaders first, then the argument and what to do.
type ThreadsModeOptions struct {
	IO        *IOStreams
	Config    func() (*config.Config, error)
	OpenStore func(ctx context.Context, version memversion.Version) (*store.Store, error)

	JSON bool
	ID   string
	// Mode is the memory mode to set: enabled or disabled.
	Mode string
	// Forget also deletes the raw memory.
	Forget bool
}

// threadModeJSON is the --json document of threads enable|disable|forget.
type threadModeJSON struct {
	ID         string `json:"id"`
	MemoryMode string `json:"memory_mode"`
}

func newThreadsModeCmd(f *Factory, runF func(context.Context, *ThreadsModeOptions) error, use, mode, short string) *cobra.Command {
	opts := &ThreadsModeOptions{IO: f.IO, Config: f.Config, OpenStore: f.OpenStore, Mode: mode}
	return &cobra.Command{
		Use:               use + " ID",
		ValidArgsFunction: completeThreadIDs(f),
		Short:             short,
		Args:              cobra.ExactArgs(1),
		Example:           fmt.Sprintf("  $ memctl threads %s 019e1625", use),
		RunE: func(c *cobra.Command, args []string) error {
			opts.JSON, opts.ID = f.JSON, args[0]
			return runOrHook(c.Context(), opts, runF, runThreadsMode)
		},
	}
}

func newThreadsForgetCmd(f *Factory, runF func(context.Context, *ThreadsModeOptions) error) *cobra.Command {
	opts := &ThreadsModeOptions{IO: f.IO, Config: f.Config, OpenStore: f.OpenStore, Mode: "disabled", Forget: true}
	return &cobra.Command{
		Use:               "forget ID",
		ValidArgsFunction: completeThreadIDs(f),
		Short:             "Disable a thread and delete its raw memory",
		Long: `Disable a thread and delete its raw memory. When the memory was part of the
last consolidation, the next consolidate removes its summary file from the memory
folder and the workspace diff shows it as deleted, so the memory is forgotten.`,
		Args:    cobra.ExactArgs(1),
		Example: `  $ memctl threads forget 019e1625 && memctl consolidate --force`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.JSON, opts.ID = f.JSON, args[0]
			return runOrHook(c.Context(), opts, runF, runThreadsMode)
		},
	}
}

// runThreadsMode applies a mode in every generated version's store.
func runThreadsMode(ctx context.Context, opts *ThreadsModeOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	var resolved string
	// What forget deleted: a raw memory, and one the memory folder still
	// reflects (it was in the last consolidation).
	hadMemory, inFolder := false, false
	for _, v := range cfg.Versions() {
		st, err := opts.OpenStore(ctx, v)
		if err != nil {
			return err
		}
		t, err := lookupThread(ctx, st, opts.ID, "")
		if err == nil {
			resolved = t.ID
			if opts.Forget {
				if out, oerr := st.Output(ctx, t.ID); oerr == nil {
					hadMemory = true
					inFolder = inFolder || out.SelectedForPhase2
				}
				if err = st.ForgetThread(ctx, t.ID); err == nil {
					scrubAfterForget(ctx, opts.IO, st, v)
				}
			} else {
				err = st.SetMemoryMode(ctx, t.ID, opts.Mode)
			}
		}
		st.Close()
		if err != nil {
			return err
		}
	}
	if opts.JSON {
		return printJSON(opts.IO.Out, threadModeJSON{ID: resolved, MemoryMode: opts.Mode})
	}
	if !opts.Forget {
		opts.IO.Infof("%s %s", opts.Mode, resolved)
		return nil
	}
	// Forget says what the memory folder keeps: what it learned from the
	// thread stays there until the next consolidation (which the
	// cooldown may hold off for hours).
	switch {
	case inFolder:
		opts.IO.Infof("forgot %s: its raw memory is deleted, but the memory folder keeps what it learned from it until the next consolidation", resolved)
		opts.IO.Infof("memctl: hint: `memctl consolidate --force` rewrites the folder now")
	case hadMemory:
		opts.IO.Infof("forgot %s: its raw memory is deleted (no consolidation had used it yet)", resolved)
	default:
		opts.IO.Infof("forgot %s: it had no raw memory; it is disabled and will not be extracted", resolved)
	}
	return nil
}

// completeThreadIDs offers the indexed thread ids, each with its preview,
// for a shell completing a thread id. It never creates a database: with
// none there is nothing to offer.
func completeThreadIDs(f *Factory) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		const none = cobra.ShellCompDirectiveNoFileComp
		if len(args) > 0 {
			return nil, none // the one ID is already there
		}
		cfg, err := f.Config()
		if err != nil {
			return nil, none
		}
		home, err := f.Home()
		if err != nil {
			return nil, none
		}
		if _, err := os.Stat(filepath.Join(home, store.FileName(cfg.Memories.Version))); err != nil {
			return nil, none
		}
		// cobra gives a command being completed no context.
		ctx := context.Background()
		st, err := f.OpenStore(ctx, cfg.Memories.Version)
		if err != nil {
			return nil, none
		}
		defer st.Close()
		threads, err := st.ListThreads(ctx, store.ThreadFilter{})
		if err != nil {
			return nil, none
		}
		var out []cobra.Completion
		for _, t := range threads {
			if strings.HasPrefix(t.ID, toComplete) {
				out = append(out, cobra.CompletionWithDesc(t.ID, textcut.LineRunes(t.Preview, 50)))
			}
		}
		return out, none
	}
}
