package cmd

import (
	"bufio"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/internal/english"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/reset"
	"github.com/memctl/memctl/internal/store"
	"github.com/spf13/cobra"
)

// ClearOptions is what `memctl clear` needs: injected loaders first, then
// the flag values.
type ClearOptions struct {
	IO        *IOStreams
	Home      func() (string, error)
	OpenStore func(ctx context.Context, version memversion.Version) (*store.Store, error)

	JSON   bool
	Yes    bool
	DryRun bool
}

func newClearCmd(f *Factory, runF func(context.Context, *ClearOptions) error) *cobra.Command {
	opts := &ClearOptions{IO: f.IO, Home: f.Home, OpenStore: f.OpenStore}
	c := &cobra.Command{
		Use:   "clear",
		Short: "Delete every memory of both versions (databases and folders)",
		Long: `Empty the raw memories, jobs and baseline of both versions' databases and the
contents of the memory folders (memories/, memories_v2/, memories_extensions/),
keeping the folders themselves and each thread's memory mode, and the memory
held for review (see memctl review). Symbolic links
inside the folders are removed, never followed; a memory folder that is itself
a symbolic link is refused and nothing at all is deleted.

On a terminal it asks first; in a script it needs --yes.`,
		Args: cobra.NoArgs,
		Example: `  $ memctl clear
  $ memctl clear --dry-run
  $ memctl clear --yes --json`,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.JSON = f.JSON
			return runOrHook(c.Context(), opts, runF, runClear)
		},
	}
	c.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation")
	c.Flags().BoolVar(&opts.DryRun, "dry-run", false, "list what would be deleted, delete nothing")
	return c
}

func runClear(ctx context.Context, opts *ClearOptions) error {
	home, err := opts.Home()
	if err != nil {
		return err
	}
	targets := []reset.Target{
		clearTarget(opts.OpenStore, home, memversion.V1, true),
		clearTarget(opts.OpenStore, home, memversion.V2, false),
	}
	if !opts.DryRun && !opts.Yes {
		if err := reset.CheckRoots(home); err != nil {
			return err
		}
		if !opts.IO.CanPrompt() {
			return FlagErrorf("clear deletes every memory; pass --yes to confirm when not on a terminal (or --dry-run to preview)")
		}
		fmt.Fprintf(opts.IO.ErrOut, "Delete every memory under %s? [y/N] ", home)
		answer, _ := bufio.NewReader(opts.IO.In).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			opts.IO.Infof("nothing deleted")
			return nil
		}
	}
	res, err := reset.Clear(ctx, home, targets, opts.DryRun)
	if err != nil {
		return err
	}
	if opts.JSON {
		return printJSON(opts.IO.Out, res)
	}
	if opts.DryRun {
		for _, e := range res.Entries {
			fmt.Fprintln(opts.IO.Out, e)
		}
		opts.IO.Infof("would clear %s and %s (%s)", english.Count(len(res.ClearedDatabases), "database", "databases"),
			english.Count(len(res.ClearedFolders), "folder", "folders"), english.Count(len(res.Entries), "entry", "entries"))
		return nil
	}
	opts.IO.Infof("cleared %s and %s", english.Count(len(res.ClearedDatabases), "database", "databases"), english.Count(len(res.ClearedFolders), "folder", "folders"))
	return nil
}

func clearTarget(open func(context.Context, memversion.Version) (*store.Store, error), home string, version memversion.Version, always bool) reset.Target {
	return reset.Target{
		Path:   filepath.Join(home, store.FileName(version)),
		Always: always,
		Open: func(ctx context.Context) (reset.Database, func() error, error) {
			st, err := open(ctx, version)
			if err != nil {
				return nil, nil, err
			}
			return st, st.Close, nil
		},
	}
}
