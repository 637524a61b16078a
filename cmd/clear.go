package cmd

import (
	"bufio"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/pkg/reset"
	"github.com/memctl/memctl/pkg/store"
	"github.com/spf13/cobra"
)

func newClearCmd(f *Factory) *cobra.Command {
	var yes, dryRun bool
	c := &cobra.Command{
		Use:   "clear",
		Short: "Delete every memory of both versions (databases and folders)",
		Long: `Empty the raw memories, jobs and baseline of both versions' databases and the
contents of the memory folders (memories/, memories_v2/, memories_extensions/),
keeping the folders themselves and each thread's memory mode. Symbolic links
inside the folders are removed, never followed; a memory folder that is itself
a symbolic link is refused and nothing at all is deleted.

On a terminal it asks first; in a script it needs --yes.`,
		Args: cobra.NoArgs,
		Example: `  $ memctl clear
  $ memctl clear --dry-run
  $ memctl clear --yes --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			home, err := f.Home()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			targets := []reset.Target{
				clearTarget(f, home, "v1", true),
				clearTarget(f, home, "v2", false),
			}
			if !dryRun && !yes {
				if err := reset.CheckRoots(home); err != nil {
					return err
				}
				if !f.IO.CanPrompt() {
					return FlagErrorf("clear deletes every memory; pass --yes to confirm when not on a terminal (or --dry-run to preview)")
				}
				fmt.Fprintf(f.IO.ErrOut, "Delete every memory under %s? [y/N] ", home)
				answer, _ := bufio.NewReader(f.IO.In).ReadString('\n')
				if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
					f.infof("nothing deleted")
					return nil
				}
			}
			res, err := reset.Clear(ctx, home, targets, dryRun)
			if err != nil {
				return err
			}
			if f.JSON {
				return printJSON(f.IO.Out, res)
			}
			if dryRun {
				for _, e := range res.Entries {
					fmt.Fprintln(f.IO.Out, e)
				}
				f.infof("would clear %d databases and %d folders (%d entries)", len(res.ClearedDatabases), len(res.ClearedFolders), len(res.Entries))
				return nil
			}
			f.infof("cleared %d databases and %d folders", len(res.ClearedDatabases), len(res.ClearedFolders))
			return nil
		},
	}
	c.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask for confirmation")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "list what would be deleted, delete nothing")
	return c
}

func clearTarget(f *Factory, home, version string, always bool) reset.Target {
	return reset.Target{
		Path:   filepath.Join(home, store.FileName(version)),
		Always: always,
		Open: func(ctx context.Context) (reset.Database, func() error, error) {
			st, err := f.OpenStore(ctx, version)
			if err != nil {
				return nil, nil, err
			}
			return st, st.Close, nil
		},
	}
}
