package cmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/consolidate"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/store"
	"github.com/spf13/cobra"
)

// ApproveOptions is what `memctl approve` needs: injected loaders first,
// then the argument values.
type ApproveOptions struct {
	IO         *IOStreams
	Config     func() (*config.Config, error)
	OpenStore  func(ctx context.Context, version memversion.Version) (*store.Store, error)
	Now        func() time.Time
	MemoryRoot func(version memversion.Version) (string, error)

	JSON bool
	// ID is the generation to approve; 0 approves whatever is pending in
	// every generated version.
	ID int64
}

// approveJSON is the --json document of approve.
type approveJSON struct {
	Approved []landedJSON `json:"approved"`
}

func newApproveCmd(f *Factory, runF func(context.Context, *ApproveOptions) error) *cobra.Command {
	opts := &ApproveOptions{IO: f.IO, Config: f.Config, OpenStore: f.OpenStore, Now: f.Now, MemoryRoot: f.MemoryRoot}
	c := &cobra.Command{
		Use:   "approve [N]",
		Short: "Land the consolidation waiting for review",
		Long: `Write the pending generation (see memctl review) into the memory folder and make
its selection marks and baseline the store's, in one journaled step under the
consolidation lock; from then on summary injects it. The six-hour cooldown
starts. The folder's changed paths are printed.

Without N, every generated version's pending generation is approved; with N,
only that generation of the configured version. Nothing pending exits 0.
A generation built from a memory forgotten since it was made is refused: reject
it and consolidate again.`,
		Args: cobra.MaximumNArgs(1),
		Example: `  $ memctl review
  $ memctl approve
  $ memctl approve 7 --json`,
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
			return runApprove(c.Context(), opts)
		},
	}
	return c
}

func runApprove(ctx context.Context, opts *ApproveOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	versions := cfg.Versions()
	if opts.ID != 0 {
		versions = []memversion.Version{cfg.Memories.Version}
	}
	doc := approveJSON{Approved: []landedJSON{}}
	for _, version := range versions {
		res, ok, err := approveVersion(ctx, opts, cfg, version)
		if err != nil {
			return err
		}
		if ok {
			doc.Approved = append(doc.Approved, landedJSON{Version: version, LandResult: res})
		}
	}
	if opts.JSON {
		return printJSON(opts.IO.Out, doc)
	}
	if len(doc.Approved) == 0 {
		opts.IO.Infof("nothing waits for review")
	}
	for _, a := range doc.Approved {
		opts.IO.Infof("%s: approved generation %d (%d files changed); summary injects it from now on", a.Version, a.Generation, len(a.Changes))
	}
	return nil
}

// approveVersion lands one version's pending generation; ok is false when
// none was pending (and no id was asked for).
func approveVersion(ctx context.Context, opts *ApproveOptions, cfg *config.Config, version memversion.Version) (consolidate.LandResult, bool, error) {
	root, err := opts.MemoryRoot(version)
	if err != nil {
		return consolidate.LandResult{}, false, err
	}
	st, err := opts.OpenStore(ctx, version)
	if err != nil {
		return consolidate.LandResult{}, false, err
	}
	defer st.Close()
	if _, pending, err := st.PendingGeneration(ctx); err != nil {
		return consolidate.LandResult{}, false, err
	} else if !pending && opts.ID == 0 {
		return consolidate.LandResult{}, false, nil
	}
	res, err := consolidate.Approve(ctx, consolidate.OnStore(st), consolidate.LandOptions{Root: root, WorkerID: workerID(),
		Keep: cfg.Consolidation.KeepGenerations, Now: opts.Now}, opts.ID)
	if err != nil {
		if opts.ID != 0 {
			if _, lerr := lookupGeneration(ctx, st, version, opts.ID); lerr != nil {
				return res, false, lerr
			}
		}
		return res, false, approveError(version, err)
	}
	reportLanding(ctx, opts.IO, st, root, res, opts.JSON)
	return res, true, nil
}

// approveError says what to do when an approve is refused.
func approveError(version memversion.Version, err error) error {
	var forgotten *consolidate.ForgottenError
	if errors.As(err, &forgotten) {
		return withHint(fmt.Errorf("%s: %w", version, err), "`memctl reject`, then `memctl consolidate`, builds it again without them")
	}
	if errors.Is(err, consolidate.ErrNoPending) {
		return withHint(fmt.Errorf("%s: %w", version, err), "`memctl review` shows what waits")
	}
	return landError(version, err)
}
