// Package rawmemory owns the text format of Phase 1's output: the raw
// memory (YAML-like front matter, then one "### Task n" block per task)
// and the rollout summary (a "# " title, a "Rollout context:" paragraph,
// then one "## Task n:" section per task), as codex-memories.md 6.8
// describes them. The offline extractor writes them with Render and
// RenderSummary; the offline consolidator reads them, and the looser
// variants models write, with Parse.
package rawmemory

import (
	"sort"
	"strings"
)

// Doc is a parsed raw memory or rollout summary.
type Doc struct {
	Front Front
	Title string // the first "# " heading (rollout summaries)
	// Context is the "Rollout context:" paragraph of a rollout summary.
	Context string
	Tasks   []Task
	// Loose holds what Parse found outside any task block: sections and
	// task fields a model wrote at the top level. Render ignores it.
	Loose Task
}

// Front is the front matter of a raw memory.
type Front struct {
	Description string
	Task        string
	TaskGroup   string
	TaskOutcome string
	Cwd         string
	Keywords    []string
	// Other keeps keys a model added; Render writes them after the known
	// ones, sorted.
	Other map[string]string
}

// Get returns a front matter value by its key ("" when absent).
func (f Front) Get(key string) string {
	switch key {
	case "description":
		return f.Description
	case "task":
		return f.Task
	case "task_group":
		return f.TaskGroup
	case "task_outcome":
		return f.TaskOutcome
	case "cwd":
		return f.Cwd
	case "keywords":
		return strings.Join(f.Keywords, ", ")
	}
	return f.Other[key]
}

// Task is one task block.
type Task struct {
	Title   string // the name in the heading
	Task    string // the task: field
	Group   string // task_group:
	Outcome string // task_outcome: (success, partial, uncertain, fail)
	// OutcomeReason is why the outcome was judged so; rollout summaries
	// print it in parentheses after the outcome.
	OutcomeReason string
	Prefs         []string // Preference signals
	Steps         []string // Key steps (rollout summaries)
	Failures      []string // Failures and how to do differently
	Knowledge     []string // Reusable knowledge
	Refs          []string // References
}

// Section labels, as both renderings print them.
const (
	LabelPrefs     = "Preference signals:"
	LabelSteps     = "Key steps:"
	LabelStepsV2   = "What happened, in order:"
	LabelFailures  = "Failures and how to do differently:"
	LabelKnowledge = "Reusable knowledge:"
	LabelRefs      = "References:"
)

// Tags that open a Reusable knowledge item of the offline extractor, so a
// reader can tell what kind of fact it is without a model.
const (
	// TagCheck: a command that verified the work (tests, build, lint,
	// type check) and what it showed.
	TagCheck = "Check:"
	// TagFix: a failure and what made it pass.
	TagFix = "Fix:"
	// TagFinding: an explanation the agent gave (a cause, a location, a
	// fact about the project), quoted.
	TagFinding = "Finding:"
)

// Labels of the steps of an offline rollout summary that quote the
// user's message whole: the one that opened a task and the ones that
// followed it (a complaint is a correction, listed as a failure). Phase 2
// carries them to MEMORY.md without a model.
const (
	StepAsked    = "The user asked: "
	StepFollowUp = "Follow-up from the user: "
)

// The offline extractor signs what it writes, so that a reader knows the
// knowledge is tagged and the lists hold only what their names promise.
const (
	// WrittenByKey and WrittenByHeuristic sign a raw memory's front matter.
	WrittenByKey       = "written_by"
	WrittenByHeuristic = "memctl heuristic"
	// OfflineNote ends the context paragraph of an offline rollout summary.
	OfflineNote = "Summary written by memctl's offline heuristic extractor from the transcript's structure."
)

// Offline reports a document written by memctl's offline extractor.
func (d Doc) Offline() bool {
	return d.Front.Other[WrittenByKey] == WrittenByHeuristic || strings.HasSuffix(d.Context, OfflineNote)
}

// Tagged reports the tag an item opens with, "" when none.
func Tagged(item string) string {
	for _, t := range []string{TagCheck, TagFix, TagFinding} {
		if strings.HasPrefix(item, t) {
			return t
		}
	}
	return ""
}

// None is what an empty list prints.
const None = "- none"

// Render writes d as a raw memory: front matter, then one "### Task n"
// block per task. Lists print "- none" when empty, so every block has
// the same four sections.
func Render(d Doc) string {
	var b strings.Builder
	b.WriteString("---\n")
	writeField(&b, "description", d.Front.Description)
	writeField(&b, "task", d.Front.Task)
	writeField(&b, "task_group", d.Front.TaskGroup)
	writeField(&b, "task_outcome", d.Front.TaskOutcome)
	writeField(&b, "cwd", d.Front.Cwd)
	b.WriteString("keywords: " + strings.Join(d.Front.Keywords, ", ") + "\n")
	keys := make([]string, 0, len(d.Front.Other))
	for k := range d.Front.Other {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		writeField(&b, k, d.Front.Other[k])
	}
	b.WriteString("---\n")
	for i, t := range d.Tasks {
		b.WriteString("\n### Task " + itoa(i+1) + ": " + oneLine(t.Title) + "\n")
		writeField(&b, "task", t.Task)
		writeField(&b, "task_group", t.Group)
		writeField(&b, "task_outcome", t.Outcome)
		writeList(&b, LabelPrefs, t.Prefs, false)
		writeList(&b, LabelKnowledge, t.Knowledge, false)
		writeList(&b, LabelFailures, t.Failures, false)
		writeList(&b, LabelRefs, t.Refs, false)
	}
	return b.String()
}

// RenderSummary writes d as a rollout summary: the title, the context
// paragraph, then one "## Task n:" section per task. chronological names
// the steps list as a history (v2's "What happened, in order:").
func RenderSummary(d Doc, chronological bool) string {
	var b strings.Builder
	b.WriteString("# " + oneLine(d.Title) + "\n")
	if d.Context != "" {
		b.WriteString("\nRollout context: " + oneLine(d.Context) + "\n")
	}
	steps := LabelSteps
	if chronological {
		steps = LabelStepsV2
	}
	for i, t := range d.Tasks {
		b.WriteString("\n## Task " + itoa(i+1) + ": " + oneLine(t.Title) + "\n\n")
		out := t.Outcome
		if t.OutcomeReason != "" {
			out += " (" + oneLine(t.OutcomeReason) + ")"
		}
		b.WriteString("Outcome: " + out + "\n")
		writeList(&b, LabelPrefs, t.Prefs, false)
		writeList(&b, steps, t.Steps, false)
		writeList(&b, LabelFailures, t.Failures, false)
		writeList(&b, LabelKnowledge, t.Knowledge, false)
		writeList(&b, LabelRefs, t.Refs, true)
	}
	return b.String()
}

func writeField(b *strings.Builder, key, val string) {
	b.WriteString(key + ": " + oneLine(val) + "\n")
}

func writeList(b *strings.Builder, label string, items []string, numbered bool) {
	b.WriteString("\n" + label + "\n")
	if len(items) == 0 {
		b.WriteString(None + "\n")
		return
	}
	for i, it := range items {
		if numbered {
			b.WriteString(itoa(i+1) + ". " + oneLine(it) + "\n")
		} else {
			b.WriteString("- " + oneLine(it) + "\n")
		}
	}
}

// oneLine folds whitespace runs into single spaces: every field and item
// is one line of the format.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	var buf [20]byte
	i := len(buf)
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	return string(buf[i:])
}
