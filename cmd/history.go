package cmd

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/consolidate"
	"github.com/memctl/memctl/internal/english"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/store"
	"github.com/spf13/cobra"
)

// HistoryOptions is what `memctl history` needs: injected loaders first,
// then the flag values.
type HistoryOptions struct {
	IO        *IOStreams
	Config    func() (*config.Config, error)
	OpenStore func(ctx context.Context, version memversion.Version) (*store.Store, error)
	Now       func() time.Time

	JSON  bool
	Limit int
}

// historyJSON is the --json document of history.
type historyJSON struct {
	Version     memversion.Version `json:"version"`
	Keep        int                `json:"keep"`
	Generations []store.Generation `json:"generations"`
}

func newHistoryCmd(f *Factory, runF func(context.Context, *HistoryOptions) error) *cobra.Command {
	opts := &HistoryOptions{IO: f.IO, Config: f.Config, OpenStore: f.OpenStore, Now: f.Now}
	c := &cobra.Command{
		Use:   "history",
		Short: "List the consolidation generations kept for review and rollback",
		Long: `Every consolidation that changed the memory folder is a generation: its files,
the raw memories it selected and the workspace diff it worked from, kept in the
database (the last consolidation.keep_generations, 20 by default). A rollback is
a generation too. The list shows, newest first, when each was made, its state
(current: what the folder holds; approved; pending review; rejected), how
(mode and model), how many raw memories went in, the tokens spent and the files
it added (+), changed (~) and deleted (-) against the generation before it.

It reads the configured memory version (--memory-version picks the other).
See docs/history.md.`,
		Args: cobra.NoArgs,
		Example: `  $ memctl history
  $ memctl history show 4
  $ memctl rollback 3`,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.JSON = f.JSON
			if opts.Limit < 0 {
				return FlagErrorf("--limit must not be negative, got %d", opts.Limit)
			}
			return runOrHook(c.Context(), opts, runF, runHistory)
		},
	}
	c.Flags().IntVar(&opts.Limit, "limit", 0, "list at most `N` generations (0: all kept)")
	c.AddCommand(newHistoryShowCmd(f, nil))
	return c
}

func runHistory(ctx context.Context, opts *HistoryOptions) error {
	cfg, st, err := configAndStore(ctx, opts.Config, opts.OpenStore)
	if err != nil {
		return err
	}
	defer st.Close()
	gens, err := st.Generations(ctx, opts.Limit)
	if err != nil {
		return err
	}
	if opts.JSON {
		if gens == nil {
			gens = []store.Generation{}
		}
		return printJSON(opts.IO.Out, historyJSON{Version: cfg.Memories.Version, Keep: cfg.Consolidation.KeepGenerations, Generations: gens})
	}
	if len(gens) == 0 {
		opts.IO.Infof("%s: no generations yet; the next consolidation that changes the memory folder records one", cfg.Memories.Version)
		return nil
	}
	tb := newTable(opts.IO, "ID", "WHEN", "STATE", "KIND", "MODE", "MODEL", "INPUTS", "TOKENS", "FILES")
	tb.flex = -1 // no free text: nothing to cut
	tb.shrink("MODEL", 12).drop("MODEL").drop("MODE").drop("KIND").drop("TOKENS")
	for _, g := range gens {
		tb.add(strconv.FormatInt(g.ID, 10), timeCell(opts.IO, g.CreatedAt, opts.Now()), generationState(g), generationKind(g),
			orDash(g.Mode), orDash(modelName(g.Provider, g.Model)), strconv.Itoa(g.Selected), strconv.FormatInt(g.TotalTokens, 10),
			fmt.Sprintf("+%d ~%d -%d", g.Added, g.Modified, g.Deleted))
	}
	return tb.print()
}

func generationState(g store.Generation) string {
	state := g.State
	if g.Current {
		state = "current"
	}
	if g.PurgedAt != nil {
		state += ", purged"
	}
	return state
}

func generationKind(g store.Generation) string {
	if g.Kind == store.GenerationRollback {
		return fmt.Sprintf("rollback to %d", g.RestoredFrom)
	}
	return g.Kind
}

func modelName(provider, model string) string {
	switch {
	case model == "":
		return provider
	case provider == "":
		return model
	}
	return provider + "/" + model
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// parseGenerationID reads a generation id argument.
func parseGenerationID(arg string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimPrefix(arg, "#"), 10, 64)
	if err != nil || id <= 0 {
		return 0, FlagErrorf("generation id %q: want a positive number, as `memctl history` lists them", arg)
	}
	return id, nil
}

// lookupGeneration returns a kept generation, or an error that says how to
// find one. An id that names no kept generation is a usage error (exit 2),
// as a thread id that names no thread is.
func lookupGeneration(ctx context.Context, st *store.Store, version memversion.Version, id int64) (store.Generation, error) {
	g, err := st.Generation(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return g, withHint(FlagErrorf("%s: no generation %d is kept", version, id), "`memctl history` lists the kept generations")
	}
	return g, err
}

// HistoryShowOptions is what `memctl history show` needs: injected loaders
// first, then the argument and flag values.
type HistoryShowOptions struct {
	IO        *IOStreams
	Config    func() (*config.Config, error)
	OpenStore func(ctx context.Context, version memversion.Version) (*store.Store, error)

	JSON  bool
	ID    int64
	Stat  bool
	Input bool
}

// historyShowJSON is the --json document of history show.
type historyShowJSON struct {
	Version    memversion.Version `json:"version"`
	Generation store.Generation   `json:"generation"`
	// Previous is the generation it is compared with (the one it was built
	// on); 0 for the first one, which is compared with an empty folder.
	Previous     int64                   `json:"previous"`
	PreviousKept bool                    `json:"previous_kept"`
	Files        []consolidate.FileDiff  `json:"files"`
	Inputs       []store.GenerationInput `json:"inputs"`
	// WorkspaceDiff is the phase2_workspace_diff.md its consolidator read
	// (with --input; empty for a rollback).
	WorkspaceDiff string `json:"workspace_diff,omitempty"`
}

func newHistoryShowCmd(f *Factory, runF func(context.Context, *HistoryShowOptions) error) *cobra.Command {
	opts := &HistoryShowOptions{IO: f.IO, Config: f.Config, OpenStore: f.OpenStore}
	c := &cobra.Command{
		Use:   "show N",
		Short: "Print the diff between a generation and the one before it",
		Long: `Print a generation's changes to the memory folder against the generation it
was built on: a header, the status lines (A added, M modified, D deleted) and a
git-style diff of every changed file. --stat prints the status lines alone;
--input prints instead the workspace diff its consolidator worked from
(phase2_workspace_diff.md).`,
		Args: cobra.ExactArgs(1),
		Example: `  $ memctl history show 4
  $ memctl history show 4 --stat
  $ memctl history show 4 --input | less`,
		RunE: func(c *cobra.Command, args []string) error {
			id, err := parseGenerationID(args[0])
			if err != nil {
				return err
			}
			opts.JSON, opts.ID = f.JSON, id
			if opts.Stat && opts.Input {
				return FlagErrorf("--stat and --input cannot be used together")
			}
			return runOrHook(c.Context(), opts, runF, runHistoryShow)
		},
	}
	c.Flags().BoolVar(&opts.Stat, "stat", false, "print the changed paths without their diffs")
	c.Flags().BoolVar(&opts.Input, "input", false, "print the workspace diff the consolidator worked from")
	return c
}

func runHistoryShow(ctx context.Context, opts *HistoryShowOptions) error {
	cfg, st, err := configAndStore(ctx, opts.Config, opts.OpenStore)
	if err != nil {
		return err
	}
	defer st.Close()
	version := cfg.Memories.Version
	g, err := lookupGeneration(ctx, st, version, opts.ID)
	if err != nil {
		return err
	}
	doc := historyShowJSON{Version: version, Generation: g, Previous: g.ParentID, Files: []consolidate.FileDiff{}}
	if g.PurgedAt != nil {
		// Its files, inputs and diff went with a forgotten memory.
		doc.Inputs = []store.GenerationInput{}
		if opts.JSON {
			return printJSON(opts.IO.Out, doc)
		}
		opts.IO.Infof("%s: generation %d was purged at %s, when a memory it may hold text of was forgotten: its files, inputs and workspace diff are gone",
			version, g.ID, rfc3339(*g.PurgedAt))
		return nil
	}
	if opts.Input {
		if doc.WorkspaceDiff, err = st.GenerationWorkspaceDiff(ctx, g.ID); err != nil {
			return err
		}
		if !opts.JSON {
			if doc.WorkspaceDiff == "" {
				opts.IO.Infof("%s: generation %d is a rollback; no consolidator ran, so there is no workspace diff", version, g.ID)
				return nil
			}
			_, err := fmt.Fprint(opts.IO.Out, opts.IO.Text(doc.WorkspaceDiff))
			return err
		}
	}
	files, err := st.GenerationFiles(ctx, g.ID)
	if err != nil {
		return err
	}
	var prev []store.BaselineFile
	if g.ParentID != 0 {
		prev, err = st.GenerationFiles(ctx, g.ParentID)
		if err != nil {
			return err
		}
		if _, err := st.Generation(ctx, g.ParentID); err == nil {
			doc.PreviousKept = true
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	doc.Files = consolidate.DiffFiles(prev, files, nil)
	if doc.Files == nil {
		doc.Files = []consolidate.FileDiff{}
	}
	if opts.Stat {
		for i := range doc.Files {
			doc.Files[i].Diff = ""
		}
	}
	if doc.Inputs, err = st.GenerationInputs(ctx, g.ID); err != nil {
		return err
	}
	if doc.Inputs == nil {
		doc.Inputs = []store.GenerationInput{}
	}
	if opts.JSON {
		return printJSON(opts.IO.Out, doc)
	}
	w, ios := opts.IO.Out, opts.IO
	fmt.Fprintf(w, "%s %d (%s, %s)\n", ios.Bold("generation"), g.ID, generationKind(g), generationState(g))
	fmt.Fprintf(w, "  created   %s\n", rfc3339(g.CreatedAt))
	if g.SettledAt != nil && !g.SettledAt.Equal(g.CreatedAt) {
		fmt.Fprintf(w, "  settled   %s\n", rfc3339(*g.SettledAt))
	}
	fmt.Fprintf(w, "  mode      %s\n", orDash(g.Mode))
	if m := modelName(g.Provider, g.Model); m != "" {
		fmt.Fprintf(w, "  model     %s\n", ios.Text(m))
	}
	fmt.Fprintf(w, "  inputs    %s\n  tokens    %d (%d in, %d out)\n", english.Count(g.Selected, "raw memory", "raw memories"), g.TotalTokens, g.InputTokens, g.OutputTokens)
	switch {
	case g.ParentID == 0:
		fmt.Fprintf(w, "  against   nothing (the first generation)\n")
	case !doc.PreviousKept:
		fmt.Fprintf(w, "  against   generation %d, no longer kept: every file shows as added\n", g.ParentID)
	default:
		fmt.Fprintf(w, "  against   generation %d\n", g.ParentID)
	}
	fmt.Fprintln(w)
	if len(doc.Files) == 0 {
		fmt.Fprintln(w, "no file changed")
		return nil
	}
	for _, fd := range doc.Files {
		fmt.Fprintf(w, "%s %s\n", fd.Status, ios.Text(fd.Path))
	}
	if opts.Stat {
		return nil
	}
	for _, fd := range doc.Files {
		fmt.Fprintln(w)
		fmt.Fprint(w, ios.Text(fd.Diff)) // memory files hold a transcript's words
	}
	return nil
}
