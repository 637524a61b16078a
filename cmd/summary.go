package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/inject"
	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/project"
	"github.com/memctl/memctl/internal/review"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/team"
	"github.com/spf13/cobra"
)

// SummaryOptions is what `memctl summary` needs: injected loaders first,
// then the flag values. It has no store loader: summary runs before every
// agent turn and reads one file and the config.
type SummaryOptions struct {
	IO         *IOStreams
	Config     func() (*config.Config, error)
	MemoryRoot func(version memversion.Version) (string, error)
	Now        func() time.Time

	// Getwd is the folder whose project is injected by default.
	Getwd func() (string, error)

	JSON        bool
	Raw         bool
	MaxTokens   int
	Agent       string // "", claude-code or codex
	Project     string // --project PATH|KEY; "" = the hook payload's cwd, else the working directory
	AllProjects bool
}

// hookPayloadWait bounds how long summary --agent waits for the hook
// payload on stdin: the agents write it at once, and a summary must never
// hold up a session.
const hookPayloadWait = 300 * time.Millisecond

// summaryAgents are the values of summary --agent.
var summaryAgents = []string{inject.AgentClaudeCode, inject.AgentCodex}

func newSummaryCmd(f *Factory, runF func(context.Context, *SummaryOptions) error) *cobra.Command {
	opts := &SummaryOptions{IO: f.IO, Config: f.Config, MemoryRoot: f.MemoryRoot, Now: f.Now, Getwd: os.Getwd}
	c := &cobra.Command{
		Use:   "summary",
		Short: "Print the memory instructions and summary for the next prompt",
		Long: `Print the read-path instructions with memory_summary.md of the configured memory
version, cut to --max-tokens (about 4 bytes a token, keeping the head and the
tail), ready to prepend to an agent's prompt. Prints nothing at all (exit 0) when
there is no summary and nothing waits for review, or memories.use_memories is
false. When memory waits for the user's review (notes agents proposed, memory
held from another machine, a bundle or the repository's team folder; see memctl
review), one last line says how many items wait; none of them is injected.

--agent renders the instructions for the agent whose hook prints them:
claude-code and codex show the reply before any hook sees it, so the
citation block cannot be removed; the model is told so and asked for the
short form (rollout ids only) that still counts.

The summary is scoped to a project (docs/projects.md): the personal layer
(what holds in every project) and the summary of the current project; no
other project's memory or name. A folder with no memory of its own is given
the personal layer alone, without the instructions, or nothing when it has
no rule; stderr says so and names the projects in memory. The project is
--project (a folder, a project key or name; a name memory does not know is
an error, exit 2), else the cwd of the hook payload on stdin when run as an
agent's hook (--agent, which never fails over it), else the working
directory. --all-projects prints the global memory_summary.md instead.

It runs before every agent turn, so it reads a few files and the config: it
never opens the database or scans transcripts. When the repository's team
folder holds files, it runs one git ls-tree to learn which HEAD committed
(docs/team.md).`,
		Args: cobra.NoArgs,
		Example: `  $ memctl summary >> prompt.md
  $ memctl summary --raw --max-tokens 500
  $ memctl summary --json | jq -r .text
  $ memctl summary --agent claude-code   # a Claude Code SessionStart hook
  $ memctl summary --project ~/src/app
  $ memctl summary --all-projects`,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.JSON = f.JSON
			if opts.MaxTokens < 0 {
				return FlagErrorf("--max-tokens must not be negative")
			}
			if opts.AllProjects && c.Flags().Changed("project") {
				return FlagErrorf("--project and --all-projects cannot be used together")
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runSummary(c.Context(), opts)
		},
	}
	c.Flags().BoolVar(&opts.Raw, "raw", false, "print the cut summary alone, without the instructions")
	stringEnumFlag(c, c.Flags(), &opts.Agent, "agent", "", summaryAgents, "render the instructions for this agent's hook (the citation block stays visible there)")
	c.Flags().IntVar(&opts.MaxTokens, "max-tokens", inject.DefaultSummaryTokens, "cut the summary to about `N` tokens")
	c.Flags().StringVar(&opts.Project, "project", "", "inject the memory of this project: a `PATH`, a project key or name (default: the hook payload's cwd, else the working directory)")
	c.Flags().BoolVar(&opts.AllProjects, "all-projects", false, "inject the global summary of every project")
	return c
}

// summaryProject is the project a summary is for: --project (a path made
// absolute), else the cwd of an agent hook's payload, else the working
// directory.
func summaryProject(opts *SummaryOptions) string {
	if p := strings.TrimSpace(opts.Project); p != "" {
		if abs, ok := project.FolderArg(p); ok {
			return abs
		}
		return p
	}
	if opts.Agent != "" && !opts.IO.StdinTTY && opts.IO.In != nil {
		if cwd := sessions.HookPayloadCwd(opts.IO.In, hookPayloadWait); filepath.IsAbs(cwd) {
			return filepath.Clean(cwd)
		}
	}
	getwd := opts.Getwd
	if getwd == nil {
		getwd = os.Getwd
	}
	wd, err := getwd()
	if err != nil {
		return ""
	}
	return wd
}

func runSummary(ctx context.Context, opts *SummaryOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	res := inject.SummaryResult{}
	if cfg.Memories.UseMemories {
		root, err := opts.MemoryRoot(cfg.Memories.Version)
		if err != nil {
			return err
		}
		req := inject.Request{
			Root: root, Version: cfg.Memories.Version, MaxTokens: opts.MaxTokens, Raw: opts.Raw,
			TemplateDir: cfg.Templates.Dir, Agent: opts.Agent, AllProjects: opts.AllProjects,
			Overrides: cfg.ProjectOverrides(), Checks: healthChecks(cfg),
		}
		red, err := redactor(cfg)
		if err != nil {
			return err
		}
		if !opts.AllProjects {
			req.Project = summaryProject(opts)
			var top string
			req.TeamDir, req.TeamRel, top = teamDir(cfg, req.Project)
			req.Redact = red
			teamChecks(ctx, &req, top, root)
		}
		res, err = inject.Scoped(req)
		if err != nil {
			return projectArgError(err)
		}
		if res.Injected {
			res.Text = red(res.Text)
		}
		res.AddWaiting(review.Count(root))
		if err := summaryWithoutMemory(opts, root, res); err != nil {
			return err
		}
	}
	if opts.JSON {
		return printJSON(opts.IO.Out, res)
	}
	if !res.Injected {
		return nil
	}
	_, err = fmt.Fprintln(opts.IO.Out, opts.IO.Text(res.Text))
	return err
}

// summaryWithoutMemory says why a summary holds no project memory, on
// stderr, so a person who runs summary outside a project, or mistypes
// --project, is not left with silence or a bare personal layer. A
// --project that names no folder and no project in memory is a usage
// error (exit 2) naming it. As an agent's hook (--agent) summary says
// nothing and never fails over it: a session must not be held up.
func summaryWithoutMemory(opts *SummaryOptions, root string, res inject.SummaryResult) error {
	noLayer := res.Project == nil && !res.Injected && !opts.AllProjects // nothing consolidated yet
	if opts.Agent != "" || res.Team != nil && res.Team.Entries > 0 || !noLayer && (res.Project == nil || res.Project.HasMemory) {
		return nil
	}
	var names []string
	if ix, err := project.LoadIndex(filepath.Join(root, filepath.FromSlash(memdir.ProjectIndexFile))); err == nil && ix != nil {
		for _, e := range ix.Projects {
			names = append(names, project.OneLine(e.Name))
		}
	}
	known := "no project has memory yet"
	if len(names) > 0 {
		known = "projects in memory: " + strings.Join(names, ", ")
	}
	arg := strings.TrimSpace(opts.Project)
	if _, isFolder := project.FolderArg(arg); arg != "" && !isFolder && !strings.Contains(arg, ":") && (noLayer || res.Project.File == "") {
		return withHint(FlagErrorf("--project: no project %q in memory", arg), known+"; give one of them, a folder or a key")
	}
	if opts.JSON || noLayer {
		return nil
	}
	what := "nothing"
	if res.Injected {
		what = "only your personal rules"
	}
	opts.IO.Infof("memctl: no memory of %s (%s) yet, so summary printed %s; %s (memctl summary --project NAME)",
		res.Project.Name, res.Project.Key, what, known)
	return nil
}

// teamDir is the team folder of the repository that holds dir, how the
// summary names it (docs/team.md), and the repository's top folder; ""
// when dir is no folder in a repository. It reads .git, never runs git.
func teamDir(cfg *config.Config, dir string) (abs, rel, top string) {
	if !filepath.IsAbs(dir) {
		return "", "", ""
	}
	r := project.NewResolver(cfg.ProjectOverrides(), project.WithoutGit())
	if !r.InRepository(dir) {
		return "", "", ""
	}
	id := r.Resolve(dir, "")
	if id.Root == "" {
		return "", "", ""
	}
	rel = filepath.ToSlash(filepath.Clean(cfg.Team.Path))
	if filepath.IsAbs(cfg.Team.Path) {
		return filepath.Clean(cfg.Team.Path), rel, id.Root
	}
	return filepath.Join(id.Root, filepath.FromSlash(rel)), rel, id.Root
}

// teamChecks tells the read path which team files are team memory: what
// HEAD committed (git ls-tree, run only when the folder has a Markdown
// file) and what the user approved of what the quarantine holds.
func teamChecks(ctx context.Context, req *inject.Request, top, root string) {
	if req.TeamDir == "" || !hasMarkdown(req.TeamDir) {
		return
	}
	req.TeamCommitted, _ = team.CommittedFiles(ctx, top, req.TeamDir) // no git: nothing is committed
	req.TeamHash = review.TeamHash
	var approved map[string]bool
	req.TeamApproved = func(h string) bool {
		if approved == nil {
			approved = review.TeamApproved(root)
		}
		return approved[h]
	}
}

func hasMarkdown(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".md") {
			return true
		}
	}
	return false
}

// healthChecks are the checks the read path runs before memory is shown
// (docs/stale.md): the stale checks within their time budget. The budget
// is real elapsed time, so it reads the wall clock, not the injected one
// (MEMCTL_NOW fixes the date, not how long a stat takes).
func healthChecks(cfg *config.Config) *inject.Checks {
	return &inject.Checks{Stale: cfg.Health.StaleChecks, Budget: cfg.Health.StaleBudget,
		RewriteThreshold: float64(cfg.Health.RewriteThreshold) / 100}
}
