package cmd

import (
	"context"
	"os"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/redact"
	"github.com/spf13/cobra"
)

// RedactOptions is what `memctl redact` needs.
type RedactOptions struct {
	IO     *IOStreams
	Config func() (*config.Config, error)

	// File is the FILE argument; "-" (also when it is absent) reads stdin.
	File string
}

func newRedactCmd(f *Factory, runF func(context.Context, *RedactOptions) error) *cobra.Command {
	opts := &RedactOptions{IO: f.IO, Config: f.Config}
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
		RunE: func(c *cobra.Command, args []string) error {
			opts.File = "-"
			if len(args) == 1 {
				opts.File = args[0]
			}
			return runOrHook(c.Context(), opts, runF, runRedact)
		},
	}
}

func runRedact(_ context.Context, opts *RedactOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	r, err := redact.New(cfg.Redaction.ExtraPatterns)
	if err != nil {
		return &config.Error{Key: "redaction.extra_patterns", Err: err}
	}
	in := opts.IO.In
	if opts.File != "-" {
		fh, err := os.Open(opts.File)
		if err != nil {
			return err
		}
		defer fh.Close()
		in = fh
	}
	return r.Copy(opts.IO.Out, in)
}
