package cmd

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/memctl/memctl/pkg/memfs"
	"github.com/spf13/cobra"
)

func newNoteCmd(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:     "note <command>",
		Short:   "Write ad hoc notes the next consolidation folds into memory",
		Example: `  $ memctl note add --slug prefer-pnpm "The user wants pnpm, not npm."`,
	}
	c.AddCommand(newNoteAddCmd(f))
	return c
}

func newNoteAddCmd(f *Factory) *cobra.Command {
	var slug string
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
		RunE: func(cmd *cobra.Command, args []string) error {
			if slug == "" {
				return FlagErrorf("--slug is required")
			}
			name, err := memfs.NoteFilename(f.Now(), slug)
			if err != nil {
				return &FlagError{Err: fmt.Errorf("--slug: %w", err)}
			}
			var text string
			if len(args) == 1 && args[0] != "-" {
				text = args[0]
			} else {
				b, err := io.ReadAll(f.IO.In)
				if err != nil {
					return err
				}
				text = string(b)
			}
			if strings.TrimSpace(text) == "" {
				return FlagErrorf("the note is empty")
			}
			cfg, err := f.Config()
			if err != nil {
				return err
			}
			root, err := f.MemoryRoot(cfg.Memories.Version)
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
			if f.JSON {
				return printJSON(f.IO.Out, map[string]string{"path": rel})
			}
			_, err = fmt.Fprintln(f.IO.Out, rel)
			return err
		},
	}
	c.Flags().StringVar(&slug, "slug", "", "short name of the note: a-z, 0-9 and '-'")
	return c
}
