package cmd

import (
	"context"
	"errors"
	"fmt"

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

	JSON bool
	// ID is the generation to reject; 0 rejects whatever is pending in
	// every generated version.
	ID int64
}

// rejectJSON is the --json document of reject.
type rejectJSON struct {
	Rejected []rejectedJSON `json:"rejected"`
}

type rejectedJSON struct {
	Version    memversion.Version `json:"version"`
	Generation int64              `json:"generation"`
}

func newRejectCmd(f *Factory, runF func(context.Context, *RejectOptions) error) *cobra.Command {
	opts := &RejectOptions{IO: f.IO, Config: f.Config, OpenStore: f.OpenStore}
	c := &cobra.Command{
		Use:   "reject [N]",
		Short: "Drop the consolidation waiting for review",
		Long: `Settle the pending generation (see memctl review) as rejected: the memory folder,
the selection marks and the baseline stay exactly as they were, and the next
consolidation may run at once. The rejected generation stays in memctl history
until it ages out.

Without N, every generated version's pending generation is rejected; with N,
only that generation of the configured version. Nothing pending exits 0.`,
		Args: cobra.MaximumNArgs(1),
		Example: `  $ memctl review
  $ memctl reject
  $ memctl memories forget 019e1625 && memctl consolidate`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.JSON, opts.ID = f.JSON, 0
			if len(args) == 1 {
				id, err := parseGenerationID(args[0])
				if err != nil {
					return err
				}
				opts.ID = id
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runReject(c.Context(), opts)
		},
	}
	return c
}

func runReject(ctx context.Context, opts *RejectOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	versions := cfg.Versions()
	if opts.ID != 0 {
		versions = []memversion.Version{cfg.Memories.Version}
	}
	doc := rejectJSON{Rejected: []rejectedJSON{}}
	for _, version := range versions {
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
	if len(doc.Rejected) == 0 {
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
