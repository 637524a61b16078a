package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/memctl/memctl/internal/bundle"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memfs"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/store"
	"github.com/spf13/cobra"
)

// NoteListOptions is what `memctl note list` and `note rm` need: injected
// loaders first, then the argument and flag values.
type NoteListOptions struct {
	IO         *IOStreams
	Config     func() (*config.Config, error)
	MemoryRoot func(version memversion.Version) (string, error)
	OpenStore  func(ctx context.Context, version memversion.Version) (*store.Store, error)

	JSON bool
	Name string // note rm: the note's file name or a part of it
}

// noteJSON is one note of `note list --json`.
type noteJSON struct {
	Name string `json:"name"`
	Path string `json:"path"`
	// Project is the key of the project the note is for; "" when it holds
	// in every project (the personal layer).
	Project string `json:"project"`
	Text    string `json:"text"`
}

// noteRmJSON is the --json document of note rm.
type noteRmJSON struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

func newNoteListCmd(f *Factory, runF func(context.Context, *NoteListOptions) error) *cobra.Command {
	opts := &NoteListOptions{IO: f.IO, Config: f.Config, MemoryRoot: f.MemoryRoot}
	c := &cobra.Command{
		Use:   "list",
		Short: "List the ad hoc notes, oldest first",
		Long: `List the ad hoc notes of the memory folder, oldest first: each note's file
name, the project it is for ("*" when it holds in every project) and its
first line.`,
		Args: cobra.NoArgs,
		Example: `  $ memctl note list
  $ memctl note list --json | jq -r '.[].name'`,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.JSON = f.JSON
			return runOrHook(c.Context(), opts, runF, runNoteList)
		},
	}
	return c
}

func runNoteList(_ context.Context, opts *NoteListOptions) error {
	_, root, err := configAndRoot(opts.Config, opts.MemoryRoot)
	if err != nil {
		return err
	}
	all, err := bundle.Notes(root)
	if err != nil {
		return err
	}
	notes := make([]noteJSON, 0, len(all))
	for _, n := range all {
		text, key := n.Content, ""
		if first, rest, _ := strings.Cut(text, "\n"); strings.HasPrefix(first, "project:") {
			key, text = strings.TrimSpace(strings.TrimPrefix(first, "project:")), rest
		}
		notes = append(notes, noteJSON{Name: n.Name, Path: memdir.NotesDir + "/" + n.Name, Project: key, Text: strings.TrimSpace(text)})
	}
	if opts.JSON {
		return printJSON(opts.IO.Out, notes)
	}
	if len(notes) == 0 {
		opts.IO.Infof("no notes yet; memctl note add \"TEXT\" writes one")
		return nil
	}
	for _, n := range notes {
		key := n.Project
		if key == "" {
			key = "*"
		}
		first, _, _ := strings.Cut(n.Text, "\n")
		fmt.Fprintf(opts.IO.Out, "%s\t%s\t%s\n", n.Name, opts.IO.Text(key), opts.IO.Text(first))
	}
	return nil
}

func newNoteRmCmd(f *Factory, runF func(context.Context, *NoteListOptions) error) *cobra.Command {
	opts := &NoteListOptions{IO: f.IO, Config: f.Config, MemoryRoot: f.MemoryRoot, OpenStore: f.OpenStore}
	c := &cobra.Command{
		Use:   "rm NAME",
		Short: "Remove an ad hoc note",
		Long: `Remove the note NAME (its file name as note list shows it, or a part of it
that names one note, such as its slug) from the memory folder. The next
consolidation, cooldown or not, takes out what the note put into memory.
Only this machine's copy goes: a note synced to other machines stays there.`,
		Args:    cobra.ExactArgs(1),
		Example: `  $ memctl note rm prefer-pnpm`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.JSON, opts.Name = f.JSON, args[0]
			return runOrHook(c.Context(), opts, runF, runNoteRm)
		},
	}
	return c
}

func runNoteRm(ctx context.Context, opts *NoteListOptions) error {
	cfg, root, err := configAndRoot(opts.Config, opts.MemoryRoot)
	if err != nil {
		return err
	}
	name, err := resolveNote(root, opts.Name)
	if err != nil {
		return err
	}
	if err := memfs.RemoveNote(root, name); err != nil {
		return err
	}
	// Removing a file is a change the consolidator must see even inside
	// its cooldown, or the note's memory would stay for hours.
	st, err := opts.OpenStore(ctx, cfg.Memories.Version)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.RequestConsolidation(ctx, "note removed", false); err != nil {
		return err
	}
	rel := memdir.NotesDir + "/" + name
	if opts.JSON {
		return printJSON(opts.IO.Out, noteRmJSON{Name: name, Path: rel})
	}
	opts.IO.Infof("removed %s; the next consolidation takes out what it added", rel)
	return nil
}
