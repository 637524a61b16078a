package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/consolidate"
	"github.com/memctl/memctl/internal/english"
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
	// Getwd is the folder whose repository's team files are reviewed.
	Getwd func() (string, error)

	JSON bool
	// ID is the generation to approve; 0 approves whatever is pending in
	// every generated version.
	ID int64
	// Held are the ids of held items to let in; All lets in every held
	// item and lands every pending generation.
	Held []string
	All  bool
}

// approveJSON is the --json document of approve: the generations landed
// and the held items let in.
type approveJSON struct {
	Approved []landedJSON       `json:"approved"`
	Held     []approvedHeldJSON `json:"held"`
}

func newApproveCmd(f *Factory, runF func(context.Context, *ApproveOptions) error) *cobra.Command {
	opts := &ApproveOptions{IO: f.IO, Config: f.Config, OpenStore: f.OpenStore, Now: f.Now, MemoryRoot: f.MemoryRoot, Getwd: os.Getwd}
	c := &cobra.Command{
		Use:   "approve [N|ID...] [--all]",
		Short: "Let in held memory, or land the consolidation waiting for review",
		Long: `Let in what memctl review shows as held, by ID (or a unique prefix of it): a
note an agent proposed is written to the memory folder with its origin, a
memory from another machine or a bundle is stored, a team file's bytes are
recorded as approved so summary gives it; the next consolidation folds the
notes and memories in. The quarantine's rules for text from elsewhere are
what approval lifts: a line that orders an AI around or sends secrets away is
taken out even then. --all lets in every held item and lands every pending
generation; a team file that is not committed waits for a commit.

Write the pending generation (see memctl review) into the memory folder and make
its selection marks and baseline the store's, in one journaled step under the
consolidation lock; from then on summary injects it. The six-hour cooldown
starts. The folder's changed paths are printed.

Without N or ID, every generated version's pending generation is approved; with
N, only that generation of the configured version. Nothing pending exits 0.
A generation built from a memory forgotten since it was made is refused: reject
it and consolidate again.`,
		Args: cobra.ArbitraryArgs,
		Example: `  $ memctl review
  $ memctl approve note-8faec3e0a398
  $ memctl approve --all
  $ memctl approve 7 --json`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.JSON = f.JSON
			var err error
			if opts.ID, opts.Held, err = reviewArgs(args); err != nil {
				return err
			}
			return runOrHook(c.Context(), opts, runF, runApprove)
		},
	}
	c.Flags().BoolVar(&opts.All, "all", false, "let in every held item and land every pending generation")
	return c
}

func runApprove(ctx context.Context, opts *ApproveOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	doc := approveJSON{Approved: []landedJSON{}, Held: []approvedHeldJSON{}}
	items, err := waitingItems(cfg, opts.MemoryRoot, opts.Getwd)
	if err != nil {
		return err
	}
	if opts.All || len(opts.Held) > 0 {
		picked, err := pickHeld(items, opts.Held)
		if err != nil {
			return err
		}
		var later []heldJSON
		if opts.All {
			picked, later = approvable(picked)
		}
		doc.Held, err = approveHeld(ctx, picked, opts.MemoryRoot, opts.OpenStore, opts.Now, cfg)
		if err != nil {
			return err
		}
		if !opts.JSON {
			for _, h := range later {
				opts.IO.Infof("%s (%s) is %s: only a commit makes it team memory", h.ID, h.Subject, h.State)
			}
		}
		items = nil
	}
	versions := reviewedVersions(cfg, opts.ID, opts.Held, opts.All)
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
	for _, h := range doc.Held {
		opts.IO.Infof("%s", approvedLine(h))
	}
	if len(doc.Approved) == 0 && len(doc.Held) == 0 {
		if len(items) > 0 {
			opts.IO.Infof("no consolidation waits for review; %s %s held (`memctl review`): `memctl approve ID` or `memctl approve --all` lets %s in",
				english.Count(len(items), "item", "items"), english.Noun(len(items), "is", "are"), english.Noun(len(items), "it", "them"))
		} else if versions != nil {
			opts.IO.Infof("nothing waits for review")
		}
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

// approvedLine says what approving a held item did.
func approvedLine(h approvedHeldJSON) string {
	switch {
	case h.Path != "":
		line := fmt.Sprintf("approved %s: wrote %s; the next consolidation folds it in (`memctl consolidate`)", h.ID, h.Path)
		if h.Removed > 0 {
			line += fmt.Sprintf("; %s that order an AI or send secrets away were taken out", english.Count(h.Removed, "line", "lines"))
		}
		return line
	case h.Stored:
		return fmt.Sprintf("approved %s: stored; the next consolidation folds it in (`memctl consolidate`)", h.ID)
	case len(h.Versions) == 0:
		return fmt.Sprintf("approved %s: summary gives this team file from now on, while its bytes stay as they are", h.ID)
	}
	return fmt.Sprintf("approved %s: not stored, its memory was forgotten here", h.ID)
}

// approvable splits held items into those approve can let in and the
// team files only a commit can.
func approvable(items []heldJSON) (now, later []heldJSON) {
	for _, h := range items {
		if h.Approvable {
			now = append(now, h)
		} else {
			later = append(later, h)
		}
	}
	return now, later
}

// reviewedVersions are the memory versions whose pending generation
// approve or reject answers: the configured one for a generation number
// id, none when only held items are named, every generated version
// otherwise.
func reviewedVersions(cfg *config.Config, id int64, held []string, all bool) []memversion.Version {
	switch {
	case id != 0:
		return []memversion.Version{cfg.Memories.Version}
	case len(held) > 0 && !all:
		return nil // held items only
	}
	return cfg.Versions()
}

// reviewArgs reads approve's and reject's arguments: at most one
// generation number (N or #N), and the ids of held items.
func reviewArgs(args []string) (int64, []string, error) {
	var gen int64
	var held []string
	for _, a := range args {
		if strings.TrimLeft(strings.TrimPrefix(a, "#"), "0123456789") == "" {
			id, err := parseGenerationID(a)
			if err != nil {
				return 0, nil, err
			}
			if gen != 0 {
				return 0, nil, FlagErrorf("one generation at a time: %d and %d", gen, id)
			}
			gen = id
			continue
		}
		held = append(held, a)
	}
	return gen, held, nil
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
