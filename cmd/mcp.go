package cmd

import (
	"context"
	"errors"

	"github.com/memctl/memctl/pkg/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

func newMCPCmd(f *Factory) *cobra.Command {
	var readOnly bool
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the memory tools to any agent over MCP (stdio)",
		Long: `Serve the memory folder of the configured version over the Model Context
Protocol on stdin/stdout, for any MCP-capable agent. Tools:

  list             list a folder of the memory (shallow, paginated)
  read             read a memory file, by lines
  search           find lines in memory files (Codex's matching modes), or
                   mode "ranked" for a full-text search of the raw memories
  add_ad_hoc_note  write a note the next consolidation folds into memory

Paths stay inside the memory folder: '..', absolute paths, hidden names and
symbolic links are refused. Every text returned goes through the redactor.`,
		Args: cobra.NoArgs,
		Example: `  $ memctl mcp
  # Claude Code (.mcp.json): {"mcpServers": {"memctl": {"command": "memctl", "args": ["mcp"]}}}`,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.Config()
			if err != nil {
				return err
			}
			if !cfg.Memories.UseMemories {
				return errors.New("memories.use_memories is false: no memory tools to serve")
			}
			root, err := f.MemoryRoot(cfg.Memories.Version)
			if err != nil {
				return err
			}
			red, err := redactor(cfg)
			if err != nil {
				return err
			}
			memVersion := cfg.Memories.Version
			ranked := func(ctx context.Context, query string, limit int) ([]mcpserver.RankedHit, error) {
				st, err := f.OpenStore(ctx, memVersion)
				if err != nil {
					return nil, err
				}
				defer st.Close()
				hits, err := st.Search(ctx, query, limit)
				if err != nil {
					return nil, err
				}
				out := make([]mcpserver.RankedHit, len(hits))
				for i, h := range hits {
					out[i] = mcpserver.RankedHit{Kind: h.Kind, ThreadID: h.ThreadID, Path: h.Path, Snippet: h.Snippet, Score: h.Score}
				}
				return out, nil
			}
			return mcpserver.Serve(cmd.Context(), mcpserver.Options{
				Root: root, Version: version(), Ranked: ranked, Redact: red, ReadOnly: readOnly, Now: f.Now,
			}, &mcp.StdioTransport{})
		},
	}
	c.Flags().BoolVar(&readOnly, "read-only", false, "do not offer add_ad_hoc_note")
	return c
}
