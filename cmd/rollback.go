package cmd

import (
	"context"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/consolidate"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/store"
	"github.com/spf13/cobra"
)

// RollbackOptions is what `memctl rollback` needs: injected loaders first,
// then the argument and flag values.
type RollbackOptions struct {
	IO         *IOStreams
	Config     func() (*config.Config, error)
	OpenStore  func(ctx context.Context, version memversion.Version) (*store.Store, error)
	Now        func() time.Time
	MemoryRoot func(version memversion.Version) (string, error)

	JSON  bool
	ID    int64
	Force bool
}

func newRollbackCmd(f *Factory, runF func(context.Context, *RollbackOptions) error) *cobra.Command {
	opts := &RollbackOptions{IO: f.IO, Config: f.Config, OpenStore: f.OpenStore, Now: f.Now, MemoryRoot: f.MemoryRoot}
	c := &cobra.Command{
		Use:   "rollback N",
		Short: "Restore the memory folder of an earlier generation",
		Long: `Write generation N (see memctl history) back into the memory folder, byte for
byte: MEMORY.md, memory_summary.md, skills/, the rollout summaries and
raw_memories.md it had. extensions/ (ad hoc notes and resources) is left as it
is. The selection marks and the baseline of the next consolidation become N's
too, all in one journaled step under the consolidation lock: an interrupted
rollback is finished by the next approve, rollback or consolidate. The rollback
is recorded as a new generation, so it can be undone the same way, and the
six-hour cooldown starts.

The next consolidation starts from N: raw memories added or changed since show
up in its diff and are merged in again, so forget (memctl memories forget) or
pin what you do not want to see return.

A generation built from a memory you forgot since cannot be restored: the
forget purged its files (memctl history marks it purged). One recorded by an
older memctl from a memory forgotten then is refused; --force restores it
anyway and asks the next consolidation to take the forgotten memories out
again, cooldown or not. While a generation waits for review, approve or
reject it first.

It works on the configured memory version (--memory-version picks the other).`,
		Args: cobra.ExactArgs(1),
		Example: `  $ memctl history
  $ memctl rollback 3
  $ memctl rollback 3 --json`,
		RunE: func(c *cobra.Command, args []string) error {
			id, err := parseGenerationID(args[0])
			if err != nil {
				return err
			}
			opts.JSON, opts.ID = f.JSON, id
			return runOrHook(c.Context(), opts, runF, runRollback)
		},
	}
	c.Flags().BoolVar(&opts.Force, "force", false, "restore a generation built from memories forgotten since")
	return c
}

func runRollback(ctx context.Context, opts *RollbackOptions) error {
	cfg, root, err := configAndRoot(opts.Config, opts.MemoryRoot)
	if err != nil {
		return err
	}
	version := cfg.Memories.Version
	st, err := opts.OpenStore(ctx, version)
	if err != nil {
		return err
	}
	defer st.Close()
	if _, err := lookupGeneration(ctx, st, version, opts.ID); err != nil {
		return err
	}
	res, err := consolidate.Rollback(ctx, consolidate.OnStore(st), consolidate.LandOptions{Root: root, WorkerID: workerID(),
		Keep: cfg.Consolidation.KeepGenerations, Now: opts.Now, Force: opts.Force}, opts.ID)
	if err != nil {
		return landError(version, err)
	}
	reportLanding(ctx, opts.IO, st, root, res, opts.JSON)
	if opts.JSON {
		return printJSON(opts.IO.Out, landedJSON{Version: version, LandResult: res})
	}
	if res.Generation == res.RestoredFrom {
		opts.IO.Infof("%s: the memory folder already holds generation %d; nothing was restored or recorded", version, res.Generation)
		return nil
	}
	opts.IO.Infof("%s: restored generation %d as generation %d (%d files changed)", version, res.RestoredFrom, res.Generation, len(res.Changes))
	return nil
}
