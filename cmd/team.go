package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/project"
	"github.com/memctl/memctl/internal/redact"
	"github.com/memctl/memctl/internal/store"
	"github.com/memctl/memctl/internal/summary"
	"github.com/memctl/memctl/internal/team"
	"github.com/spf13/cobra"
)

func newTeamCmd(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "team <command>",
		Short: "Share chosen memories with the team through the repository",
		Long: `The team layer is a folder of the repository (.memctl/ by default, team.path
in the config) holding memories a member chose to share, as plain Markdown
with author, source session and date. They are reviewed like any change
and committed; summary then gives them to every session in the project,
ranked above the memory memctl inferred and below the repository's own
rules files (AGENTS.md, CLAUDE.md). See docs/team.md.`,
		Example: `  $ memctl team propose 0199a1b2
  $ git add .memctl && git commit -m "memory: how we run the integration tests"`,
	}
	c.AddCommand(newTeamProposeCmd(f, nil))
	return c
}

// TeamProposeOptions is what `memctl team propose` needs: injected loaders
// first, then the argument and flag values.
type TeamProposeOptions struct {
	IO        *IOStreams
	Config    func() (*config.Config, error)
	OpenStore func(ctx context.Context, version memversion.Version) (*store.Store, error)
	Now       func() time.Time
	Getwd     func() (string, error)
	Getenv    func(string) string

	JSON   bool
	IDs    []string
	Repo   string // the repository's folder ("" = the working directory's)
	Author string
	// Lesson, when not 0, proposes that one lesson of the memory (its
	// number as List prints it) instead of all of them.
	Lesson int
	// List prints each memory's numbered lessons and writes nothing.
	List bool
}

// teamLessonsJSON is the --json document of team propose --list.
type teamLessonsJSON struct {
	ID      string        `json:"id"`
	Lessons []team.Lesson `json:"lessons"`
}

// teamProposeJSON is the --json document of team propose.
type teamProposeJSON struct {
	Repository string          `json:"repository"`
	Dir        string          `json:"dir"`
	Files      []team.Proposed `json:"files"`
}

func newTeamProposeCmd(f *Factory, runF func(context.Context, *TeamProposeOptions) error) *cobra.Command {
	opts := &TeamProposeOptions{IO: f.IO, Config: f.Config, OpenStore: f.OpenStore, Now: f.Now, Getwd: os.Getwd, Getenv: f.Getenv}
	c := &cobra.Command{
		Use:   "propose ID...",
		Short: "Write chosen memories into the repository's team folder for review",
		Long: `Share the lessons of each raw memory ID (a full id or a unique prefix, as
memctl memories list shows them) with the team: one short Markdown file per
memory in the team folder of the repository, with front matter (the author,
the source session, the project, the date), the memory's title, and its
preferences and lessons (at most five, the file under 1.5 KB) - not the
session's story, the agent's words or this machine's folders. --list prints
each memory's numbered preferences and lessons and writes nothing;
--lesson N shares lesson N of one memory alone. Review the files as a normal
diff, then commit them: nothing reaches the team layer without this command
and that commit.

Every file is checked before anything is written. A file that would carry a
secret (any redaction rule) or an instruction-shaped line (the quarantine's
injection and exfiltration rules) is refused whole, with the rule named, and
then nothing is written at all. A memory proposed again replaces its file.

The author is --author, else who git would record as the author of a commit
in the repository (user.name and user.email), else $USER.

EXIT STATUS
  0  the files were written
  2  an ID names no raw memory, or one with no lesson to share (or no lesson
     N), or the folder is no repository
  7  a memory was refused (a secret or an instruction); nothing was written`,
		Args: cobra.MinimumNArgs(1),
		Example: `  $ memctl team propose 0199a1b2 0199c3d4
  $ memctl team propose --list 0199a1b2
  $ memctl team propose --lesson 2 0199a1b2
  $ memctl team propose --author "Ada <ada@example.com>" 0199a1b2
  $ git diff --stat .memctl/`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.JSON = f.JSON
			opts.IDs = args
			if c.Flags().Changed("lesson") && (opts.Lesson < 1 || len(args) != 1) {
				return FlagErrorf("--lesson takes a number from 1 and one memory ID (memctl team propose --list ID numbers them)")
			}
			if opts.List && opts.Lesson != 0 {
				return FlagErrorf("--list and --lesson cannot be used together")
			}
			return runOrHook(c.Context(), opts, runF, runTeamPropose)
		},
	}
	c.Flags().StringVar(&opts.Repo, "repo", "", "the repository's `DIR` (default: the working directory's)")
	c.Flags().StringVar(&opts.Author, "author", "", "who proposes the memories (default: git's user.name and user.email)")
	c.Flags().IntVar(&opts.Lesson, "lesson", 0, "share lesson `N` of the memory alone (--list numbers them)")
	c.Flags().BoolVar(&opts.List, "list", false, "print each memory's numbered lessons; write nothing")
	return c
}

func runTeamPropose(ctx context.Context, opts *TeamProposeOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	dir := opts.Repo
	if dir == "" {
		if dir, err = opts.Getwd(); err != nil {
			return err
		}
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return err
	}
	r := project.NewResolver(cfg.ProjectOverrides())
	if !r.InRepository(dir) {
		return withHint(FlagErrorf("%s is not in a git repository: the team layer lives in one", dir), "run it inside the repository, or pass --repo DIR")
	}
	id := r.Resolve(dir, "")
	root := id.Root
	if root == "" {
		root = dir
	}
	abs, rel, _ := summary.TeamDir(cfg, dir)
	if abs == "" {
		rel = filepath.ToSlash(filepath.Clean(cfg.Team.Path))
		abs = filepath.Join(root, filepath.FromSlash(rel))
	}
	st, err := opts.OpenStore(ctx, cfg.Memories.Version)
	if err != nil {
		return err
	}
	defer st.Close()
	author := strings.TrimSpace(opts.Author)
	if author == "" {
		author = gitAuthor(ctx, root, opts.Getenv)
	}
	date := opts.Now().UTC().Format("2006-01-02")
	var entries []team.Entry
	var listed []teamLessonsJSON
	for _, arg := range opts.IDs {
		m, err := lookupMemory(ctx, st, cfg.Memories.Version, arg)
		if err != nil {
			return err
		}
		full := m.ThreadID
		th, err := st.Thread(ctx, full)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		body := strings.TrimSpace(m.RawMemory)
		if cfg.Memories.Version == memversion.V2 || body == "" {
			body = strings.TrimSpace(m.RolloutSummary)
		}
		lessons := team.Lessons(body)
		if opts.List {
			listed = append(listed, teamLessonsJSON{ID: full, Lessons: lessons})
			continue
		}
		title := team.Title(body)
		if opts.Lesson != 0 {
			l, err := team.Pick(lessons, opts.Lesson)
			if err != nil {
				return withHint(FlagErrorf("memory %s: %v", full, err), "memctl team propose --list "+full+" numbers them")
			}
			lessons, title = []team.Lesson{l}, team.Title(l.Text)
		}
		if len(lessons) == 0 {
			return withHint(FlagErrorf("memory %s has no lesson or preference to share", full), "memctl memories show "+full+" shows what it holds")
		}
		session := full
		if th.SourceKind != "" {
			session += " (" + th.SourceKind + ", " + th.UpdatedAt.UTC().Format("2006-01-02") + ")"
		}
		key := th.ProjectKey
		if key == "" {
			key = id.Key
		}
		if key != id.Key {
			opts.IO.Warnf("memory %s is from project %s, not this repository's (%s); proposing it here anyway", full, key, id.Key)
		}
		entries = append(entries, team.Entry{ID: full, Title: title, Author: author, Session: session,
			Project: key, Date: date, Body: team.LessonBody(lessons)})
	}
	if opts.List {
		return printTeamLessons(opts.IO, opts.JSON, listed)
	}
	red, err := redact.New(cfg.Redaction.ExtraPatterns)
	if err != nil {
		return &config.Error{Key: "redaction.extra_patterns", Err: err}
	}
	find := func(s string) (string, int, bool) {
		f, ok := red.Find(s)
		return f.Rule, f.Line, ok
	}
	files, err := team.Propose(abs, rel, entries, find)
	if err != nil {
		var refused *team.RefusedError
		if errors.As(err, &refused) {
			return &RefusedError{Err: err}
		}
		return err
	}
	if opts.JSON {
		return printJSON(opts.IO.Out, teamProposeJSON{Repository: root, Dir: abs, Files: files})
	}
	for _, p := range files {
		fmt.Fprintln(opts.IO.Out, p.File)
	}
	opts.IO.Infof("wrote %d team file(s) under %s; review them (git diff) and commit to share them", len(files), abs)
	return nil
}

// printTeamLessons prints what team propose --list found: each memory's
// numbered lessons, the number --lesson takes.
func printTeamLessons(ios *IOStreams, jsonOut bool, listed []teamLessonsJSON) error {
	if jsonOut {
		return printJSON(ios.Out, listed)
	}
	for _, m := range listed {
		fmt.Fprintln(ios.Out, m.ID)
		if len(m.Lessons) == 0 {
			fmt.Fprintln(ios.Out, "  no lesson or preference to share")
		}
		for _, l := range m.Lessons {
			fmt.Fprintf(ios.Out, "  %d  %s: %s\n", l.N, l.Kind, ios.Text(l.Text))
		}
	}
	return nil
}

// gitAuthor is who git would record as the author of a commit in the
// repository (its config, or GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL), else
// $USER.
func gitAuthor(ctx context.Context, dir string, getenv func(string) string) string {
	if bin, err := exec.LookPath("git"); err == nil {
		cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		// "Name <email> 1780000000 +0000": the identity without the time.
		if out, err := exec.CommandContext(cctx, bin, "-C", dir, "var", "GIT_AUTHOR_IDENT").Output(); err == nil {
			if f := strings.Fields(string(out)); len(f) > 2 {
				return strings.Join(f[:len(f)-2], " ")
			}
		}
	}
	if u := getenv("USER"); u != "" {
		return u
	}
	return "unknown"
}
