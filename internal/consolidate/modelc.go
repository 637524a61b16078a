package consolidate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/model"
	"github.com/memctl/memctl/internal/textcut"
)

// defaultModelChunkBytes is the per-call budget for input material in the
// model consolidator. The current artifacts come on top of it.
const defaultModelChunkBytes = 400 * 1024

// maxSkillName is the longest skill folder name accepted.
const maxSkillName = 64

// errUnsafeSkillName is returned when a model names a skill with a path
// separator, "..", or nothing usable.
var errUnsafeSkillName = errors.New("unsafe skill name")

// NewModel returns the consolidator that asks a language model for the new
// files through structured calls.
//
// Each call gets two user messages: the current artifacts (MEMORY.md,
// memory_summary.md and every skills/*/SKILL.md; v2 only the summary) and
// one chunk of material. The material is the list of changed inputs: the
// full text of added files, the unified diff of modified ones and the path
// of deleted ones; when the artifacts are missing (first run, or a user
// deleted them) it is the full text of every input instead. Material that
// exceeds the per-call budget (defaultModelChunkBytes) is split into
// chunks, and the calls run in sequence, each one receiving the files the
// previous call produced, so the result is merged incrementally. The files
// are written only after the last call succeeded.
func NewModel(p model.Provider, modelName string) Consolidator {
	return &modelConsolidator{provider: p, model: modelName, chunkBytes: defaultModelChunkBytes}
}

type modelConsolidator struct {
	provider   model.Provider
	model      string
	chunkBytes int
}

func (*modelConsolidator) Name() string { return "model" }

// modelSkill is one skill in a model answer.
type modelSkill struct {
	Name    string `json:"name"`
	SkillMD string `json:"skill_md"`
}

// modelAnswer is the structured answer of one consolidation call.
type modelAnswer struct {
	MemoryMD        string       `json:"memory_md"`
	MemorySummaryMD string       `json:"memory_summary_md"`
	Skills          []modelSkill `json:"skills"`
}

const schemaV1 = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["memory_md", "memory_summary_md", "skills"],
  "properties": {
    "memory_md": {"type": "string"},
    "memory_summary_md": {"type": "string"},
    "skills": {
      "type": "array",
      "items": {
        "type": "object",
        "additionalProperties": false,
        "required": ["name", "skill_md"],
        "properties": {"name": {"type": "string"}, "skill_md": {"type": "string"}}
      }
    }
  }
}`

const schemaV2 = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["memory_summary_md"],
  "properties": {"memory_summary_md": {"type": "string"}}
}`

// modelModeNote adapts the agent-oriented prompt to a model that cannot
// open files: the files come inline and the answer is JSON.
const modelModeNote = `

## How to answer in this run

You cannot open files in this run. The current contents of the files you maintain come in the first
message, and the new or changed inputs (the workspace diff, expanded) in the second. Input that is
too large for one call arrives in several calls; each later call shows you the files as your
previous answer left them, so merge the new material into them instead of starting over.
Answer with one JSON object holding the complete new text of each file. In "skills", list every
skill that should exist afterwards (name and full SKILL.md); a skill you leave out is deleted.
`

const modelModeNoteV2 = `

## How to answer in this run

You cannot open files in this run. The current memory_summary.md comes in the first message and the
new or changed inputs (the workspace diff, expanded) in the second. Input that is too large for one
call arrives in several calls; each later call shows you the summary as your previous answer left
it, so merge into it instead of starting over. Answer with one JSON object whose
"memory_summary_md" is the complete new summary.
`

type artifacts struct {
	memory  string
	summary string
	skills  map[string]string // name → SKILL.md
}

func (m *modelConsolidator) Consolidate(ctx context.Context, ws *Workspace) (model.Usage, error) {
	var usage model.Usage
	cur, err := readArtifacts(ws.Root)
	if err != nil {
		return usage, err
	}
	initMode := Validate(ws.Root, ws.Version) != nil
	material, err := collectMaterial(ws, initMode)
	if err != nil {
		return usage, err
	}
	chunks := chunkMaterial(material, m.chunkBytes)
	system := ws.Prompt + modelModeNote
	schema := schemaV1
	if ws.Version == memversion.V2 {
		system = ws.Prompt + modelModeNoteV2
		schema = schemaV2
	}
	for i, chunk := range chunks {
		req := model.Request{
			Kind:            "consolidate",
			Model:           m.model,
			ReasoningEffort: "medium",
			System:          system,
			Input: []string{
				renderArtifactsMessage(cur, ws.Version),
				fmt.Sprintf("# Material, part %d of %d\n\n%s", i+1, len(chunks), chunk),
			},
			SchemaName: "memory_consolidation",
			Schema:     json.RawMessage(schema),
		}
		resp, err := m.provider.Call(ctx, req)
		usage = usage.Add(resp.Usage)
		if err != nil {
			return usage, fmt.Errorf("consolidation call %d of %d: %w", i+1, len(chunks), err)
		}
		var ans modelAnswer
		dec := json.NewDecoder(strings.NewReader(string(resp.JSON)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ans); err != nil {
			return usage, fmt.Errorf("consolidation call %d of %d: bad answer: %w", i+1, len(chunks), err)
		}
		next := artifacts{memory: cur.memory, summary: ws.redact(ans.MemorySummaryMD), skills: cur.skills}
		if ws.Version != memversion.V2 {
			next.memory = ws.redact(ans.MemoryMD)
			next.skills = map[string]string{}
			for _, s := range ans.Skills {
				name, err := sanitizeSkillName(s.Name)
				if err != nil {
					return usage, err
				}
				next.skills[name] = ws.redact(s.SkillMD)
			}
		}
		cur = next
	}
	return usage, writeArtifacts(ws.Root, ws.Version, cur)
}

// sanitizeSkillName turns a model-chosen skill name into a safe folder
// name: lowercase letters, digits and hyphens, at most 64 characters.
// Names with a path separator or "..", and names with nothing usable, are
// refused rather than repaired, since they signal an answer trying to
// write elsewhere.
func sanitizeSkillName(name string) (string, error) {
	if strings.ContainsAny(name, `/\`) || strings.Contains(name, "..") || strings.TrimSpace(name) == "" {
		return "", fmt.Errorf("%w: %q", errUnsafeSkillName, name)
	}
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(strings.TrimSpace(name)) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		default:
			if !dash && b.Len() > 0 {
				b.WriteByte('-')
				dash = true
			}
		}
	}
	s := strings.Trim(b.String(), "-")
	if len(s) > maxSkillName {
		s = strings.TrimRight(s[:maxSkillName], "-")
	}
	if s == "" {
		return "", fmt.Errorf("%w: %q", errUnsafeSkillName, name)
	}
	return s, nil
}

func readArtifacts(root string) (artifacts, error) {
	a := artifacts{skills: map[string]string{}}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			return ""
		}
		return lossy(b)
	}
	a.memory = read(memdir.MemoryFile)
	a.summary = read(memdir.SummaryFile)
	entries, err := os.ReadDir(filepath.Join(root, memdir.SkillsDir))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return a, err
	}
	for _, e := range entries {
		if e.IsDir() {
			if b, err := os.ReadFile(filepath.Join(root, memdir.SkillsDir, e.Name(), memdir.SkillFile)); err == nil {
				a.skills[e.Name()] = lossy(b)
			}
		}
	}
	return a, nil
}

func renderArtifactsMessage(a artifacts, version memversion.Version) string {
	var sb strings.Builder
	sb.WriteString("# Current files\n")
	file := func(name, text string) {
		if text == "" {
			fmt.Fprintf(&sb, "\n## %s\n\n(missing)\n", name)
			return
		}
		fmt.Fprintf(&sb, "\n## %s\n\n````markdown\n%s\n````\n", name, strings.TrimRight(text, "\n"))
	}
	if version != memversion.V2 {
		file(memdir.MemoryFile, a.memory)
	}
	file(memdir.SummaryFile, a.summary)
	if version != memversion.V2 {
		for _, n := range slices.Sorted(maps.Keys(a.skills)) {
			file(path.Join(memdir.SkillsDir, n, memdir.SkillFile), a.skills[n])
		}
	}
	return sb.String()
}

// isInput reports whether a path is consolidation input (as opposed to an
// artifact or the diff file).
func isInput(p string, version memversion.Version) bool {
	switch {
	case p == memdir.RawMemoriesFile:
		return version != memversion.V2
	case strings.HasPrefix(p, memdir.RolloutSummariesDir+"/"), strings.HasPrefix(p, memdir.ExtensionsDir+"/"):
		return strings.HasSuffix(p, ".md")
	}
	return false
}

// collectMaterial lists the pieces of input the model must see, each a
// self-contained Markdown section.
func collectMaterial(ws *Workspace, all bool) ([]string, error) {
	files, err := Snapshot(ws.Root)
	if err != nil {
		return nil, err
	}
	cur := indexFiles(files)
	var out []string
	status := "## Workspace status\n\n"
	if len(ws.Changes) == 0 {
		status += "- none\n"
	}
	for _, c := range ws.Changes {
		status += "- " + c.String() + "\n"
	}
	if all {
		status += "\nThe memory files are missing or invalid, so every input follows in full.\n"
	}
	out = append(out, status)
	if all {
		for _, f := range files {
			if isInput(f.Path, ws.Version) {
				out = append(out, fmt.Sprintf("## Input %s\n\n````markdown\n%s\n````\n", f.Path, strings.TrimRight(lossy(f.Content), "\n")))
			}
		}
		return out, nil
	}
	diffs := splitDiffByFile(ws.DiffFile)
	for _, c := range ws.Changes {
		if !isInput(c.Path, ws.Version) {
			continue
		}
		switch c.Status {
		case 'A':
			out = append(out, fmt.Sprintf("## Added %s\n\n````markdown\n%s\n````\n", c.Path, strings.TrimRight(lossy(cur[c.Path].Content), "\n")))
		case 'D':
			out = append(out, fmt.Sprintf("## Deleted %s\n\nForget what only this input supported.\n", c.Path))
		default:
			d := diffs[c.Path]
			if d == "" {
				d = lossy(cur[c.Path].Content)
			}
			out = append(out, fmt.Sprintf("## Modified %s\n\n````diff\n%s\n````\n", c.Path, strings.TrimRight(d, "\n")))
		}
	}
	return out, nil
}

// splitDiffByFile cuts the unified diff of the diff file into per-file parts.
func splitDiffByFile(diffFile string) map[string]string {
	out := map[string]string{}
	var cur string
	var sb strings.Builder
	flush := func() {
		if cur != "" {
			out[cur] = sb.String()
		}
		sb.Reset()
	}
	for _, line := range strings.SplitAfter(diffFile, "\n") {
		if strings.HasPrefix(line, "diff --git a/") {
			flush()
			rest := strings.TrimSuffix(strings.TrimPrefix(line, "diff --git a/"), "\n")
			if i := strings.Index(rest, " b/"); i >= 0 {
				cur = rest[:i]
			}
		}
		if cur != "" && line != "```\n" {
			sb.WriteString(line)
		}
	}
	flush()
	return out
}

// chunkMaterial packs material pieces into chunks of at most budget bytes,
// splitting a piece that is larger than the budget on line boundaries.
func chunkMaterial(pieces []string, budget int) []string {
	if budget <= 0 {
		budget = defaultModelChunkBytes
	}
	var chunks []string
	var cur strings.Builder
	push := func(s string) {
		if cur.Len() > 0 && cur.Len()+len(s) > budget {
			chunks = append(chunks, cur.String())
			cur.Reset()
		}
		cur.WriteString(s)
	}
	for _, p := range pieces {
		if len(p) <= budget {
			push(p + "\n")
			continue
		}
		for len(p) > 0 {
			n := textcut.PrefixEnd(p, budget)
			if i := strings.LastIndexByte(p[:n], '\n'); i > 0 && n < len(p) {
				n = i + 1
			}
			if n == 0 {
				n = len(p)
			}
			push(p[:n] + "\n")
			p = p[n:]
		}
	}
	if cur.Len() > 0 || len(chunks) == 0 {
		chunks = append(chunks, cur.String())
	}
	return chunks
}

// writeArtifacts writes the final answer atomically, only under root, and
// removes skills the answer dropped: the skills first, then MEMORY.md and
// memory_summary.md that name them, and the dropped skills last, so a
// kill in between never leaves a pointer to a missing skill.
func writeArtifacts(root string, version memversion.Version, a artifacts) error {
	if version != memversion.V2 {
		for _, n := range slices.Sorted(maps.Keys(a.skills)) {
			rel := path.Join(memdir.SkillsDir, n)
			full := filepath.Join(root, filepath.FromSlash(rel), memdir.SkillFile)
			if !within(root, full) {
				return fmt.Errorf("%w: %q", errUnsafeSkillName, n)
			}
			if err := memdir.EnsureDir(root, rel); err != nil {
				return err
			}
			if err := putFile(full, []byte(a.skills[n]), 0o600); err != nil {
				return err
			}
		}
		if err := putFile(filepath.Join(root, memdir.MemoryFile), []byte(a.memory), 0o600); err != nil {
			return err
		}
	}
	if err := putFile(filepath.Join(root, memdir.SummaryFile), []byte(a.summary), 0o600); err != nil {
		return err
	}
	if version == memversion.V2 {
		return nil
	}
	// The answer lists every skill to keep, so a skill the model dropped is
	// deleted — but only one the model was shown (a folder whose name is
	// already a valid skill name and that holds a SKILL.md). Anything else
	// under skills/ (a folder with another name, helper files the model
	// never saw) is left alone rather than lost.
	entries, _ := os.ReadDir(filepath.Join(root, memdir.SkillsDir))
	for _, e := range entries {
		if _, keep := a.skills[e.Name()]; keep || !e.IsDir() {
			continue
		}
		if clean, err := sanitizeSkillName(e.Name()); err != nil || clean != e.Name() {
			continue
		}
		if _, err := os.Lstat(filepath.Join(root, memdir.SkillsDir, e.Name(), memdir.SkillFile)); err != nil {
			continue
		}
		if err := dropTree(filepath.Join(root, memdir.SkillsDir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// within reports whether p lies inside root.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
