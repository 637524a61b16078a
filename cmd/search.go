package cmd

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/textcut"
	"github.com/memctl/memctl/pkg/config"
	"github.com/memctl/memctl/pkg/store"
	"github.com/spf13/cobra"
)

// SearchOptions is what `memctl search` needs: injected loaders first,
// then the arguments and flag values.
type SearchOptions struct {
	IO        *IOStreams
	Config    func() (*config.Config, error)
	OpenStore func(ctx context.Context, version string) (*store.Store, error)
	Now       func() time.Time

	JSON  bool
	Query string
	Limit int
}

func newSearchCmd(f *Factory, runF func(context.Context, *SearchOptions) error) *cobra.Command {
	opts := &SearchOptions{IO: f.IO, Config: f.Config, OpenStore: f.OpenStore, Now: f.Now}
	c := &cobra.Command{
		Use:   "search QUERY",
		Short: "Ranked full-text search over raw memories, summaries and memory files",
		Long: `Search the raw memories, rollout summaries and memory folder files of the
configured memory version, best match first (SQLite FTS5, bm25). Every word of
the query must match; the last word also matches as a prefix. The index follows
extract, consolidate, forget, prune and clear.`,
		Args: cobra.MinimumNArgs(1),
		Example: `  $ memctl search flaky migration
  $ memctl search "go test race" --limit 5 --json`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.JSON = f.JSON
			opts.Query = strings.Join(args, " ")
			if opts.Limit < 1 {
				return FlagErrorf("--limit must be at least 1")
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runSearch(c.Context(), opts)
		},
	}
	c.Flags().IntVar(&opts.Limit, "limit", 20, "at most `N` results")
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
	hits, err := st.Search(ctx, opts.Query, opts.Limit)
	if err != nil {
		return err
	}
	for i := range hits {
		hits[i].Snippet = red(hits[i].Snippet)
	}
	if opts.JSON {
		return printJSON(opts.IO.Out, nonNilSlice(hits))
	}
	if len(hits) == 0 {
		opts.IO.Infof("no matches")
		return nil
	}
	tb := newTable(opts.IO, "SCORE", "KIND", "WHERE", "SNIPPET")
	for _, h := range hits {
		tb.add(fmt.Sprintf("%.3g", h.Score), h.Kind, hitWhere(h), textcut.LineRunes(h.Snippet, 100))
	}
	return tb.print()
}

func hitWhere(h store.Hit) string {
	if h.Path != "" {
		return h.Path
	}
	return h.ThreadID
}
