package cmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/internal/config"
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

// knownProjects are the store's projects, for project.Match.
func knownProjects(counts []store.ProjectCount) []project.Known {
	out := make([]project.Known, len(counts))
	for i, c := range counts {
		out[i] = project.Known{Key: c.Key, Name: c.Name}
	}
	return out
}

// projectArgError makes project.Match's refusal of a name several
// projects share a usage error of --project that lists their keys; other
// errors pass through.
func projectArgError(err error) error {
	var amb *project.AmbiguousError
	if errors.As(err, &amb) {
		return withHint(FlagErrorf("--project: %s", amb.Error()), amb.Hint())
	}
	return err
}

// resolve turns the scope into a project key the store filters on. An
// explicit --project that names nothing known is an error; the working
// directory's project with no threads falls back to every project, so a
// user looking from an unrelated folder still sees their memory.
func (s *ProjectScope) resolve(ctx context.Context, cfg *config.Config, st *store.Store) (scopeResult, error) {
	if s.AllProjects {
		return scopeResult{}, nil
	}
	counts, err := st.ProjectCounts(ctx)
	if err != nil {
		return scopeResult{}, err
	}
	known := func(key string) (store.ProjectCount, bool) {
		for _, c := range counts {
			if c.Key == key && key != "" {
				return c, true
			}
		}
		return store.ProjectCount{}, false
	}
	p := strings.TrimSpace(s.Project)
	folder, isFolder := project.FolderArg(p)
	if p != "" && !isFolder {
		k, found, err := project.Match(p, knownProjects(counts))
		if err != nil {
			return scopeResult{}, projectArgError(err)
		}
		if found {
			return scopeResult{Key: k.Key, Name: k.Name}, nil
		}
		var names []string
		for _, c := range counts {
			if c.Key != "" {
				names = append(names, c.Name)
			}
		}
		hint := "no project is in memory yet; give a folder"
		if len(names) > 0 {
			if len(names) > 5 {
				names = append(names[:5], "…")
			}
			hint = "projects in memory: " + strings.Join(names, ", ") + " (`memctl status` lists them all); or give a folder or a key"
		}
		return scopeResult{}, withHint(FlagErrorf("--project: no project %q", p), hint)
	}
	dir := folder
	if dir == "" {
		getwd := s.Getwd
		if getwd == nil {
			getwd = os.Getwd
		}
		if dir, err = getwd(); err != nil {
			return scopeResult{Fallback: true}, nil
		}
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
	}
	id := project.NewResolver(cfg.ProjectOverrides()).Resolve(dir, "")
	if c, ok := known(id.Key); ok {
		return scopeResult{Key: c.Key, Name: c.Name}, nil
	}
	if p != "" {
		// An explicit folder with no sessions: an empty scope, said so.
		return scopeResult{Key: id.Key, Name: id.Name}, nil
	}
	return scopeResult{Fallback: true}, nil
}
