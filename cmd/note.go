package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/bundle"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memfs"
	"github.com/memctl/memctl/internal/memmodel"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/project"
	"github.com/memctl/memctl/internal/store"
	"github.com/spf13/cobra"
)

func newNoteCmd(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "note <command>",
		Short: "Write ad hoc notes the next consolidation folds into memory",
		Example: `  $ memctl note add "The user wants pnpm, not npm."
  $ memctl note list
  $ memctl note rm the-user-wants-pnpm`,
	}
	c.AddCommand(
		newNoteAddCmd(f, nil),
		newNoteListCmd(f, nil),
		newNoteRmCmd(f, nil),
		newNotePinCmd(f, nil, true),
		newNotePinCmd(f, nil, false),
	)
	return c
}

// NotePinOptions is what `memctl note pin` and `unpin` need.
type NotePinOptions struct {
	IO         *IOStreams
	Config     func() (*config.Config, error)
	OpenStore  func(ctx context.Context, version memversion.Version) (*store.Store, error)
	MemoryRoot func(version memversion.Version) (string, error)

	JSON bool
	Name string
	Pin  bool
}

// notePinJSON is the --json document of note pin and unpin.
type notePinJSON struct {
	Name     string               `json:"name"`
	Pinned   bool                 `json:"pinned"`
	Changed  bool                 `json:"changed"`
	Versions []memversion.Version `json:"versions"`
}

func newNotePinCmd(f *Factory, runF func(context.Context, *NotePinOptions) error, pin bool) *cobra.Command {
	opts := &NotePinOptions{IO: f.IO, Config: f.Config, OpenStore: f.OpenStore, MemoryRoot: f.MemoryRoot, Pin: pin}
	c := &cobra.Command{
		Use:   "pin NAME",
		Short: "Keep a note in the summary when more notes exist than it holds",
		Long: fmt.Sprintf(`The summary holds the %d best-ranked ad hoc notes: pinned first, then the most
used (memctl cite counts a citation of a note's file), then the last used,
then the newest; MEMORY.md lists every note. Pin keeps a note among them. NAME
is the note's file name under extensions/ad_hoc/notes/, or a part of it that
names one note (its slug). The next consolidation takes it in, cooldown or not.`, memmodel.MaxSummaryNotes),
		Args:    cobra.ExactArgs(1),
		Example: `  $ memctl note pin prefer-pnpm`,
	}
	if !pin {
		c.Use = "unpin NAME"
		c.Short = "Let a pinned note rank like any other again"
		c.Long = ""
		c.Example = `  $ memctl note unpin prefer-pnpm`
	}
	c.RunE = func(c *cobra.Command, args []string) error {
		opts.JSON, opts.Name = f.JSON, args[0]
		return runOrHook(c.Context(), opts, runF, runNotePin)
	}
	return c
}

func runNotePin(ctx context.Context, opts *NotePinOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	doc := notePinJSON{Pinned: opts.Pin, Versions: []memversion.Version{}}
	for _, v := range cfg.Versions() {
		root, err := opts.MemoryRoot(v)
		if err != nil {
			return err
		}
		name, err := resolveNote(root, opts.Name)
		if errors.Is(err, store.ErrNotFound) && v != cfg.Memories.Version {
			continue // a version that does not hold the note
		}
		if err != nil {
			return err
		}
		st, err := opts.OpenStore(ctx, v)
		if err != nil {
			return err
		}
		changed, err := st.SetNotePinned(ctx, name, opts.Pin)
		st.Close()
		if err != nil {
			return err
		}
		doc.Name, doc.Changed = name, doc.Changed || changed
		doc.Versions = append(doc.Versions, v)
	}
	if opts.JSON {
		return printJSON(opts.IO.Out, doc)
	}
	verb := map[bool]string{true: "pinned", false: "unpinned"}[opts.Pin]
	if !doc.Changed {
		opts.IO.Infof("%s was already %s", doc.Name, verb)
		return nil
	}
	opts.IO.Infof("%s %s; the next consolidation takes it in", verb, doc.Name)
	return nil
}

// resolveNote finds the note arg names in the memory folder root: its
// file name (or path), else the one note whose name holds arg.
func resolveNote(root, arg string) (string, error) {
	arg = path.Base(filepath.ToSlash(strings.TrimSpace(arg)))
	notes, err := bundle.Notes(root)
	if err != nil {
		return "", err
	}
	var match []string
	for _, n := range notes {
		if n.Name == arg {
			return n.Name, nil
		}
		if strings.Contains(n.Name, arg) {
			match = append(match, n.Name)
		}
	}
	switch len(match) {
	case 1:
		return match[0], nil
	case 0:
		return "", withHint(&FlagError{Err: &notFoundError{fmt.Sprintf("no note %q under %s", arg, memdir.NotesDir)}}, "give its file name or its slug")
	}
	return "", withHint(FlagErrorf("%q names several notes: %s", arg, strings.Join(match, ", ")), "give more of its name")
}

// NoteAddOptions is what `memctl note add` needs: injected loaders first,
// then the argument and flag values.
type NoteAddOptions struct {
	IO         *IOStreams
	Config     func() (*config.Config, error)
	MemoryRoot func(version memversion.Version) (string, error)
	Now        func() time.Time
	// OpenStore resolves a project name the way status lists it; nil:
	// by the memory folder's index alone.
	OpenStore func(ctx context.Context, version memversion.Version) (*store.Store, error)

	// Getwd is the folder whose project a note is for by default.
	Getwd func() (string, error)

	JSON bool
	Slug string
	// Text is the TEXT argument; "-" (also when it is absent) reads stdin.
	Text string
	// Project scopes the note (a folder, a key or a name); Personal puts
	// it in the personal layer. Neither: the working directory's project
	// when it is a repository, else the personal layer.
	Project  string
	Personal bool
}

// noteAddJSON is the --json document of note add.
type noteAddJSON struct {
	Path string `json:"path"`
	// Project is the key of the project the note is for; "" when it holds
	// in every project (the personal layer).
	Project string `json:"project"`
	// Redacted is set (and only then present) when secrets were cut from the text.
	Redacted bool `json:"redacted,omitempty"`
}

func newNoteAddCmd(f *Factory, runF func(context.Context, *NoteAddOptions) error) *cobra.Command {
	opts := &NoteAddOptions{IO: f.IO, Config: f.Config, MemoryRoot: f.MemoryRoot, Now: f.Now, Getwd: os.Getwd, OpenStore: f.OpenStore}
	c := &cobra.Command{
		Use:   "add [TEXT|-]",
		Short: "Add a note under extensions/ad_hoc/notes/",
		Long: `Write a note to <memory folder>/extensions/ad_hoc/notes/<UTC time>-<slug>.md. The
next consolidation reads new and edited notes as requests to add, change or remove
memory. The slug is 1 to 80 characters of a-z, 0-9 and '-', starting with a
letter or digit; without --slug it is made of the note's first words (after
redaction). TEXT, or stdin when TEXT is '-' or absent, is written as given, with secrets
redacted (a warning says so). A note is never overwritten.

A note run from inside a repository is for that repository's project: only
its sessions are given it (docs/projects.md). --project names another
project; --personal makes it hold in every project.`,
		Args: cobra.MaximumNArgs(1),
		Example: `  $ memctl note add "The user wants pnpm, not npm, in every repo."
  $ memctl note add --slug prefer-pnpm "The user wants pnpm, not npm, in every repo."
  $ git log -1 --format=%B | memctl note add --slug release-process -
  $ memctl note add --personal --slug commit-style "Commit messages in the imperative mood."`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.JSON = f.JSON
			opts.Text = "-"
			if len(args) == 1 {
				opts.Text = args[0]
			}
			if opts.Personal && c.Flags().Changed("project") {
				return FlagErrorf("--project and --personal cannot be used together")
			}
			return runOrHook(c.Context(), opts, runF, runNoteAdd)
		},
	}
	c.Flags().StringVar(&opts.Slug, "slug", "", "short name of the note: a-z, 0-9 and '-' (default: made of its first words)")
	c.Flags().StringVar(&opts.Project, "project", "", "the note is for this project: a `PATH`, a project key or name (default: the working directory's repository)")
	c.Flags().BoolVar(&opts.Personal, "personal", false, "the note holds in every project (the personal layer)")
	return c
}

// noteProject is the key of the project a note is for, "" for the
// personal layer.
func noteProject(ctx context.Context, opts *NoteAddOptions, cfg *config.Config, root string) (string, error) {
	if opts.Personal {
		return "", nil
	}
	r := project.NewResolver(cfg.ProjectOverrides())
	arg, fromWd, err := projectArgOrWorkingDir(opts.Project, opts.Getwd)
	if fromWd && (err != nil || !r.InRepository(arg)) {
		// Such a note holds in every project: say so.
		opts.IO.Infof("memctl: the working directory is in no repository, so the note holds in every project (the personal layer); --project names one")
		return "", nil
	}
	// The store knows every project status lists; the index only what the
	// folder's generation holds (after a rollback to a generation from
	// before a project, only the store still knows it).
	var st *store.Store
	if opts.OpenStore != nil {
		if s, err := opts.OpenStore(ctx, cfg.Memories.Version); err == nil {
			defer s.Close()
			st = s
		}
	}
	return projectKeyOf(ctx, cfg, st, root, arg)
}

func runNoteAdd(ctx context.Context, opts *NoteAddOptions) error {
	if opts.Slug != "" {
		if _, err := memfs.NoteFilename(opts.Now(), opts.Slug); err != nil {
			return &FlagError{Err: fmt.Errorf("--slug: %w", err)}
		}
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
	red, err := redactor(cfg)
	if err != nil {
		return err
	}
	// A note lands in the memory folder, which every later session reads:
	// it holds no secret, like every other file there.
	clean := red(text)
	redacted := clean != text
	text = clean
	slug := opts.Slug
	if slug == "" {
		slug = memfs.SlugOf(text) // of the redacted text: a file name keeps no secret either
	}
	name, err := memfs.NoteFilename(opts.Now(), slug)
	if err != nil {
		return err
	}
	root, err := opts.MemoryRoot(cfg.Memories.Version)
	if err != nil {
		return err
	}
	key, err := noteProject(ctx, opts, cfg, root)
	if err != nil {
		return err
	}
	if key != "" {
		text = project.NoteHeader(key) + text
	}
	rel, err := memfs.AddNote(root, name, text)
	if err != nil {
		if errors.Is(err, memfs.ErrAlreadyExists) {
			return withHint(err, "wait a second or pick another slug")
		}
		return err
	}
	if redacted {
		opts.IO.Warnf("secrets were redacted from the note %s", rel)
	}
	if opts.JSON {
		return printJSON(opts.IO.Out, noteAddJSON{Path: rel, Project: key, Redacted: redacted})
	}
	if key != "" {
		opts.IO.Infof("the note is for project %s (--personal to make it hold everywhere)", key)
	}
	_, err = fmt.Fprintln(opts.IO.Out, rel)
	return err
}
