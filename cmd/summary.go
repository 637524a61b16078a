package cmd

import (
	"fmt"

	"github.com/memctl/memctl/pkg/inject"
	"github.com/spf13/cobra"
)

func newSummaryCmd(f *Factory) *cobra.Command {
	var raw bool
	var maxTokens int
	var agent string
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
		RunE: func(cmd *cobra.Command, args []string) error {
			if maxTokens < 0 {
				return FlagErrorf("--max-tokens must not be negative")
			}
			if _, err := inject.CitationNote(agent); err != nil {
				return FlagErrorf("--agent: %v", err)
			}
			cfg, err := f.Config()
			if err != nil {
				return err
			}
			res := inject.SummaryResult{}
			if cfg.Memories.UseMemories {
				root, err := f.MemoryRoot(cfg.Memories.Version)
				if err != nil {
					return err
				}
				res, err = inject.SummaryFor(root, cfg.Memories.Version, maxTokens, raw, cfg.Templates.Dir, agent)
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
			if f.JSON {
				return printJSON(f.IO.Out, res)
			}
			if !res.Injected {
				return nil
			}
			_, err = fmt.Fprintln(f.IO.Out, res.Text)
			return err
		},
	}
	c.Flags().BoolVar(&raw, "raw", false, "print the cut summary alone, without the instructions")
	c.Flags().StringVar(&agent, "agent", "", "render the instructions for this agent's hook: claude-code or codex (the citation block stays visible there)")
	c.Flags().IntVar(&maxTokens, "max-tokens", inject.DefaultSummaryTokens, "cut the summary to about `N` tokens")
	return c
}
