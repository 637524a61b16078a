package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/memctl/memctl/internal/bundle"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/origin"
	"github.com/memctl/memctl/internal/store"
	"github.com/spf13/cobra"
)

// ImportOptions is what `memctl import` needs: injected loaders first,
// then the argument and flag values.
type ImportOptions struct {
	IO         *IOStreams
	Config     func() (*config.Config, error)
	OpenStore  func(ctx context.Context, version memversion.Version) (*store.Store, error)
	MemoryRoot func(version memversion.Version) (string, error)

	JSON bool
	File string // "-" = stdin
}

// importJSON is the --json document of import: the configured version's
// counts, and each version's.
type importJSON struct {
	File    string `json:"file"`
	Records int    `json:"records"`
	bundle.ImportResult
	Versions map[memversion.Version]bundle.ImportResult `json:"versions"`
}

func newImportCmd(f *Factory, runF func(context.Context, *ImportOptions) error) *cobra.Command {
	opts := &ImportOptions{IO: f.IO, Config: f.Config, OpenStore: f.OpenStore, MemoryRoot: f.MemoryRoot}
	c := &cobra.Command{
		Use:   "import FILE|-",
		Short: "Merge a bundle written by memctl export into this home",
		Long: `Merge a bundle written by 'memctl export' (FILE, or stdin with '-') into every
generated memory version. A memory already stored is updated in place, never
copied twice: its text, pin and edit mark become the bundle's, and its uses
only grow. A memory the bundle forgets is forgotten here; one forgotten here
is not brought back. Notes missing here are written; an existing note is
never overwritten. Importing the same bundle again changes nothing.

Memory text is redacted with this machine's rules and stripped of
instruction-shaped lines before it is stored, as anything that did not come
from a session here.

Memories whose session this home never indexed are kept under a thread of
kind "imported" that names the bundle, so 'memctl memories list' and the
consolidation's input files show where they came from. Run 'memctl run' or
'memctl consolidate' afterwards to fold them into the memory folder.

A bundle written by a newer memctl (a higher schema) is refused whole.`,
		Args: cobra.ExactArgs(1),
		Example: `  $ memctl import memory.jsonl && memctl consolidate
  $ ssh laptop memctl export | memctl import -`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.JSON = f.JSON
			opts.File = args[0]
			return runOrHook(c.Context(), opts, runF, runImport)
		},
	}
	return c
}

func runImport(ctx context.Context, opts *ImportOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	r := opts.IO.In
	name, source := "stdin", "bundle"
	if opts.File != "-" {
		f, err := os.Open(opts.File)
		if err != nil {
			return err
		}
		defer f.Close()
		r, name, source = f, opts.File, "bundle:"+filepath.Base(opts.File)
	}
	recs, err := bundle.Read(r, name)
	if err != nil {
		return err
	}
	red, err := redactor(cfg)
	if err != nil {
		return err
	}
	out := importJSON{File: opts.File, Records: len(recs), Versions: map[memversion.Version]bundle.ImportResult{}}
	for _, v := range cfg.Versions() {
		st, root, err := openVersion(ctx, v, opts.OpenStore, opts.MemoryRoot)
		if err != nil {
			return err
		}
		res, err := bundle.Import(ctx, st, root, recs, source, intake(origin.Origin{Kind: origin.Import, Detail: source}, red, root))
		if err == nil && res.Forgotten > 0 {
			scrubAfterForget(ctx, opts.IO, st, v)
		}
		st.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", v, err)
		}
		out.Versions[v] = res
		if v == cfg.Memories.Version {
			out.ImportResult = res
		}
	}
	if opts.JSON {
		return printJSON(opts.IO.Out, out)
	}
	a := out.ImportResult
	opts.IO.Infof("memctl: imported %s: %d memories added, %d updated, %d unchanged, %d forgotten, %d skipped (forgotten here), %d note(s)",
		name, a.Added, a.Updated, a.Unchanged, a.Forgotten, a.Skipped, a.Notes)
	warnHeld(opts.IO, a.Held)
	if a.Changed() {
		opts.IO.Infof("memctl: hint: run `memctl run` (or `memctl consolidate`) to fold them into the memory folder")
	}
	return nil
}
