package cmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
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
	"github.com/memctl/memctl/internal/quarantine"
	"github.com/memctl/memctl/internal/store"
	"github.com/memctl/memctl/internal/summary"
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
	// Salvage says what was read of a damaged database, and what not;
	// absent when the database was sound.
	Salvage *store.SalvageReport `json:"salvage,omitempty"`
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

--to writes the working directory's project memory into an agent's own
files instead, as a managed block between marker lines: AGENTS.md or
CLAUDE.md at the repository's top folder (agents-md, claude-md) get this
project's own preferences and tips only (no personal rule, no other
project, no path into the memory folder: the file is committed), and Codex's
memories_extensions/memctl/instructions.md (codex) gets what summary --raw
gives the project. Text outside the block is kept; exporting again replaces
the block in place.

Nothing of the transcripts is exported.

A damaged database (emptied, a damaged header, a corrupt page) is salvaged:
export reads what it can, row by row around the pages that cannot be read,
from a copy (the file itself is not written), writes the bundle and says on
stderr what it left out. Import the bundle into a new database to recover
(memctl doctor prints the commands).

EXIT STATUS
  0  the bundle was written
  3  the database is damaged: the bundle holds what could be read
  1  an error (nothing written)`,
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
			return runOrHook(c.Context(), opts, runF, runExport)
		},
	}
	c.Flags().StringVar(&opts.Project, "project", "", "export one project: a `PATH`, a project key or name (default: every project)")
	c.Flags().StringVarP(&opts.Output, "output", "o", "", "write the bundle to `FILE` (default: stdout)")
	stringEnumFlag(c, c.Flags(), &opts.To, "to", "", agentfiles.Targets, "write the project summary into this agent's file instead of a bundle")
	c.Flags().StringVar(&opts.Repo, "repo", "", "the repository whose AGENTS.md or CLAUDE.md --to writes (default: the working directory's)")
	return c
}

func runExport(ctx context.Context, opts *ExportOptions) error {
	cfg, root, err := configAndRoot(opts.Config, opts.MemoryRoot)
	if err != nil {
		return err
	}
	if opts.To != "" {
		return exportTo(opts, cfg, root)
	}
	key := ""
	if opts.Project != "" {
		// The store's projects count too when the store opens (a damaged
		// one is salvaged below, and then only the index knows projects).
		var st *store.Store
		if s, err := opts.OpenStore(ctx, cfg.Memories.Version); err == nil {
			st = s
		}
		key, err = projectKeyOf(ctx, cfg, st, root, opts.Project)
		if st != nil {
			st.Close()
		}
		if err != nil {
			return err
		}
	}
	red, err := redactor(cfg)
	if err != nil {
		return err
	}
	eo := bundle.ExportOptions{Project: key, MemoryVersion: cfg.Memories.Version, Now: opts.Now(), Redact: red}
	recs, salvage, err := exportRecords(ctx, opts, cfg.Memories.Version, root, eo)
	if err != nil {
		return err
	}
	res := exportJSON{Path: opts.Output, Schema: bundle.Schema, Scope: recs[0].Scope, Salvage: salvage}
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
	// A salvage wrote what it could: the command ends partial (exit 3).
	var partial error
	if salvage != nil {
		partial = &SalvageError{Path: salvage.Source, Memories: res.Memories}
	}
	if opts.Output == "" || opts.Output == "-" {
		if err := bundle.Write(opts.IO.Out, recs); err != nil {
			return err
		}
		return partial
	}
	var b strings.Builder
	if err := bundle.Write(&b, recs); err != nil {
		return err
	}
	if err := memdir.WriteAtomic(opts.Output, []byte(b.String()), 0o600); err != nil {
		return err
	}
	if opts.JSON {
		if err := printJSON(opts.IO.Out, res); err != nil {
			return err
		}
		return partial
	}
	opts.IO.Infof("memctl: exported %d memories, %d forgets and %d notes (%s) to %s", res.Memories, res.Forgets, res.Notes, res.Scope, opts.Output)
	return partial
}

// exportRecords reads the bundle's records from the store. A database
// that cannot be opened or read whole (store.IsDamaged) is salvaged: its
// readable rows are copied into a scratch database in a private
// temporary folder and exported from there, and the report says what
// was left out (also printed as warnings).
func exportRecords(ctx context.Context, opts *ExportOptions, version memversion.Version, root string, eo bundle.ExportOptions) ([]bundle.Record, *store.SalvageReport, error) {
	st, err := opts.OpenStore(ctx, version)
	var path string
	var damaged *store.DamagedError
	switch {
	case errors.As(err, &damaged):
		path = damaged.Path
	case err != nil:
		return nil, nil, err
	default:
		recs, err := bundle.Export(ctx, st, root, eo)
		path = st.Path()
		st.Close()
		if !store.IsDamaged(err) {
			return recs, nil, err
		}
		opts.IO.Warnf("%v", err)
	}
	tmp, err := os.MkdirTemp("", "memctl-salvage-*")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(tmp)
	sv, rep, err := store.Salvage(ctx, path, filepath.Join(tmp, store.FileName(version)))
	if err != nil {
		return nil, nil, fmt.Errorf("salvage %s: %w", path, err)
	}
	defer sv.Close()
	opts.IO.Warnf("the database %s is damaged: exporting what can still be read", path)
	warnSalvage(opts.IO, rep)
	recs, err := bundle.Export(ctx, sv, root, eo)
	return recs, &rep, err
}

// warnSalvage says what a salvage read and what it left out.
func warnSalvage(ios *IOStreams, rep store.SalvageReport) {
	switch {
	case rep.Empty:
		ios.Warnf("%s is empty: no memory to read; the bundle holds the memory folder's notes only", rep.Source)
		return
	case rep.Unreadable != "":
		ios.Warnf("nothing of %s could be read (%s); the bundle holds the memory folder's notes only", rep.Source, rep.Unreadable)
		return
	case rep.HeaderRepaired:
		ios.Warnf("its header was damaged; it was read with a fresh one (page size %d)", rep.PageSize)
	}
	for _, t := range rep.Tables {
		switch {
		case t.Error != "":
			ios.Warnf("%s: not read: %s", t.Name, t.Error)
		case len(t.Skipped) > 0:
			var ranges []string
			for _, r := range t.Skipped {
				ranges = append(ranges, r.String())
			}
			ios.Warnf("%s: %d rows read; the rows at rowids %s could not be read and are not in the bundle", t.Name, t.Rows, strings.Join(ranges, ", "))
		default:
			ios.Warnf("%s: %d rows read, none left out", t.Name, t.Rows)
		}
	}
}

// projectLessons are the preferences and tips of the project's own
// summary in the memory folder at root (agentfiles.ProjectLessons); none
// when memory has no summary of the project.
func projectLessons(cfg *config.Config, root, proj string) (agentfiles.Lessons, error) {
	ix, err := project.LoadIndex(filepath.Join(root, filepath.FromSlash(memdir.ProjectIndexFile)))
	if err != nil || ix == nil {
		return agentfiles.Lessons{}, err
	}
	r, err := project.Resolve(proj, ix, nil, cfg.ProjectOverrides())
	if err != nil || r.Entry.Dir == "" {
		return agentfiles.Lessons{}, projectArgError(err)
	}
	b, err := os.ReadFile(filepath.Join(root, memdir.ProjectsDir, r.Entry.Dir, memdir.ProjectSummaryFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return agentfiles.Lessons{}, err
	}
	return agentfiles.ProjectLessons(string(b), root), nil
}

// exportTo writes the project's memory into an agent's file: its own
// lessons into a repository's AGENTS.md or CLAUDE.md, what summary gives
// it into Codex's extension file.
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
	var body string
	if opts.To == agentfiles.Codex {
		// Codex's extension file is the user's own, beside their other
		// memory: what summary gives the project, personal layer included.
		res, err := inject.Scoped(inject.Request{Root: root, Version: cfg.Memories.Version, Raw: true, TemplateDir: cfg.Templates.Dir,
			Project: proj, Overrides: cfg.ProjectOverrides(), Checks: summary.HealthChecks(cfg)})
		if err != nil {
			return err
		}
		body = "# Memory (memctl)\n\nWhat memctl learnt from past sessions in this project. Regenerate it with `memctl export --to " + opts.To +
			"` rather than editing it here; the repository's own instructions outside this block take precedence.\n"
		if res.Injected {
			body += "\n" + red(res.Text) + "\n"
		} else {
			body += "\nNo memory has been consolidated yet.\n"
		}
	} else {
		// A repository's file is committed and read by the whole team:
		// this project's own lessons only.
		lessons, err := projectLessons(cfg, root, proj)
		if err != nil {
			return err
		}
		scrubbed, _ := quarantine.Scrub(red(lessons.Body(opts.To)))
		body = scrubbed
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
