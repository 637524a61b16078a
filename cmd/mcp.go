package cmd

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/mcpserver"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

// MCPOptions is what `memctl mcp` needs: injected loaders first, then the
// flag values.
type MCPOptions struct {
	IO         *IOStreams
	Config     func() (*config.Config, error)
	OpenStore  func(ctx context.Context, version memversion.Version) (*store.Store, error)
	Now        func() time.Time
	MemoryRoot func(version memversion.Version) (string, error)
	// Transport carries the protocol; stdio unless a test gives another.
	Transport mcp.Transport
	// Getwd is the folder whose project scopes the tools (nil: os.Getwd).
	Getwd func() (string, error)

	ReadOnly bool
}

func newMCPCmd(f *Factory, runF func(context.Context, *MCPOptions) error) *cobra.Command {
	opts := &MCPOptions{IO: f.IO, Config: f.Config, OpenStore: f.OpenStore, Now: f.Now, MemoryRoot: f.MemoryRoot}
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the memory tools to any agent over MCP (stdio)",
		Long: `Serve the memory folder of the configured version over the Model Context
Protocol on stdin/stdout, for any MCP-capable agent. Tools:

  list             list a folder of the memory (shallow, paginated)
  read             read a memory file, by lines
  search           a query: the ranked full-text search of memctl search
                   (raw memories, summaries, memory files); queries: the
                   lines of the memory files that hold them (Codex's modes)
  add_ad_hoc_note  propose a note: it waits in memctl review until you
                   approve it, then the next consolidation folds it in

The tools answer for the project of the folder the server runs in (a
"project" argument picks another, "*" every project): list and search leave
other projects' memory out, search ranks the project's own first, and every
result says its scope (project, shared or other). See docs/projects.md.

Paths stay inside the memory folder: '..', absolute paths, hidden names and
symbolic links are refused. Every text returned goes through the redactor.`,
		Args: cobra.NoArgs,
		Example: `  $ memctl mcp
  # Claude Code (.mcp.json): {"mcpServers": {"memctl": {"command": "memctl", "args": ["mcp"]}}}`,
		RunE: func(c *cobra.Command, _ []string) error {
			return runOrHook(c.Context(), opts, runF, runMCP)
		},
	}
	c.Flags().BoolVar(&opts.ReadOnly, "read-only", false, "do not offer add_ad_hoc_note")
	return c
}

func runMCP(ctx context.Context, opts *MCPOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	if !cfg.Memories.UseMemories {
		return errors.New("memories.use_memories is false: no memory tools to serve")
	}
	root, err := opts.MemoryRoot(cfg.Memories.Version)
	if err != nil {
		return err
	}
	red, err := redactor(cfg)
	if err != nil {
		return err
	}
	memVersion := cfg.Memories.Version
	ranked := mcpserver.StoreSearch(func(ctx context.Context) (*store.Store, error) { return opts.OpenStore(ctx, memVersion) })
	getwd := opts.Getwd
	if getwd == nil {
		getwd = os.Getwd
	}
	cwd, _ := getwd()
	transport := opts.Transport
	if transport == nil {
		transport = mcpserver.Stdio(opts.IO.In, opts.IO.Out)
	}
	return mcpserver.Serve(ctx, mcpserver.Options{
		Root: root, Version: version(), Ranked: ranked, Redact: red, ReadOnly: opts.ReadOnly, Now: opts.Now,
		Cwd: cwd, Overrides: cfg.ProjectOverrides(),
		StaleChecks: cfg.Health.StaleChecks, StaleBudget: cfg.Health.StaleBudget,
		RewriteThreshold: float64(cfg.Health.RewriteThreshold) / 100,
	}, transport)
}
