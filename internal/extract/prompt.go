package extract

import (
	"strings"

	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/templates"
)

// MaxChunkBytes is the largest v2 evidence message: the rendered v2 input is
// cut into user messages of at most this many bytes (codex-memories.md 6.5).
const MaxChunkBytes = 8900

// Template names of the Phase 1 prompts.
const (
	TemplateSystemV1 = "stage_one_system.md"
	TemplateInputV1  = "stage_one_input.md"
	TemplateSystemV2 = "stage_one_system_v2.md"
	TemplateInputV2  = "stage_one_input_v2.md"
)

// Prompt renders the Phase 1 request for one thread: the system prompt and
// the user message(s). contents is the already serialised, redacted and
// budgeted transcript. v1 yields one message; v2 yields the rendered input
// split into consecutive chunks of at most MaxChunkBytes bytes that join
// back to the whole. templateDir overrides the embedded templates ("" for
// none).
func Prompt(version memversion.Version, meta sessions.Meta, contents string, templateDir string) (system string, input []string, err error) {
	if err := checkVersion(version); err != nil {
		return "", nil, err
	}
	sysName, inName := TemplateSystemV1, TemplateInputV1
	if version == memversion.V2 {
		sysName, inName = TemplateSystemV2, TemplateInputV2
	}
	system, err = templates.Get(sysName, templateDir)
	if err != nil {
		return "", nil, err
	}
	tmpl, err := templates.Get(inName, templateDir)
	if err != nil {
		return "", nil, err
	}
	branch := meta.GitBranch
	if branch == "" {
		branch = "unknown"
	}
	cwd := meta.Cwd
	if cwd == "" {
		cwd = "unknown"
	}
	text := render(tmpl, map[string]string{
		"rollout_path":       meta.Path,
		"rollout_cwd":        cwd,
		"rollout_git_branch": branch,
		"rollout_contents":   contents,
	})
	if version == memversion.V1 {
		return system, []string{text}, nil
	}
	return system, SplitChunks(text, MaxChunkBytes), nil
}

// render substitutes {{ name }} (and {{name}}) placeholders in one left to
// right pass. Substituted text is never scanned again, so a transcript that
// contains "{{ rollout_path }}" stays literal: the contents cannot inject
// values or expand into other placeholders.
func render(tmpl string, vars map[string]string) string {
	// Fixed order keeps the replacer deterministic; map iteration is not.
	names := []string{"rollout_path", "rollout_cwd", "rollout_git_branch", "rollout_contents"}
	var pairs []string
	for _, n := range names {
		v, ok := vars[n]
		if !ok {
			continue
		}
		pairs = append(pairs, "{{ "+n+" }}", v, "{{"+n+"}}", v)
	}
	return strings.NewReplacer(pairs...).Replace(tmpl)
}
