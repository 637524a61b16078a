package rawmemory

import (
	"strings"

	"github.com/memctl/memctl/internal/lazyre"
)

var (
	taskHeading = lazyre.New(`(?i)^#{1,4}\s*task\s+(\d+)\s*(?:[:.\-–—)]\s*(.*))?$`)
	fieldLine   = lazyre.New(`^(?:[-*]\s+)?([A-Za-z_ ]{2,40}?)\s*:\s*(.*)$`)
	bulletLine  = lazyre.New(`^(?:[-*+]|\d+[.)])\s+(.*)$`)
	outcomeWhy  = lazyre.New(`^(success|partial|uncertain|fail|failed|failure)\s*\((.*)\)\.?$`)
	// placeholderItem matches list entries that stand for "nothing here"
	// ("- none", "- … 3 more"); they are not memory.
	placeholderItem = lazyre.New(`(?i)^(\(?none\)?\.?|n/a|nothing|(…|\.\.\.)\s*\d+\s+more)$`)
)

// sectionKind maps a label ("Preference signals:", "## Reusable knowledge",
// "**Failures and how to do differently**") to the list it fills.
func sectionKind(label string) string {
	l := strings.ToLower(strings.Trim(label, "#*_: \t"))
	switch {
	case strings.HasPrefix(l, "preference signal"), l == "preferences", l == "user preferences":
		return "prefs"
	case strings.HasPrefix(l, "reusable knowledge"), l == "learnings", l == "knowledge":
		return "knowledge"
	case strings.HasPrefix(l, "failures and how to do differently"), l == "failures", strings.HasPrefix(l, "failures and"):
		return "failures"
	case strings.HasPrefix(l, "references"):
		return "refs"
	case strings.HasPrefix(l, "key steps"), l == "steps", strings.HasPrefix(l, "what happened"):
		return "steps"
	}
	return ""
}

func (t *Task) list(kind string) *[]string {
	switch kind {
	case "prefs":
		return &t.Prefs
	case "knowledge":
		return &t.Knowledge
	case "failures":
		return &t.Failures
	case "refs":
		return &t.Refs
	case "steps":
		return &t.Steps
	}
	return nil
}

// Parse reads a raw memory or a rollout summary: the shape Render and
// RenderSummary write, and the variants models write around it (bold
// labels, "## Task" headings, items inline after a label, numbered lists,
// wrapped items). Placeholders ("- none", "- … 3 more") are dropped.
// Parse(Render(d)) gives d back for a d whose fields and items are single
// lines and not placeholders.
func Parse(text string) Doc {
	var doc Doc
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i < len(lines) && strings.TrimSpace(lines[i]) == "---" {
		end := -1
		for j := i + 1; j < len(lines); j++ {
			if strings.TrimSpace(lines[j]) == "---" {
				end = j
				break
			}
		}
		if end > 0 {
			parseFront(&doc.Front, lines[i+1:end])
			i = end + 1
		}
	}
	cur := &doc.Loose
	inTask := false
	var kind string
	var last *[]string
	for ; i < len(lines); i++ {
		raw := lines[i]
		line := strings.TrimSpace(raw)
		if line == "" {
			continue
		}
		if m := taskHeading().FindStringSubmatch(line); m != nil {
			doc.Tasks = append(doc.Tasks, Task{Title: cleanItem(m[2])})
			cur = &doc.Tasks[len(doc.Tasks)-1]
			inTask, kind, last = true, "", nil
			continue
		}
		if strings.HasPrefix(line, "# ") && doc.Title == "" && !inTask {
			doc.Title = cleanItem(strings.TrimPrefix(line, "# "))
			continue
		}
		// A label line, possibly with the first item inline.
		label, rest, hasColon := strings.Cut(strings.Trim(line, "*_"), ":")
		if k := sectionKind(label); k != "" && (hasColon || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "**")) {
			kind = k
			last = nil
			if l := cur.list(kind); addItem(l, strings.Trim(rest, "*_ ")) {
				last = l
			}
			continue
		}
		if strings.HasPrefix(line, "#") {
			kind, last = "", nil // an unknown heading ends the section
			continue
		}
		if kind == "" {
			if m := fieldLine().FindStringSubmatch(line); m != nil {
				key := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(m[1]), " ", "_"))
				val := cleanItem(m[2])
				switch key {
				case "task":
					cur.Task = val
					continue
				case "task_group":
					cur.Group = val
					continue
				case "task_outcome", "outcome":
					cur.Outcome, cur.OutcomeReason = splitOutcome(val)
					continue
				case "rollout_context":
					if !inTask && doc.Context == "" {
						doc.Context = val
						continue
					}
				}
				if !inTask && isFrontKey(key) && doc.Front.Get(key) == "" {
					setFront(&doc.Front, key, val)
					continue
				}
			}
			continue
		}
		l := cur.list(kind)
		if m := bulletLine().FindStringSubmatch(line); m != nil {
			if addItem(l, m[1]) {
				last = l
			} else {
				last = nil
			}
			continue
		}
		// A continuation line belongs to the item above it.
		if last != nil && len(*last) > 0 && strings.HasPrefix(raw, " ") {
			(*last)[len(*last)-1] = cleanItem((*last)[len(*last)-1] + " " + line)
			continue
		}
		if addItem(l, line) {
			last = l
		}
	}
	return doc
}

// splitOutcome separates "success (the last check passed)" into the
// outcome and its reason.
func splitOutcome(v string) (string, string) {
	if m := outcomeWhy().FindStringSubmatch(v); m != nil {
		return m[1], strings.TrimSpace(m[2])
	}
	return v, ""
}

func isFrontKey(k string) bool {
	switch k {
	case "description", "cwd", "keywords", "thread_id", "updated_at", "rollout_path", "git_branch":
		return true
	}
	return false
}

func setFront(f *Front, key, val string) {
	switch key {
	case "description":
		f.Description = val
	case "task":
		f.Task = val
	case "task_group":
		f.TaskGroup = val
	case "task_outcome":
		f.TaskOutcome = val
	case "cwd":
		f.Cwd = val
	case "keywords":
		f.Keywords = splitKeywords(val)
	default:
		if f.Other == nil {
			f.Other = map[string]string{}
		}
		f.Other[key] = val
	}
}

func parseFront(f *Front, lines []string) {
	var listKey string
	for _, raw := range lines {
		line := strings.TrimSpace(raw)
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "- ") && listKey != "" {
			item := cleanItem(strings.Trim(strings.TrimPrefix(line, "- "), `"'`))
			if listKey == "keywords" && item != "" {
				f.Keywords = append(f.Keywords, item)
			}
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key = strings.ToLower(strings.TrimSpace(key))
		val = strings.Trim(strings.TrimSpace(val), `"'`)
		listKey = key
		setFront(f, key, cleanItem(val))
	}
}

func splitKeywords(s string) []string {
	s = strings.Trim(strings.TrimSpace(s), "[]")
	var out []string
	seen := map[string]bool{}
	for _, k := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' }) {
		k = strings.Trim(strings.TrimSpace(k), `"'`)
		if k != "" && !seen[strings.ToLower(k)] {
			seen[strings.ToLower(k)] = true
			out = append(out, k)
		}
	}
	return out
}

// addItem appends a cleaned item unless it is empty or a placeholder.
func addItem(l *[]string, s string) bool {
	item := cleanItem(s)
	if item == "" || placeholderItem().MatchString(item) {
		return false
	}
	*l = append(*l, item)
	return true
}

// cleanItem collapses whitespace runs into single spaces.
func cleanItem(s string) string { return strings.Join(strings.Fields(s), " ") }
