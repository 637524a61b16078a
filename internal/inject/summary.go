package inject

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/internal/english"
	"github.com/memctl/memctl/internal/evidence"
	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/plainfile"
	"github.com/memctl/memctl/internal/textcut"
	"github.com/memctl/memctl/templates"
)

// DefaultSummaryTokens is the token budget the summary is cut to before it
// is injected.
const DefaultSummaryTokens = 2500

// Placeholders replaced in the read-path templates.
const (
	basePathPlaceholder   = "{{ base_path }}"
	summaryPlaceholder    = "{{ memory_summary }}"
	visibilityPlaceholder = "{{ citation_visibility }}"
)

// Agents the read path can be rendered for (summary --agent).
const (
	AgentGeneric    = ""            // the reply goes through `memctl cite`, which strips the block
	AgentClaudeCode = "claude-code" // Stop hook: the reply is already on screen
	AgentCodex      = "codex"       // Codex strips the block itself; notify + rollout count it
)

// CitationNote is what the instructions say about the citation block's
// visibility for an agent. Where memctl reads the reply after the agent
// has shown it (Claude Code's Stop hook), nothing can remove the block, so
// the model is told so and asked for the shortest form that still counts
// (the rollout ids alone), instead of being told a comforting untruth.
func CitationNote(agent string) (string, error) {
	switch agent {
	case AgentGeneric, AgentCodex:
		// memctl cite strips the block; Codex 0.169 parses and removes it
		// itself (memctl reads it back from the rollout).
		return "The block is hidden from the user and tells memctl which memories helped.", nil
	case AgentClaudeCode:
		return "The user sees this block (nothing removes it here), so keep it short: the\n" +
			"`<rollout_ids>` section alone counts the use; add `<citation_entries>` only\n" +
			"when the user asks where an answer came from.", nil
	default:
		return "", fmt.Errorf("unknown agent %q (want claude-code or codex)", agent)
	}
}

// SummaryResult is what Summary produced. Injected is false when there is
// nothing to inject; Text is then empty.
type SummaryResult struct {
	Text         string `json:"text"`
	Injected     bool   `json:"injected"`
	ApproxTokens int    `json:"approx_tokens"`
	Truncated    bool   `json:"truncated"`
	// Project is the project the summary was scoped to; nil for the
	// global summary (--all-projects, or a folder without a project layer).
	Project *Scope `json:"project,omitempty"`
	// Stale lists the memories whose evidence changed since they were
	// written (docs/stale.md); the text flags them too.
	Stale []evidence.Notice `json:"stale,omitempty"`
	// StaleUnchecked counts evidence the time budget left unchecked.
	StaleUnchecked int `json:"stale_unchecked,omitempty"`
	// QuarantinedLines counts instruction-shaped lines held back from
	// the injected text.
	QuarantinedLines int `json:"quarantined_lines,omitempty"`
	// Team is what the repository's team layer gave (docs/team.md); nil
	// when the repository has none.
	Team *TeamInfo `json:"team,omitempty"`
	// Waiting counts the memory items that wait for the user's review
	// (notes an agent proposed, memory held from another machine or a
	// bundle, team files not committed or held); the text says how many.
	Waiting int `json:"waiting,omitempty"`
}

// AddWaiting adds to the summary the count of memory items that wait for
// the user's review, n of them besides the team files the result already
// lists: one line at the end of the text, only when some wait. Nothing of
// them is injected; the line tells the reader that memory is incomplete
// and the user where to look. A result that injected nothing becomes
// that line alone.
func (r *SummaryResult) AddWaiting(n int) {
	if r.Team != nil {
		n += len(r.Team.Waiting)
	}
	if n == 0 {
		return
	}
	r.Waiting = n
	line := fmt.Sprintf("(%s of memory %s for the user's review in `memctl review` and %s not part of this memory.)",
		english.Count(n, "item", "items"), english.Noun(n, "waits", "wait"), english.Noun(n, "is", "are"))
	if r.Injected && strings.TrimSpace(r.Text) != "" {
		r.Text = strings.TrimRight(r.Text, "\n") + "\n\n" + line
	} else {
		r.Text, r.Injected = line, true
	}
	r.ApproxTokens = textcut.ApproxTokens(r.Text)
}

// TemplateName returns the read-path template file used for a memory
// version ("v1" or "" → read_path.md, "v2" → read_path_v2.md).
func TemplateName(version memversion.Version) (string, error) {
	switch version {
	case "", memversion.V1:
		return "read_path.md", nil
	case memversion.V2:
		return "read_path_v2.md", nil
	default:
		return "", fmt.Errorf("unknown memory version %q (want v1 or v2)", version)
	}
}

// Summary reads <root>/memory_summary.md, trims it, cuts it to maxTokens
// (DefaultSummaryTokens when maxTokens is 0) and renders the read-path
// template of version around it, with root as the base path. With raw set
// it returns the cut summary alone. A missing or blank summary yields
// Injected=false and no error, so a caller prints nothing; other read
// failures are returned. The root of the given version only is read: v2
// never falls back to the v1 folder.
func Summary(root string, version memversion.Version, maxTokens int, raw bool, templateDir string) (SummaryResult, error) {
	return SummaryFor(root, version, maxTokens, raw, templateDir, AgentGeneric)
}

// SummaryFor is Summary with the instructions rendered for agent (see
// CitationNote).
func SummaryFor(root string, version memversion.Version, maxTokens int, raw bool, templateDir, agent string) (SummaryResult, error) {
	return SummaryChecked(root, version, maxTokens, raw, templateDir, agent, nil)
}

// SummaryChecked is SummaryFor with the health checks of c run on the
// summary before it is injected (nil: only the scrub of
// instruction-shaped lines): stale memory is flagged within c's time
// budget, and the notice survives the cut to maxTokens.
func SummaryChecked(root string, version memversion.Version, maxTokens int, raw bool, templateDir, agent string, c *Checks) (SummaryResult, error) {
	name, err := TemplateName(version)
	if err != nil {
		return SummaryResult{}, err
	}
	note, err := CitationNote(agent)
	if err != nil {
		return SummaryResult{}, err
	}
	if maxTokens == 0 {
		maxTokens = DefaultSummaryTokens
	}
	b, err := plainfile.ReadFile(filepath.Join(root, memdir.SummaryFile))
	if err != nil {
		// Missing or unreadable: nothing to inject (Codex 8.1). A hook
		// that runs before every turn must not fail the agent over it.
		return SummaryResult{}, nil
	}
	summary := strings.TrimSpace(string(b))
	if summary == "" {
		return SummaryResult{}, nil
	}
	var res SummaryResult
	summary = applyChecks(root, summary, maxTokens, c, &res)
	text := summary
	if !raw {
		tmpl, err := templates.Get(name, templateDir)
		if err != nil {
			return SummaryResult{}, err
		}
		text = render(withoutMissingSkills(tmpl, root), root, summary, note)
	}
	res.Text, res.Injected, res.ApproxTokens = text, true, textcut.ApproxTokens(text)
	return res, nil
}

// Render fills a read-path template for the generic agent. The
// placeholders are replaced in a single left-to-right pass, so
// placeholder-like text inside the summary or the path is left alone.
func Render(tmpl, basePath, summary string) string {
	note, _ := CitationNote(AgentGeneric)
	return render(tmpl, basePath, summary, note)
}

// withoutMissingSkills takes the line about skills/ out of a read-path
// template when the memory folder holds no skill: the offline
// consolidator never writes one, and an agent told to look there looks
// for nothing. A template of the user's that words it otherwise is left
// as it is.
func withoutMissingSkills(tmpl, root string) string {
	if ents, err := os.ReadDir(filepath.Join(root, memdir.SkillsDir)); err == nil && len(ents) > 0 {
		return tmpl
	}
	lines := strings.SplitAfter(tmpl, "\n")
	out := lines[:0]
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "- `skills/`") {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "")
}

// render fills the placeholders of tmpl in one left-to-right pass, as
// strings.NewReplacer would (no placeholder is a prefix of another, so
// at most one matches at a place), without building a replacer's tables
// on every summary.
func render(tmpl, basePath, summary, note string) string {
	const open = "{{ "
	var b strings.Builder
	b.Grow(len(tmpl) + len(basePath) + len(summary) + len(note))
	for {
		i := strings.Index(tmpl, open)
		if i < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		b.WriteString(tmpl[:i])
		tmpl = tmpl[i:]
		switch {
		case strings.HasPrefix(tmpl, basePathPlaceholder):
			b.WriteString(basePath)
			tmpl = tmpl[len(basePathPlaceholder):]
		case strings.HasPrefix(tmpl, summaryPlaceholder):
			b.WriteString(summary)
			tmpl = tmpl[len(summaryPlaceholder):]
		case strings.HasPrefix(tmpl, visibilityPlaceholder):
			b.WriteString(note)
			tmpl = tmpl[len(visibilityPlaceholder):]
		default:
			b.WriteByte(tmpl[0])
			tmpl = tmpl[1:]
		}
	}
}

// Fragments splits text into pieces of at most maxBytes bytes on UTF-8
// boundaries, preferring to cut after a newline. Hosts that limit the size
// of one instruction block (Codex sends v2 instructions as ≤ 8,900-byte
// fragments) can send the pieces in order.
func Fragments(text string, maxBytes int) []string {
	if maxBytes <= 0 || len(text) <= maxBytes {
		if text == "" {
			return nil
		}
		return []string{text}
	}
	var out []string
	for len(text) > maxBytes {
		cut := strings.LastIndexByte(text[:maxBytes], '\n') + 1
		if cut == 0 {
			cut = maxBytes
			for cut > 0 && !isRuneStart(text[cut]) {
				cut--
			}
			if cut == 0 { // a single rune wider than maxBytes
				cut = maxBytes
				for cut < len(text) && !isRuneStart(text[cut]) {
					cut++
				}
			}
		}
		out = append(out, text[:cut])
		text = text[cut:]
	}
	if text != "" {
		out = append(out, text)
	}
	return out
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
