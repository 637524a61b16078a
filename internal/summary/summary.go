// Package summary is what `memctl summary` prints before every agent
// turn: the memory of the session's project (or of every project), with
// its instructions, redacted, and a count of what waits for review. Both
// programs that print it build it here: memctl (cmd/summary.go) and
// memctl-summary, the small program agent hooks run (Main). It reads the
// config and a few files; it never opens the database, and runs git only
// when the repository's team folder holds files.
package summary

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/inject"
	"github.com/memctl/memctl/internal/project"
	"github.com/memctl/memctl/internal/reviewdir"
	"github.com/memctl/memctl/internal/team"
)

// Request is one summary as the flags ask for it.
type Request struct {
	Config *config.Config
	// Root is the memory folder of Config's version.
	Root string
	// Project is the folder (absolute), project key or name whose memory
	// is injected (Project); unused with AllProjects.
	Project     string
	MaxTokens   int
	Raw         bool
	Agent       string // "", inject.AgentClaudeCode or inject.AgentCodex
	AllProjects bool
}

// Build renders the summary of req: the project's memory (or the global
// summary with AllProjects) cut to MaxTokens, redacted, with the items
// that wait for review counted. The config's memories.use_memories is the
// caller's to check. An error of inject.Scoped (a --project memory does
// not know, two projects of one name) is returned as it is.
func Build(ctx context.Context, req Request) (inject.SummaryResult, error) {
	cfg := req.Config
	ir := inject.Request{
		Root: req.Root, Version: cfg.Memories.Version, MaxTokens: req.MaxTokens, Raw: req.Raw,
		TemplateDir: cfg.Templates.Dir, Agent: req.Agent, AllProjects: req.AllProjects,
		Overrides: cfg.ProjectOverrides(), Checks: HealthChecks(cfg),
	}
	red, err := cfg.Redactor()
	if err != nil {
		return inject.SummaryResult{}, err
	}
	if !req.AllProjects {
		ir.Project = req.Project
		// One resolver for the team folder and the project layer: the
		// project's folder is read once.
		ir.Resolver = project.NewResolver(ir.Overrides, project.WithoutGit())
		var top string
		ir.TeamDir, ir.TeamRel, top = teamDir(ir.Resolver, cfg, req.Project)
		if ir.TeamDir != "" && !HasTeamFiles(ir.TeamDir) {
			// No team file to read (team.Load reads only Markdown): the
			// folder is looked at once, not again by the team layer.
			ir.TeamDir, ir.TeamRel = "", ""
		}
		ir.Redact = red
		teamChecks(ctx, &ir, top, req.Root)
	}
	res, err := inject.Scoped(ir)
	if err != nil {
		return res, err
	}
	if res.Injected {
		res.Text = red(res.Text)
	}
	res.AddWaiting(reviewdir.Count(req.Root))
	return res, nil
}

// Silent reports a summary that has nothing to say on stderr: one run as
// an agent's hook (a session must not be held up or told off), one that
// injected team memory, or one that found the project's memory (or needs
// none). Otherwise memctl says why it printed no project memory, or
// refuses a --project that names nothing (cmd/summary.go).
func Silent(res inject.SummaryResult, agent string, allProjects bool) bool {
	noLayer := res.Project == nil && !res.Injected && !allProjects // nothing consolidated yet
	return agent != "" || res.Team != nil && res.Team.Entries > 0 || !noLayer && (res.Project == nil || res.Project.HasMemory)
}

// Project is the project a summary is for: the --project argument (a
// folder made absolute), else the cwd of an agent hook's payload on stdin
// (agent set and stdin no terminal), else the working directory. rest is
// stdin as a second reader must see it: stdin itself when Project left it
// unread, else what the payload was.
func Project(arg, agent string, stdin io.Reader, stdinTTY bool, getwd func() (string, error)) (p string, rest io.Reader) {
	if p := strings.TrimSpace(arg); p != "" {
		if abs, ok := project.FolderArg(p); ok {
			return abs, stdin
		}
		return p, stdin
	}
	rest = stdin
	if agent != "" && !stdinTTY && stdin != nil {
		payload, cwd := hookPayload(stdin, HookPayloadWait)
		if rest = replay(payload); filepath.IsAbs(cwd) {
			return filepath.Clean(cwd), rest
		}
	}
	wd, err := getwd()
	if err != nil {
		return "", rest
	}
	return wd, rest
}

// TeamDir is the team folder of the repository that holds dir, how the
// summary names it (docs/team.md), and the repository's top folder; ""
// when dir is no folder in a repository. It reads .git, never runs git.
func TeamDir(cfg *config.Config, dir string) (abs, rel, top string) {
	return teamDir(project.NewResolver(cfg.ProjectOverrides(), project.WithoutGit()), cfg, dir)
}

// teamDir is TeamDir with the git-free resolver r of the config's
// [[projects]] entries.
func teamDir(r *project.Resolver, cfg *config.Config, dir string) (abs, rel, top string) {
	if !filepath.IsAbs(dir) {
		return "", "", ""
	}
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
// HEAD committed (git ls-tree; Build leaves TeamDir empty when the folder
// has no Markdown file) and what the user approved of what the quarantine
// holds.
func teamChecks(ctx context.Context, req *inject.Request, top, root string) {
	if req.TeamDir == "" {
		return
	}
	req.TeamCommitted, _ = team.CommittedFiles(ctx, top, req.TeamDir) // no git: nothing is committed
	req.TeamHash = reviewdir.TeamHash
	var approved map[string]bool
	req.TeamApproved = func(h string) bool {
		if approved == nil {
			approved = reviewdir.TeamApproved(root)
		}
		return approved[h]
	}
}

// HasTeamFiles reports a team folder that holds a Markdown file, the
// only files the team layer reads.
func HasTeamFiles(dir string) bool {
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

// HealthChecks are the checks the read path runs before memory is shown
// (docs/stale.md): the stale checks within their time budget. The budget
// is real elapsed time, so it reads the wall clock, not the injected one
// (MEMCTL_NOW fixes the date, not how long a stat takes).
func HealthChecks(cfg *config.Config) *inject.Checks {
	return &inject.Checks{Stale: cfg.Health.StaleChecks, Budget: cfg.Health.StaleBudget,
		RewriteThreshold: float64(cfg.Health.RewriteThreshold) / 100}
}
