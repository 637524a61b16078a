package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/store"
	"github.com/spf13/cobra"
)

// RejectOptions is what `memctl reject` needs: injected loaders first,
// then the argument values.
type RejectOptions struct {
	IO        *IOStreams
	Config    func() (*config.Config, error)
	OpenStore func(ctx context.Context, version memversion.Version) (*store.Store, error)
	// MemoryRoot finds each version's review queue.
	MemoryRoot func(version memversion.Version) (string, error)
	// Getwd is the folder whose repository's team files are reviewed.
	Getwd func() (string, error)

	JSON bool
	// ID is the generation to reject; 0 rejects whatever is pending in
	// every generated version.
	ID int64
	// Held are the ids of held items to drop; All drops every held item
	// and rejects every pending generation.
	Held []string
	All  bool
}

// rejectJSON is the --json document of reject: the generations rejected
// and the ids of the held items dropped.
type rejectJSON struct {
	Rejected []rejectedJSON `json:"rejected"`
	Held     []string       `json:"held"`
}

type rejectedJSON struct {
	Version    memversion.Version `json:"version"`
	Generation int64              `json:"generation"`
}

func newRejectCmd(f *Factory, runF func(context.Context, *RejectOptions) error) *cobra.Command {
	opts := &RejectOptions{IO: f.IO, Config: f.Config, OpenStore: f.OpenStore, MemoryRoot: f.MemoryRoot, Getwd: os.Getwd}
	c := &cobra.Command{
		Use:   "reject [N|ID...] [--all]",
		Short: "Drop held memory, or the consolidation waiting for review",
		Long: `Drop what memctl review shows as held, by ID (or a unique prefix of it): the
note or memory is deleted from the review queue and never reaches memory.
Importing the bundle again, or a later change of it in the sync log, holds it
again. A team file is the repository's: fix or delete it there. --all drops
every held item and rejects every pending generation.

Settle the pending generation (see memctl review) as rejected: the memory folder,
the selection marks and the baseline stay exactly as they were, and the next
consolidation may run at once. The rejected generation stays in memctl history
until it ages out.

Without N or ID, every generated version's pending generation is rejected;
with N, only that generation of the configured version. Nothing pending exits 0.`,
		Args: cobra.ArbitraryArgs,
		Example: `  $ memctl review
  $ memctl reject memory-3f2a9c1e4b07
  $ memctl reject --all
  $ memctl memories forget 019e1625 && memctl consolidate`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.JSON = f.JSON
			var err error
			if opts.ID, opts.Held, err = reviewArgs(args); err != nil {
				return err
			}
			return runOrHook(c.Context(), opts, runF, runReject)
		},
	}
	c.Flags().BoolVar(&opts.All, "all", false, "drop every held item and reject every pending generation")
	return c
}

func runReject(ctx context.Context, opts *RejectOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	doc := rejectJSON{Rejected: []rejectedJSON{}, Held: []string{}}
	if opts.All || len(opts.Held) > 0 {
		items, err := waitingItems(cfg, opts.MemoryRoot, opts.Getwd)
		if err != nil {
			return err
		}
		picked, err := pickHeld(items, opts.Held)
		if err != nil {
			return err
		}
		if opts.All {
			picked = queued(picked) // a team file stays the repository's
		}
		if doc.Held, err = rejectHeld(picked, opts.MemoryRoot); err != nil {
			return err
		}
	}
	for _, version := range reviewedVersions(cfg, opts.ID, opts.Held, opts.All) {
		id, err := rejectVersion(ctx, opts, version)
		if err != nil {
			return err
		}
		if id != 0 {
			doc.Rejected = append(doc.Rejected, rejectedJSON{Version: version, Generation: id})
		}
	}
	if opts.JSON {
		return printJSON(opts.IO.Out, doc)
	}
	for _, id := range doc.Held {
		opts.IO.Infof("dropped %s; it does not reach memory", id)
	}
	if len(doc.Rejected) == 0 && len(doc.Held) == 0 {
		opts.IO.Infof("nothing waits for review")
	}
	for _, r := range doc.Rejected {
		opts.IO.Infof("%s: rejected generation %d; the memory folder is unchanged", r.Version, r.Generation)
	}
	return nil
}

// rejectVersion rejects one version's pending generation (opts.ID when
// set) and returns its id, 0 when nothing was pending.
func rejectVersion(ctx context.Context, opts *RejectOptions, version memversion.Version) (int64, error) {
	st, err := opts.OpenStore(ctx, version)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	id := opts.ID
	if id == 0 {
		g, ok, err := st.PendingGeneration(ctx)
		if err != nil || !ok {
			return 0, err
		}
		id = g.ID
	} else if _, err := lookupGeneration(ctx, st, version, id); err != nil {
		return 0, err
	}
	if err := st.RejectGeneration(ctx, id); err != nil {
		if errors.Is(err, store.ErrNotPending) {
			return 0, withHint(fmt.Errorf("%s: %w", version, err), "only a generation pending review can be rejected; `memctl rollback` restores an older one")
		}
		return 0, err
	}
	return id, nil
}
