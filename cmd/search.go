package cmd

import (
	"fmt"
	"strings"

	"github.com/memctl/memctl/pkg/store"
	"github.com/spf13/cobra"
)

func newSearchCmd(f *Factory) *cobra.Command {
	var limit int
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
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 1 {
				return FlagErrorf("--limit must be at least 1")
			}
			cfg, err := f.Config()
			if err != nil {
				return err
			}
			red, err := redactor(cfg)
			if err != nil {
				return err
			}
			st, err := f.OpenStore(cmd.Context(), cfg.Memories.Version)
			if err != nil {
				return err
			}
			defer st.Close()
			hits, err := st.Search(cmd.Context(), strings.Join(args, " "), limit)
			if err != nil {
				return err
			}
			for i := range hits {
				hits[i].Snippet = red(hits[i].Snippet)
			}
			if f.JSON {
				return printJSON(f.IO.Out, nonNilSlice(hits))
			}
			if len(hits) == 0 {
				f.infof("no matches")
				return nil
			}
			tb := newTable(f.IO, "SCORE", "KIND", "WHERE", "SNIPPET")
			for _, h := range hits {
				tb.add(fmt.Sprintf("%.3g", h.Score), h.Kind, hitWhere(h), shorten(h.Snippet, 100))
			}
			return tb.print()
		},
	}
	c.Flags().IntVar(&limit, "limit", 20, "at most `N` results")
	return c
}

func hitWhere(h store.Hit) string {
	if h.Path != "" {
		return h.Path
	}
	return h.ThreadID
}
