package cmd

import (
	"context"

	"github.com/spf13/cobra"
)

// CompletionOptions is what `memctl completion` needs.
type CompletionOptions struct {
	IO *IOStreams

	Shell string
	// root is the command tree the script completes.
	root *cobra.Command
}

// completionShells are the shells `memctl completion` writes scripts for.
var completionShells = []string{"bash", "zsh", "fish", "powershell"}

func newCompletionCmd(f *Factory, runF func(context.Context, *CompletionOptions) error) *cobra.Command {
	opts := &CompletionOptions{IO: f.IO}
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `Print the completion script of a shell on stdout.

  bash:        source <(memctl completion bash)
  zsh:         memctl completion zsh > "${fpath[1]}/_memctl"
  fish:        memctl completion fish > ~/.config/fish/completions/memctl.fish
  powershell:  memctl completion powershell | Out-String | Invoke-Expression`,
		Args:      cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs),
		ValidArgs: completionShells,
		Example:   `  $ memctl completion bash > /etc/bash_completion.d/memctl`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Shell, opts.root = args[0], c.Root()
			return runOrHook(c.Context(), opts, runF, runCompletion)
		},
	}
}

func runCompletion(_ context.Context, opts *CompletionOptions) error {
	switch opts.Shell {
	case "bash":
		return opts.root.GenBashCompletionV2(opts.IO.Out, true)
	case "zsh":
		return opts.root.GenZshCompletion(opts.IO.Out)
	case "fish":
		return opts.root.GenFishCompletion(opts.IO.Out, true)
	default:
		return opts.root.GenPowerShellCompletionWithDesc(opts.IO.Out)
	}
}
