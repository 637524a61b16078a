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
	"github.com/memctl/memctl/internal/summary"
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

// summaryProject is the project a summary is for (summary.Project).
func summaryProject(opts *SummaryOptions) string {
	getwd := opts.Getwd
	if getwd == nil {
		getwd = os.Getwd
	}
	p, _ := summary.Project(opts.Project, opts.Agent, opts.IO.In, opts.IO.StdinTTY, getwd)
	return p
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
		req := summary.Request{Config: cfg, Root: root, MaxTokens: opts.MaxTokens, Raw: opts.Raw, Agent: opts.Agent, AllProjects: opts.AllProjects}
		if !opts.AllProjects {
			req.Project = summaryProject(opts)
		}
		if res, err = summary.Build(ctx, req); err != nil {
			return projectArgError(err)
		}
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
	if summary.Silent(res, opts.Agent, opts.AllProjects) {
		return nil
	}
	noLayer := res.Project == nil && !res.Injected && !opts.AllProjects // nothing consolidated yet
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
