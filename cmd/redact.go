package cmd

import (
	"io"
	"os"

	"github.com/memctl/memctl/pkg/config"
	"github.com/memctl/memctl/pkg/redact"
	"github.com/spf13/cobra"
)

func newRedactCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "redact [FILE]",
		Short: "Copy FILE or stdin to stdout with secrets replaced",
		Long: `Stream FILE (or stdin) to stdout through memctl's redactor: Codex's four patterns
plus private keys, cloud, VCS, chat and payment tokens, JWTs, passwords in URLs,
.env/YAML/JSON secrets, <private>…</private> spans and redaction.extra_patterns
from the config. Each secret becomes [REDACTED_SECRET].`,
		Args: cobra.MaximumNArgs(1),
		Example: `  $ memctl redact session.jsonl > shareable.jsonl
  $ pbpaste | memctl redact`,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.Config()
			if err != nil {
				return err
			}
			r, err := redact.New(cfg.Redaction.ExtraPatterns)
			if err != nil {
				return &config.Error{Key: "redaction.extra_patterns", Err: err}
			}
			var in io.Reader = f.IO.In
			if len(args) == 1 && args[0] != "-" {
				fh, err := os.Open(args[0])
				if err != nil {
					return err
				}
				defer fh.Close()
				in = fh
			}
			return r.Copy(f.IO.Out, in)
		},
	}
}
