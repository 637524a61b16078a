package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/agentfiles"
	"github.com/memctl/memctl/internal/bundle"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/inject"
	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/project"
	"github.com/memctl/memctl/internal/store"
	"github.com/spf13/cobra"
)

// ExportOptions is what `memctl export` needs: injected loaders first,
// then the flag values.
type ExportOptions struct {
	IO         *IOStreams
	Config     func() (*config.Config, error)
	OpenStore  func(ctx context.Context, version memversion.Version) (*store.Store, error)
	MemoryRoot func(version memversion.Version) (string, error)
	Now        func() time.Time
	Getwd      func() (string, error)
	Getenv     func(string) string
	UserHome   func() (string, error)

	JSON    bool
	Project string
	Output  string
	To      string
	Repo    string
}

// exportJSON is the --json document of export.
type exportJSON struct {
	Path     string `json:"path"`
	Schema   int    `json:"schema"`
	Scope    string `json:"scope"`
	Memories int    `json:"memories"`
	Forgets  int    `json:"forgets"`
	Notes    int    `json:"notes"`
}

// exportToJSON is the --json document of export --to.
type exportToJSON struct {
	Target  string `json:"target"`
	Path    string `json:"path"`
	Changed bool   `json:"changed"`
	Project string `json:"project,omitempty"`
}

func newExportCmd(f *Factory, runF func(context.Context, *ExportOptions) error) *cobra.Command {
	opts := &ExportOptions{IO: f.IO, Config: f.Config, OpenStore: f.OpenStore, MemoryRoot: f.MemoryRoot, Now: f.Now,
		Getwd: os.Getwd, Getenv: f.Getenv, UserHome: f.UserHome}
	c := &cobra.Command{
		Use:   "export",
		Short: "Write memory to a portable bundle, or into an agent's own instruction file",
		Long: `Write the portable memory of the configured version as one self-describing
bundle: JSON Lines, a header record with the schema version first, then one
record per raw memory (its text in Markdown, with the session it came from,
its project, uses, pin and edit mark), per forgotten memory and per ad hoc
note. 'memctl import' merges it into any home. --project narrows it to one
project (a folder, a key or a name); the default is every project.

--to writes the working directory's project summary (what summary injects,
without the instructions) into an agent's own files instead: a managed block
between marker lines in AGENTS.md or CLAUDE.md at the repository's top
folder (agents-md, claude-md), or Codex's
memories_extensions/memctl/instructions.md (codex). Text outside the block
is kept; exporting again replaces the block in place.

Nothing of the transcripts is exported.`,
		Args: cobra.NoArgs,
		Example: `  $ memctl export -o memory.jsonl
  $ memctl export --project ~/src/app > app-memory.jsonl
  $ memctl export --to agents-md`,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.JSON = f.JSON
			if opts.To != "" && opts.Output != "" {
				return FlagErrorf("--to and --output cannot be used together")
			}
			if opts.To == "" && opts.JSON && opts.Output == "" {
				return FlagErrorf("--json needs --output: without it the bundle itself goes to stdout")
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runExport(c.Context(), opts)
		},
	}
	c.Flags().StringVar(&opts.Project, "project", "", "export one project: a `PATH`, a project key or name (default: every project)")
	c.Flags().StringVarP(&opts.Output, "output", "o", "", "write the bundle to `FILE` (default: stdout)")
	stringEnumFlag(c, c.Flags(), &opts.To, "to", "", agentfiles.Targets, "write the project summary into this agent's file instead of a bundle")
	c.Flags().StringVar(&opts.Repo, "repo", "", "the repository whose AGENTS.md or CLAUDE.md --to writes (default: the working directory's)")
	return c
}

func runExport(ctx context.Context, opts *ExportOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	root, err := opts.MemoryRoot(cfg.Memories.Version)
	if err != nil {
		return err
	}
	if opts.To != "" {
		return exportTo(opts, cfg, root)
	}
	st, err := opts.OpenStore(ctx, cfg.Memories.Version)
	if err != nil {
		return err
	}
	defer st.Close()
	key := ""
	if opts.Project != "" {
		if key, err = projectKeyOf(ctx, cfg, st, root, opts.Project); err != nil {
			return err
		}
	}
	red, err := redactor(cfg)
	if err != nil {
		return err
	}
	recs, err := bundle.Export(ctx, st, root, bundle.ExportOptions{Project: key, MemoryVersion: cfg.Memories.Version, Now: opts.Now(), Redact: red})
	if err != nil {
		return err
	}
	res := exportJSON{Path: opts.Output, Schema: bundle.Schema, Scope: recs[0].Scope}
	for _, r := range recs {
		switch r.Type {
		case bundle.TypeMemory:
			res.Memories++
		case bundle.TypeForget:
			res.Forgets++
		case bundle.TypeNote:
			res.Notes++
		}
	}
	if opts.Output == "" || opts.Output == "-" {
		return bundle.Write(opts.IO.Out, recs)
	}
	var b strings.Builder
	if err := bundle.Write(&b, recs); err != nil {
		return err
	}
	if err := memdir.WriteAtomic(opts.Output, []byte(b.String()), 0o600); err != nil {
		return err
	}
	if opts.JSON {
		return printJSON(opts.IO.Out, res)
	}
	opts.IO.Infof("memctl: exported %d memories, %d forgets and %d notes (%s) to %s", res.Memories, res.Forgets, res.Notes, res.Scope, opts.Output)
	return nil
}

// exportTo writes the project summary into an agent's file.
func exportTo(opts *ExportOptions, cfg *config.Config, root string) error {
	dir := opts.Repo
	if dir == "" {
		wd, err := opts.Getwd()
		if err != nil {
			return err
		}
		dir = wd
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	r := project.NewResolver(cfg.ProjectOverrides())
	id := r.Resolve(dir, "")
	repoRoot := id.Root
	if opts.To != agentfiles.Codex && (!r.InRepository(dir) || repoRoot == "") {
		return withHint(FlagErrorf("%s is not in a git repository: --to %s writes at a repository's top folder", dir, opts.To), "run it inside the repository, or pass --repo DIR")
	}
	codexHome := opts.Getenv("CODEX_HOME")
	if codexHome == "" {
		uh, err := opts.UserHome()
		if err != nil {
			return err
		}
		codexHome = filepath.Join(uh, ".codex")
	}
	path, err := agentfiles.Path(opts.To, repoRoot, codexHome)
	if err != nil {
		return err
	}
	proj := dir
	if opts.Project != "" {
		proj = opts.Project
	}
	red, err := redactor(cfg)
	if err != nil {
		return err
	}
	res, err := inject.Scoped(inject.Request{Root: root, Version: cfg.Memories.Version, Raw: true, TemplateDir: cfg.Templates.Dir,
		Project: proj, Overrides: cfg.ProjectOverrides(), Checks: healthChecks(cfg)})
	if err != nil {
		return err
	}
	body := "# Memory (memctl)\n\nWhat memctl learnt from past sessions in this project. Regenerate it with `memctl export --to " + opts.To +
		"` rather than editing it here; the repository's own instructions outside this block take precedence.\n"
	if res.Injected {
		body += "\n" + red(res.Text) + "\n"
	} else {
		body += "\nNo memory has been consolidated yet.\n"
	}
	changed, err := agentfiles.Write(path, body)
	if err != nil {
		return err
	}
	if opts.JSON {
		return printJSON(opts.IO.Out, exportToJSON{Target: opts.To, Path: path, Changed: changed, Project: id.Key})
	}
	fmt.Fprintln(opts.IO.Out, path)
	if !changed {
		opts.IO.Infof("memctl: %s already holds this memory; nothing changed", path)
	}
	return nil
}
