package cmd

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/consolidate"
	"github.com/memctl/memctl/internal/english"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/store"
	"github.com/spf13/cobra"
)

// ReviewOptions is what `memctl review` needs: injected loaders first,
// then the flag values.
type ReviewOptions struct {
	IO         *IOStreams
	Config     func() (*config.Config, error)
	OpenStore  func(ctx context.Context, version memversion.Version) (*store.Store, error)
	Now        func() time.Time
	MemoryRoot func(version memversion.Version) (string, error)

	JSON bool
	Stat bool
}

// reviewJSON is the --json document of review: every version's pending
// generation (none: an empty list).
type reviewJSON struct {
	Pending []reviewPendingJSON `json:"pending"`
}

// reviewPendingJSON is one pending generation and what approving it would
// change in the memory folder.
type reviewPendingJSON struct {
	Version    memversion.Version      `json:"version"`
	Generation store.Generation        `json:"generation"`
	Files      []consolidate.FileDiff  `json:"files"`
	Inputs     []store.GenerationInput `json:"inputs"`
}

func newReviewCmd(f *Factory, runF func(context.Context, *ReviewOptions) error) *cobra.Command {
	opts := &ReviewOptions{IO: f.IO, Config: f.Config, OpenStore: f.OpenStore, Now: f.Now, MemoryRoot: f.MemoryRoot}
	c := &cobra.Command{
		Use:   "review",
		Short: "Show the consolidation waiting for approval",
		Long: `With consolidation.review = true, a consolidation that would change the memory
folder works in a staging copy and stops at a pending generation; the memory
folder, the selection marks and what summary injects stay as they were. review
prints what approving it would change in the memory folder: the generation, the
raw memories it selected, the status lines and a git-style diff of every file
(--stat: the status lines alone). memctl approve lands it, memctl reject drops it.

While a generation waits, further consolidations skip (skipped_pending_review).
Nothing pending prints nothing and exits 0. Under memories.dual_write every
generated version is shown. See docs/history.md.`,
		Args: cobra.NoArgs,
		Example: `  $ memctl review
  $ memctl review --stat
  $ memctl approve`,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.JSON = f.JSON
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runReview(c.Context(), opts)
		},
	}
	c.Flags().BoolVar(&opts.Stat, "stat", false, "print the changed paths without their diffs")
	return c
}

func runReview(ctx context.Context, opts *ReviewOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	doc := reviewJSON{Pending: []reviewPendingJSON{}}
	for _, version := range cfg.Versions() {
		p, ok, err := pendingReview(ctx, opts, version)
		if err != nil {
			return err
		}
		if ok {
			doc.Pending = append(doc.Pending, p)
		}
	}
	if opts.JSON {
		return printJSON(opts.IO.Out, doc)
	}
	if len(doc.Pending) == 0 {
		opts.IO.Infof("nothing waits for review")
		return nil
	}
	w, ios := opts.IO.Out, opts.IO
	for i, p := range doc.Pending {
		if i > 0 {
			fmt.Fprintln(w)
		}
		g := p.Generation
		fmt.Fprintf(w, "%s %d (%s, pending review)\n", ios.Bold("generation"), g.ID, p.Version)
		fmt.Fprintf(w, "  created   %s\n  mode      %s\n", rfc3339(g.CreatedAt), orDash(g.Mode))
		if m := modelName(g.Provider, g.Model); m != "" {
			fmt.Fprintf(w, "  model     %s\n", ios.Text(m))
		}
		fmt.Fprintf(w, "  tokens    %d\n  inputs    %s\n", g.TotalTokens, english.Count(g.Selected, "raw memory", "raw memories"))
		for _, in := range p.Inputs {
			var marks []string
			if in.Pinned {
				marks = append(marks, "pinned")
			}
			if in.UserAsserted {
				marks = append(marks, "user-asserted")
			}
			mark := ""
			if len(marks) > 0 {
				mark = " (" + strings.Join(marks, ", ") + ")"
			}
			fmt.Fprintf(w, "    %s%s\n", ios.Text(in.ThreadID), mark)
		}
		fmt.Fprintln(w)
		if len(p.Files) == 0 {
			fmt.Fprintln(w, "approving it changes no file")
			continue
		}
		for _, fd := range p.Files {
			fmt.Fprintf(w, "%s %s\n", fd.Status, ios.Text(fd.Path))
		}
		if opts.Stat {
			continue
		}
		for _, fd := range p.Files {
			fmt.Fprintln(w)
			fmt.Fprint(w, ios.Text(fd.Diff)) // memory files hold a transcript's words
		}
	}
	ios.Infof("`memctl approve` lands it, `memctl reject` drops it")
	return nil
}

// pendingReview loads a version's pending generation and diffs it against
// the memory folder as it is (extensions/ aside, which a landing leaves
// alone).
func pendingReview(ctx context.Context, opts *ReviewOptions, version memversion.Version) (reviewPendingJSON, bool, error) {
	st, err := opts.OpenStore(ctx, version)
	if err != nil {
		return reviewPendingJSON{}, false, err
	}
	defer st.Close()
	g, ok, err := st.PendingGeneration(ctx)
	if err != nil || !ok {
		return reviewPendingJSON{}, false, err
	}
	root, err := opts.MemoryRoot(version)
	if err != nil {
		return reviewPendingJSON{}, false, err
	}
	files, err := st.GenerationFiles(ctx, g.ID)
	if err != nil {
		return reviewPendingJSON{}, false, err
	}
	cur, err := consolidate.FolderFiles(root)
	if err != nil {
		return reviewPendingJSON{}, false, err
	}
	p := reviewPendingJSON{Version: version, Generation: g,
		Files: consolidate.DiffFiles(cur, files, consolidate.Landed)}
	if p.Files == nil {
		p.Files = []consolidate.FileDiff{}
	}
	if opts.Stat {
		for i := range p.Files {
			p.Files[i].Diff = ""
		}
	}
	if p.Inputs, err = st.GenerationInputs(ctx, g.ID); err != nil {
		return p, false, err
	}
	if p.Inputs == nil {
		p.Inputs = []store.GenerationInput{}
	}
	return p, true, nil
}
