package cmd

import (
	"github.com/spf13/cobra"
)

func newCompletionCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `Print the completion script of a shell on stdout.

  bash:        source <(memctl completion bash)
  zsh:         memctl completion zsh > "${fpath[1]}/_memctl"
  fish:        memctl completion fish > ~/.config/fish/completions/memctl.fish
  powershell:  memctl completion powershell | Out-String | Invoke-Expression`,
		Args:      cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs),
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		Example:   `  $ memctl completion bash > /etc/bash_completion.d/memctl`,
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(f.IO.Out, true)
			case "zsh":
				return root.GenZshCompletion(f.IO.Out)
			case "fish":
				return root.GenFishCompletion(f.IO.Out, true)
			default:
				return root.GenPowerShellCompletionWithDesc(f.IO.Out)
			}
		},
	}
}
