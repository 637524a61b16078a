package cmd

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/project"
	"github.com/memctl/memctl/internal/store"
	"github.com/memctl/memctl/internal/textcut"
	"github.com/spf13/cobra"
)

// SearchOptions is what `memctl search` needs: injected loaders first,
// then the arguments and flag values.
type SearchOptions struct {
	IO        *IOStreams
	Config    func() (*config.Config, error)
	OpenStore func(ctx context.Context, version memversion.Version) (*store.Store, error)
	Now       func() time.Time
	// MemoryRoot locates the memory folder, whose project index places
	// file hits.
	MemoryRoot func(version memversion.Version) (string, error)

	JSON  bool
	Query string
	Limit int
	Scope ProjectScope
}

// searchHitJSON is one result of search --json: the store's hit and where
// it sits relative to the searched project.
type searchHitJSON struct {
	store.Hit
	// Scope is project, shared or other (see docs/projects.md); empty with
	// --all-projects.
	Scope string `json:"scope,omitempty"`
}

func newSearchCmd(f *Factory, runF func(context.Context, *SearchOptions) error) *cobra.Command {
	opts := &SearchOptions{IO: f.IO, Config: f.Config, OpenStore: f.OpenStore, Now: f.Now, MemoryRoot: f.MemoryRoot}
	c := &cobra.Command{
		Use:   "search QUERY",
		Short: "Ranked full-text search over raw memories, summaries and memory files",
		Long: `Search the raw memories, rollout summaries and memory folder files of the
configured memory version, best match first (SQLite FTS5, bm25). Every word of
the query must match; the last word also matches as a prefix. The index follows
extract, consolidate, forget, prune and clear; the raw memory of a thread taken
out of memory (memctl threads disable) is not found until it is enabled again.

A memory is one result, however many of its texts match (its raw memory,
its rollout summary, its file in the memory folder): the best of them is
shown. On a terminal a memory is named by the first characters of its id,
which every command takes.

A query counts at most 64 distinct words within its first 4,096 bytes; the
rest of a longer one (pasted text) is left out, with a warning.

Results of the working directory's project come first, then the personal
layer and folder-wide files, then other projects; each says which (--json:
scope). --project searches from another project's point of view and
--all-projects ranks everything alike.

On a terminal SCORE is relative to the best match (100%); piped and in --json
it is the raw score (higher is better).`,
		Args: cobra.MinimumNArgs(1),
		Example: `  $ memctl search flaky migration
  $ memctl search "go test race" --limit 5 --json`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.JSON = f.JSON
			opts.Query = strings.Join(args, " ")
			if opts.Limit < 1 {
				return FlagErrorf("--limit must be at least 1")
			}
			if err := opts.Scope.check(c); err != nil {
				return err
			}
			return runOrHook(c.Context(), opts, runF, runSearch)
		},
	}
	c.Flags().IntVar(&opts.Limit, "limit", 20, "at most `N` results")
	opts.Scope.addFlags(c, "rank first the memory")
	return c
}

func runSearch(ctx context.Context, opts *SearchOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	red, err := redactor(cfg)
	if err != nil {
		return err
	}
	st, err := opts.OpenStore(ctx, cfg.Memories.Version)
	if err != nil {
		return err
	}
	defer st.Close()
	root, err := optionalRoot(opts.MemoryRoot, cfg.Memories.Version) // without a memory folder, file hits count as shared
	if err != nil {
		return err
	}
	scope, err := opts.Scope.resolve(ctx, cfg, st, root)
	if err != nil {
		return err
	}
	ix, _, _ := projectsKnown(ctx, nil, root)
	so := store.SearchOptions{Limit: opts.Limit, ProjectKey: scope.Key}
	if e, ok := ix.ByKey(scope.Key); ok {
		so.ProjectFiles = memdir.ProjectsDir + "/" + e.Dir + "/"
		so.ProjectPaths = e.Files
	}
	if qt := store.SearchTerms(opts.Query); qt.Cut {
		opts.IO.Warnf("%s", qt.Note())
	}
	hits, err := st.SearchMemories(ctx, opts.Query, so)
	if err != nil {
		return err
	}
	out := make([]searchHitJSON, len(hits))
	for i, h := range hits {
		h.Snippet = red(h.Snippet)
		out[i] = searchHitJSON{Hit: h}
		if scope.Key != "" {
			out[i].Scope, out[i].Project = ix.ScopeOf(scope.Key, h.Path, h.ProjectKey, h.Project)
		}
	}
	if scope.Key != "" {
		sort.SliceStable(out, func(i, j int) bool { return project.ScopeRank(out[i].Scope) < project.ScopeRank(out[j].Scope) })
	}
	if opts.JSON {
		return printJSON(opts.IO.Out, out)
	}
	if len(hits) == 0 {
		opts.IO.Infof("no matches")
		return nil
	}
	if scope.Key != "" {
		opts.IO.Infof("project %s first (--all-projects ranks every project alike)", scope.Name)
	}
	// SCOPE and ORIGIN come last: piped output keeps the columns scripts read.
	tb := newTable(opts.IO, "SCORE", "KIND", "WHERE", "SNIPPET", "SCOPE", "ORIGIN")
	tb.flex = 3 // the snippet is cut to fit
	tb.paths("WHERE").shrink("SNIPPET", 40).shrink("SCOPE", 12).shrink("ORIGIN", 12).shrink("WHERE", 24).drop("ORIGIN").drop("SCOPE").drop("KIND").
		shrink("SNIPPET", 24).shrink("WHERE", minIDWidth).shrink("SNIPPET", minFlexWidth)
	for _, h := range out {
		where := hitWhere(h.Hit)
		if opts.IO.StdoutTTY && h.Path == "" && len(where) > minIDWidth {
			// A unique prefix names a memory on every command; the rest
			// of the id is room the snippet needs.
			where = where[:minIDWidth]
		}
		tb.add(scoreCell(opts.IO, h.Score, out[0].Score), h.Kind, where, textcut.LineRunes(h.Snippet, 100), orDash(hitScope(h)), hitOrigin(h.Hit))
	}
	return tb.print()
}

// scoreCell shows a hit's score: on a terminal relative to the best hit
// ("100%", "97%"), since bm25's raw values ("1.94e-06") mean nothing to a
// reader; piped, the raw score as before.
func scoreCell(ios *IOStreams, score, best float64) string {
	if !ios.StdoutTTY {
		return fmt.Sprintf("%.3g", score)
	}
	if best <= 0 {
		return "-"
	}
	return fmt.Sprintf("%d%%", int(math.Round(100*score/best)))
}

// hitOrigin is where a hit's memory came from; "-" for the files memctl
// wrote.
func hitOrigin(h store.Hit) string {
	if h.Origin == nil {
		return "-"
	}
	return h.Origin.String()
}

// hitScope says where a hit sits: its scope, with the project's name when
// it is another project's.
func hitScope(h searchHitJSON) string {
	if h.Scope == project.ScopeOther && h.Project != "" {
		return "other: " + h.Project
	}
	return h.Scope
}

func hitWhere(h store.Hit) string {
	if h.Path != "" {
		return h.Path
	}
	return h.ThreadID
}
