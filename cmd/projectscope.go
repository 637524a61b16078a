package cmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/project"
	"github.com/memctl/memctl/internal/store"
	"github.com/spf13/cobra"
)

// ProjectScope is the --project / --all-projects pair the commands that
// read memory share (docs/projects.md): by default they work on the
// project of the working directory.
type ProjectScope struct {
	Project     string // --project PATH|KEY|NAME
	AllProjects bool
	Getwd       func() (string, error)
}

func (s *ProjectScope) addFlags(c *cobra.Command, what string) {
	c.Flags().StringVar(&s.Project, "project", "", what+" of this project: a `PATH`, a project key or name (default: the working directory's)")
	c.Flags().BoolVar(&s.AllProjects, "all-projects", false, what+" of every project")
}

func (s *ProjectScope) check(c *cobra.Command) error {
	if s.AllProjects && c.Flags().Changed("project") {
		return FlagErrorf("--project and --all-projects cannot be used together")
	}
	return nil
}

// scopeResult is the project a command was scoped to; Key is "" for every
// project.
type scopeResult struct {
	Key  string `json:"key"`
	Name string `json:"name"`
	// Fallback says the working directory's project has no threads, so
	// every project is shown (never for an explicit --project).
	Fallback bool `json:"fallback,omitempty"`
}

// projectsKnown is what memory knows of projects, for project.Resolve:
// the memory folder's index under root (what its consolidations wrote;
// nil when there is none, or root is "") and the store's projects (what
// status lists, also those not consolidated yet; none when st is nil).
func projectsKnown(ctx context.Context, st *store.Store, root string) (*project.Index, []project.Known, error) {
	var ix *project.Index
	if root != "" {
		ix, _ = project.LoadIndex(filepath.Join(root, filepath.FromSlash(memdir.ProjectIndexFile)))
	}
	if st == nil {
		return ix, nil, nil
	}
	counts, err := st.ProjectCounts(ctx)
	if err != nil {
		return ix, nil, err
	}
	known := make([]project.Known, 0, len(counts))
	for _, c := range counts {
		known = append(known, project.Known{Key: c.Key, Name: c.Name})
	}
	return ix, known, nil
}

// projectKeyOf turns --project (a folder, a key or a name) into the key
// of a project memory knows, of a folder, or a key memory holds nothing of
// yet; a name nothing knows is a usage error. What memory knows of
// projects is the folder's index at root and the store st's (nil: none).
func projectKeyOf(ctx context.Context, cfg *config.Config, st *store.Store, root, p string) (string, error) {
	arg := strings.TrimSpace(p)
	if folder, ok := project.FolderArg(arg); ok {
		arg = folder
	}
	ix, known, err := projectsKnown(ctx, st, root)
	if err != nil {
		return "", err
	}
	res, err := project.Resolve(arg, ix, known, cfg.ProjectOverrides())
	switch {
	case err != nil:
		return "", projectArgError(err)
	case res.Known, res.Folder:
		return res.Identity.Key, nil
	case strings.Contains(arg, ":"):
		return arg, nil // a key memory holds nothing of yet
	}
	return "", withHint(FlagErrorf("--project: no project %q", p), "give a folder, a key (git:…, git-root:…, path:…) or the name `memctl status` shows")
}

// projectArgError makes project.Resolve's refusal of a name several
// projects share a usage error of --project that lists their keys; other
// errors pass through.
func projectArgError(err error) error {
	var amb *project.AmbiguousError
	if errors.As(err, &amb) {
		return withHint(FlagErrorf("--project: %s", amb.Error()), amb.Hint())
	}
	return err
}

// resolve turns the scope into a project key the store filters on, the
// memory folder at root and the store st knowing the projects. An
// explicit --project that names nothing known is an error; the working
// directory's project with no threads falls back to every project, so a
// user looking from an unrelated folder still sees their memory.
func (s *ProjectScope) resolve(ctx context.Context, cfg *config.Config, st *store.Store, root string) (scopeResult, error) {
	if s.AllProjects {
		return scopeResult{}, nil
	}
	ix, known, err := projectsKnown(ctx, st, root)
	if err != nil {
		return scopeResult{}, err
	}
	arg, _, err := projectArgOrWorkingDir(s.Project, s.Getwd)
	if err != nil { // no working directory: every project
		return scopeResult{Fallback: true}, nil
	}
	r, err := project.Resolve(arg, ix, known, cfg.ProjectOverrides())
	switch {
	case err != nil:
		return scopeResult{}, projectArgError(err)
	case r.Known || (r.Folder && s.Project != ""):
		// An explicit folder with no sessions: an empty scope, said so.
		return scopeResult{Key: r.Identity.Key, Name: r.Identity.Name}, nil
	case r.Folder:
		return scopeResult{Fallback: true}, nil
	}
	var names []string
	for _, k := range known {
		if k.Key != "" {
			names = append(names, k.Name)
		}
	}
	hint := "no project is in memory yet; give a folder"
	if len(names) > 0 {
		if len(names) > 5 {
			names = append(names[:5], "…")
		}
		hint = "projects in memory: " + strings.Join(names, ", ") + " (`memctl status` lists them all); or give a folder or a key"
	}
	return scopeResult{}, withHint(FlagErrorf("--project: no project %q", s.Project), hint)
}

// projectArgOrWorkingDir is the folder, key or name a --project value
// gives (a folder argument unwrapped) or, when the value is empty, the
// working directory as an absolute path; fromWd tells the second, and err
// is only getwd's.
func projectArgOrWorkingDir(value string, getwd func() (string, error)) (arg string, fromWd bool, err error) {
	arg = strings.TrimSpace(value)
	if folder, ok := project.FolderArg(arg); ok {
		arg = folder
	}
	if arg != "" {
		return arg, false, nil
	}
	if getwd == nil {
		getwd = os.Getwd
	}
	wd, err := getwd()
	if err != nil {
		return "", true, err
	}
	if abs, err := filepath.Abs(wd); err == nil {
		wd = abs
	}
	return wd, true, nil
}
