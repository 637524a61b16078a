package inject

import (
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/plainfile"
	"github.com/memctl/memctl/internal/project"
	"github.com/memctl/memctl/internal/quarantine"
	"github.com/memctl/memctl/internal/team"
	"github.com/memctl/memctl/internal/textcut"
	"github.com/memctl/memctl/templates"
)

// Request says what summary to render.
type Request struct {
	Root        string // the memory folder
	Version     memversion.Version
	MaxTokens   int  // 0: DefaultSummaryTokens
	Raw         bool // the summary alone, without the instructions
	TemplateDir string
	Agent       string // see CitationNote
	// Project is the working directory (absolute) or the project key or
	// name whose memory is injected; AllProjects injects the global
	// memory_summary.md instead.
	Project     string
	AllProjects bool
	// Overrides are the config's [[projects]] entries. Resolver, when
	// set, is the caller's git-free resolver with them
	// (project.ResolveWith), so Project is read once.
	Overrides []project.Override
	Resolver  *project.Resolver
	// Checks are the health checks run on the summary before it is
	// injected (nil: only the scrub of instruction-shaped lines); a scoped
	// summary checks the memories of its project only.
	Checks *Checks
	// TeamDir is the team folder of the session's repository ("" for
	// none); TeamRel names it in the text (docs/team.md). Redact is the
	// redactor its files are checked with again on every read.
	TeamDir string
	TeamRel string
	Redact  func(string) string
	// TeamCommitted, TeamApproved and TeamHash say which team files are
	// team memory: committed and unchanged, and approved when the
	// quarantine holds them (team.LoadOptions).
	TeamCommitted map[string]string
	TeamApproved  func(hash string) bool
	TeamHash      func([]byte) string
}

// TeamInfo says what the team layer gave a summary.
type TeamInfo struct {
	Dir     string         `json:"dir"`
	Entries int            `json:"entries"`
	Dropped []team.Dropped `json:"dropped,omitempty"`
	// Waiting are the files not injected until a commit (untracked,
	// modified) or the user's approval (held).
	Waiting []team.Waiting `json:"waiting,omitempty"`
}

// Scope is the project a scoped summary was rendered for.
type Scope struct {
	Key  string `json:"key"`
	Name string `json:"name"`
	// HasMemory is false when no consolidated memory belongs to the project
	// yet: only the personal layer and the pointers were injected.
	HasMemory bool `json:"has_memory"`
	// Layer is the project's summary file, relative to the memory folder.
	File string `json:"file,omitempty"`
}

// Scoped returns the summary a session should be given: with a project
// that has memory (or a team layer), the instructions around the team
// layer, the personal layer and that project's summary; with a project
// that has none, the personal layer alone; with AllProjects (or a memory
// folder consolidated before projects existed) the global
// memory_summary.md, as Summary does. Nothing of another project is
// injected except through the personal layer.
func Scoped(req Request) (SummaryResult, error) {
	ix, err := project.LoadIndex(filepath.Join(req.Root, filepath.FromSlash(memdir.ProjectIndexFile)))
	empty := err == nil && !ix.HasMemory()
	if req.AllProjects {
		if empty {
			// Nothing was consolidated: the instructions would describe an
			// empty folder, so nothing is injected (docs/projects.md).
			return SummaryResult{}, nil
		}
		return SummaryChecked(req.Root, req.Version, req.MaxTokens, req.Raw, req.TemplateDir, req.Agent, req.Checks)
	}
	var teamText string
	var teamInfo *TeamInfo
	if req.TeamDir != "" {
		l, err := team.Load(team.LoadOptions{Dir: req.TeamDir, Redact: req.Redact, Committed: req.TeamCommitted,
			Approved: req.TeamApproved, Hash: req.TeamHash})
		if err == nil && (len(l.Entries) > 0 || len(l.Dropped) > 0 || len(l.Waiting) > 0) {
			teamInfo = &TeamInfo{Dir: req.TeamDir, Entries: len(l.Entries), Dropped: l.Dropped, Waiting: l.Waiting}
			teamText = l.Section(req.TeamRel)
		}
	}
	switch {
	case teamText != "" && (empty || err != nil || ix == nil):
		ix = &project.Index{} // the team layer alone
	case empty:
		// Nothing was consolidated and no team layer: nothing is injected
		// (what of the team folder waits is still counted).
		return SummaryResult{Team: teamInfo}, nil
	case err != nil || ix == nil:
		// No project layer yet (or a damaged one): the global summary, as
		// before projects; the next consolidation writes the layer.
		res, err := SummaryChecked(req.Root, req.Version, req.MaxTokens, req.Raw, req.TemplateDir, req.Agent, req.Checks)
		res.Team = teamInfo
		return res, err
	}
	name, err := TemplateName(req.Version)
	if err != nil {
		return SummaryResult{}, err
	}
	note, err := CitationNote(req.Agent)
	if err != nil {
		return SummaryResult{}, err
	}
	maxTokens := req.MaxTokens
	if maxTokens == 0 {
		maxTokens = DefaultSummaryTokens
	}
	r, err := project.ResolveWith(req.Resolver, req.Project, ix, nil, req.Overrides)
	if err != nil {
		return SummaryResult{}, err
	}
	id, entry, found := r.Identity, r.Entry, r.Known
	scope := &Scope{Key: id.Key, Name: id.Name, HasMemory: found}
	personal := personalRules(req.Root)
	var own string
	if found {
		scope.Key, scope.Name = entry.Key, entry.Name
		scope.File = memdir.ProjectsDir + "/" + entry.Dir + "/" + memdir.ProjectSummaryFile
		b, err := plainfile.ReadFile(filepath.Join(req.Root, filepath.FromSlash(scope.File)))
		own = strings.TrimSpace(string(b))
		if err != nil || own == "" {
			scope.HasMemory = false
		}
	}
	res := SummaryResult{Project: scope, Team: teamInfo}
	if !scope.HasMemory && teamText == "" {
		// A folder with no memory of its own is given the personal layer
		// alone, without the instructions: there is nothing of this
		// project to search or cite, and nothing of another project's
		// belongs here. No personal rule: nothing at all.
		if personal == "" {
			return SummaryResult{Project: scope, Team: teamInfo}, nil
		}
		cut := textcut.MiddleTokens(personal, maxTokens)
		res.Truncated = cut != personal
		text, held := quarantine.Scrub(cut)
		res.Text, res.Injected, res.ApproxTokens, res.QuarantinedLines = text, true, textcut.ApproxTokens(text), held
		return res, nil
	}
	var parts []string
	if teamText != "" {
		// Reviewed by people, so above what memctl inferred.
		parts = append(parts, teamText)
	}
	if personal != "" {
		parts = append(parts, personal)
	}
	if scope.HasMemory {
		parts = append(parts, own)
	}
	summary := strings.Join(parts, "\n\n")
	var checks *Checks
	if req.Checks != nil {
		c := *req.Checks
		c.Scope = scope.Key // the memories this summary shows
		checks = &c
	}
	summary = applyChecks(req.Root, summary, maxTokens, checks, &res)
	text := summary
	if !req.Raw {
		tmpl, err := templates.Get(name, req.TemplateDir)
		if err != nil {
			return SummaryResult{}, err
		}
		text = render(withoutMissingSkills(tmpl, req.Root), req.Root, summary, note)
	}
	res.Text, res.Injected, res.ApproxTokens = text, true, textcut.ApproxTokens(text)
	return res, nil
}

// personalRules is the personal layer of the memory folder at root, ""
// when it holds no preference, tip or note (its lists say only that none
// was recorded): an empty layer is not worth a token.
func personalRules(root string) string {
	b, err := plainfile.ReadFile(filepath.Join(root, filepath.FromSlash(memdir.PersonalFile)))
	if err != nil {
		return ""
	}
	text := strings.TrimSpace(string(b))
	for _, l := range strings.Split(text, "\n") {
		if item, ok := strings.CutPrefix(strings.TrimSpace(l), "- "); ok && item != memdir.NoneRecorded {
			return text
		}
	}
	return ""
}

// Empty reports whether the memory folder at root was consolidated with
// nothing in it (no memory, no note), so that summary injects nothing. A
// folder never consolidated, or consolidated before the project index
// recorded this, is not called empty.
func Empty(root string) bool {
	ix, err := project.LoadIndex(filepath.Join(root, filepath.FromSlash(memdir.ProjectIndexFile)))
	return err == nil && !ix.HasMemory()
}
