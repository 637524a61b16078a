package cmd

import (
	"fmt"

	"github.com/memctl/memctl/pkg/scan"
	"github.com/spf13/cobra"
)

func newScanCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "scan",
		Short: "Index the configured transcript sources into threads",
		Long: `Index every configured transcript source ([[sources]] in the config, or Codex's
and Claude Code's default folders) as threads. Incremental: a file whose size and
modification time did not change is not opened, and one whose content did not
change is not read again.

A broken line, invalid UTF-8, a huge line or a file that is not a transcript is
reported and skipped; the thread is indexed from what is readable and the scan
goes on (exit 0).`,
		Args: cobra.NoArgs,
		Example: `  $ memctl scan
  $ memctl scan --json | jq .errors`,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.Config()
			if err != nil {
				return err
			}
			var total scan.Result
			for i, v := range cfg.Versions() {
				st, err := f.OpenStore(cmd.Context(), v)
				if err != nil {
					return err
				}
				res, err := scanStore(cmd.Context(), f, cfg, st)
				st.Close()
				if err != nil {
					return err
				}
				if i == 0 {
					total = res
				}
			}
			if f.JSON {
				return printJSON(f.IO.Out, total)
			}
			for _, e := range total.Errors {
				loc := e.Path
				if e.Line > 0 {
					loc = fmt.Sprintf("%s:%d", e.Path, e.Line)
				}
				f.warnf("%s: %s", loc, e.Error)
			}
			f.infof("scanned %d transcripts: %d added, %d updated, %d unchanged, %d problems",
				total.Scanned, total.Added, total.Updated, total.Unchanged, len(total.Errors))
			return nil
		},
	}
}
