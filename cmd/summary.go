package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/memctl/memctl/pkg/config"
	"github.com/memctl/memctl/pkg/inject"
	"github.com/spf13/cobra"
)

// SummaryOptions is what `memctl summary` needs: injected loaders first,
// then the flag values. It has no store loader: summary runs before every
// agent turn and reads one file and the config.
type SummaryOptions struct {
	IO         *IOStreams
	Config     func() (*config.Config, error)
	MemoryRoot func(version string) (string, error)
	Now        func() time.Time

	JSON      bool
	Raw       bool
	MaxTokens int
	Agent     string // "", claude-code or codex
}

// summaryAgents are the values of summary --agent.
var summaryAgents = []string{inject.AgentClaudeCode, inject.AgentCodex}

func newSummaryCmd(f *Factory, runF func(context.Context, *SummaryOptions) error) *cobra.Command {
	opts := &SummaryOptions{IO: f.IO, Config: f.Config, MemoryRoot: f.MemoryRoot, Now: f.Now}
	c := &cobra.Command{
		Use:   "summary",
		Short: "Print the memory instructions and summary for the next prompt",
		Long: `Print the read-path instructions with memory_summary.md of the configured memory
version, cut to --max-tokens (about 4 bytes a token, keeping the head and the
tail), ready to prepend to an agent's prompt. Prints nothing at all (exit 0) when
there is no summary or memories.use_memories is false.

--agent renders the instructions for the agent whose hook prints them:
claude-code and codex show the reply before any hook sees it, so the
citation block cannot be removed; the model is told so and asked for the
short form (rollout ids only) that still counts.

It runs before every agent turn, so it reads one file and the config: it never
opens the database or scans transcripts.`,
		Args: cobra.NoArgs,
		Example: `  $ memctl summary >> prompt.md
  $ memctl summary --raw --max-tokens 500
  $ memctl summary --json | jq -r .text
  $ memctl summary --agent claude-code   # a Claude Code SessionStart hook`,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.JSON = f.JSON
			if opts.MaxTokens < 0 {
				return FlagErrorf("--max-tokens must not be negative")
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runSummary(c.Context(), opts)
		},
	}
	c.Flags().BoolVar(&opts.Raw, "raw", false, "print the cut summary alone, without the instructions")
	stringEnumFlag(c, c.Flags(), &opts.Agent, "agent", "", summaryAgents, "render the instructions for this agent's hook (the citation block stays visible there)")
	c.Flags().IntVar(&opts.MaxTokens, "max-tokens", inject.DefaultSummaryTokens, "cut the summary to about `N` tokens")
	return c
}

func runSummary(_ context.Context, opts *SummaryOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	res := inject.SummaryResult{}
	if cfg.Memories.UseMemories {
		root, err := opts.MemoryRoot(cfg.Memories.Version)
		if err != nil {
			return err
		}
		res, err = inject.SummaryFor(root, cfg.Memories.Version, opts.MaxTokens, opts.Raw, cfg.Templates.Dir, opts.Agent)
		if err != nil {
			return err
		}
		if res.Injected {
			red, err := redactor(cfg)
			if err != nil {
				return err
			}
			res.Text = red(res.Text)
		}
	}
	if opts.JSON {
		return printJSON(opts.IO.Out, res)
	}
	if !res.Injected {
		return nil
	}
	_, err = fmt.Fprintln(opts.IO.Out, res.Text)
	return err
}
