package cmd

import (
	"context"
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

// ReviewOptions is what `memctl review` needs: injected loaders first,
// then the flag values.
type ReviewOptions struct {
	IO         *IOStreams
	Config     func() (*config.Config, error)
	OpenStore  func(ctx context.Context, version memversion.Version) (*store.Store, error)
	Now        func() time.Time
	MemoryRoot func(version memversion.Version) (string, error)
	// Getwd is the folder whose repository's team files are reviewed.
	Getwd func() (string, error)

	JSON bool
	Stat bool
}

// reviewJSON is the --json document of review: every version's pending
// generation, and every item held for the user (none: empty lists).
type reviewJSON struct {
	Pending []reviewPendingJSON `json:"pending"`
	Held    []heldJSON          `json:"held"`
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
	opts := &ReviewOptions{IO: f.IO, Config: f.Config, OpenStore: f.OpenStore, Now: f.Now, MemoryRoot: f.MemoryRoot, Getwd: os.Getwd}
	c := &cobra.Command{
		Use:   "review",
		Short: "Show what waits for approval: held memory and notes, a pending consolidation",
		Long: `Memory that did not come from your own sessions or your own commands waits here
until you approve it (docs/security.md): a note an agent proposed over MCP
(every one), a memory or note from another machine (sync) or a bundle
(import) that reads like an order to an agent (a command piped into a shell,
a URL to fetch, a destructive git action, an order to ignore instructions,
in any language), and the team files of the working directory's repository
that are not committed, or committed and held by the same rules. Each is
listed with its id, its origin, the lines that held it and its text. Nothing
of it reaches the memory folder, the store or a summary until you approve it:
memctl approve ID (or --all) lets it in, memctl reject ID (or --all) drops it.
A team file that is not committed waits for a commit, not for approve.

With consolidation.review = true, a consolidation that would change the memory
folder works in a staging copy and stops at a pending generation; the memory
folder, the selection marks and what summary injects stay as they were. review
prints what approving it would change in the memory folder: the generation, the
raw memories it selected, the status lines and a git-style diff of every file
(--stat: the status lines alone). memctl approve lands it, memctl reject drops it.

While a generation waits, further consolidations skip (skipped_pending_review).
Nothing waiting prints nothing and exits 0. Under memories.dual_write every
generated version is shown. See docs/history.md.`,
		Args: cobra.NoArgs,
		Example: `  $ memctl review
  $ memctl review --stat
  $ memctl approve --all
  $ memctl reject note-8faec3e0a398`,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.JSON = f.JSON
			return runOrHook(c.Context(), opts, runF, runReview)
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
	if doc.Held, err = waitingItems(cfg, opts.MemoryRoot, opts.Getwd); err != nil {
		return err
	}
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
	if len(doc.Pending) == 0 && len(doc.Held) == 0 {
		opts.IO.Infof("nothing waits for review")
		return nil
	}
	w, ios := opts.IO.Out, opts.IO
	printHeld(ios, doc.Held)
	if len(doc.Held) > 0 {
		ios.Infof("`memctl approve ID` (or --all) lets it in, `memctl reject ID` (or --all) drops it")
		if len(doc.Pending) > 0 {
			fmt.Fprintln(w)
		}
	}
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
	if len(doc.Pending) > 0 {
		ios.Infof("`memctl approve` lands it, `memctl reject` drops it")
	}
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
