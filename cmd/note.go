package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/memctl/memctl/pkg/config"
	"github.com/memctl/memctl/pkg/memfs"
	"github.com/spf13/cobra"
)

func newNoteCmd(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:     "note <command>",
		Short:   "Write ad hoc notes the next consolidation folds into memory",
		Example: `  $ memctl note add --slug prefer-pnpm "The user wants pnpm, not npm."`,
	}
	c.AddCommand(
		newNoteAddCmd(f, nil),
	)
	return c
}

// NoteAddOptions is what `memctl note add` needs: injected loaders first,
// then the argument and flag values.
type NoteAddOptions struct {
	IO         *IOStreams
	Config     func() (*config.Config, error)
	MemoryRoot func(version string) (string, error)
	Now        func() time.Time

	JSON bool
	Slug string
	// Text is the TEXT argument; "-" (also when it is absent) reads stdin.
	Text string
}

func newNoteAddCmd(f *Factory, runF func(context.Context, *NoteAddOptions) error) *cobra.Command {
	opts := &NoteAddOptions{IO: f.IO, Config: f.Config, MemoryRoot: f.MemoryRoot, Now: f.Now}
	c := &cobra.Command{
		Use:   "add --slug SLUG [TEXT|-]",
		Short: "Add a note under extensions/ad_hoc/notes/",
		Long: `Write a note to <memory folder>/extensions/ad_hoc/notes/<UTC time>-<slug>.md. The
next consolidation reads new and edited notes as requests to add, change or remove
memory. The slug is 1 to 80 characters of a-z, 0-9 and '-', starting with a
letter or digit. TEXT, or stdin when TEXT is '-' or absent, is written verbatim.
A note is never overwritten.`,
		Args: cobra.MaximumNArgs(1),
		Example: `  $ memctl note add --slug prefer-pnpm "The user wants pnpm, not npm, in every repo."
  $ git log -1 --format=%B | memctl note add --slug release-process -`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.JSON = f.JSON
			opts.Text = "-"
			if len(args) == 1 {
				opts.Text = args[0]
			}
			if opts.Slug == "" {
				return FlagErrorf("--slug is required")
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runNoteAdd(c.Context(), opts)
		},
	}
	c.Flags().StringVar(&opts.Slug, "slug", "", "short name of the note: a-z, 0-9 and '-'")
	return c
}

func runNoteAdd(_ context.Context, opts *NoteAddOptions) error {
	name, err := memfs.NoteFilename(opts.Now(), opts.Slug)
	if err != nil {
		return &FlagError{Err: fmt.Errorf("--slug: %w", err)}
	}
	text := opts.Text
	if text == "-" {
		b, err := io.ReadAll(opts.IO.In)
		if err != nil {
			return err
		}
		text = string(b)
	}
	if strings.TrimSpace(text) == "" {
		return FlagErrorf("the note is empty")
	}
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	root, err := opts.MemoryRoot(cfg.Memories.Version)
	if err != nil {
		return err
	}
	rel, err := memfs.AddNote(root, name, text)
	if err != nil {
		if errors.Is(err, memfs.ErrAlreadyExists) {
			return withHint(err, "wait a second or pick another slug")
		}
		return err
	}
	if opts.JSON {
		return printJSON(opts.IO.Out, pathJSON{Path: rel})
	}
	_, err = fmt.Fprintln(opts.IO.Out, rel)
	return err
}
