package consolidate

import (
	"strings"
)

// memTask is one "### Task <n>" block of a raw memory (or one "## Task <n>"
// section of a rollout summary).
type memTask struct {
	Title     string // name from the heading, if any
	Task      string
	Group     string
	Outcome   string
	Prefs     []string
	Knowledge []string
	Failures  []string
	Steps     []string
	Refs      []string
}

// memDoc is a parsed raw memory or rollout summary.
type memDoc struct {
	Front map[string]string // front matter keys, lowercased
	// Keywords come from the front matter, as a comma list, a [a, b] list or
	// "- item" lines.
	Keywords []string
	Title    string // first "# " heading
	Tasks    []memTask
	// Loose holds labelled sections found outside any task block.
	Loose memTask
}

var (
	taskHeading = lazyRegexp(`(?i)^#{1,4}\s*task\s+(\d+)\s*(?:[:.\-–—)]\s*(.*))?$`)
	fieldLine   = lazyRegexp(`^(?:[-*]\s+)?([A-Za-z_ ]{2,40}?)\s*:\s*(.*)$`)
	bulletLine  = lazyRegexp(`^(?:[-*+]|\d+[.)])\s+(.*)$`)
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
	case strings.HasPrefix(l, "key steps"), l == "steps":
		return "steps"
	}
	return ""
}

func (t *memTask) list(kind string) *[]string {
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

// parseMemoryText reads the shape of section 6.8 of the reference and the
// variants models write around it (bold labels, "## Task" headings, inline
// items after a label, numbered lists).
func parseMemoryText(text string) memDoc {
	doc := memDoc{Front: map[string]string{}}
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
			parseFront(&doc, lines[i+1:end])
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
			doc.Tasks = append(doc.Tasks, memTask{Title: cleanItem(m[2])})
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
					cur.Outcome = val
					continue
				}
				if !inTask {
					if _, seen := doc.Front[key]; !seen && isFrontKey(key) {
						doc.Front[key] = val
						if key == "keywords" {
							doc.Keywords = splitKeywords(val)
						}
						continue
					}
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

func isFrontKey(k string) bool {
	switch k {
	case "description", "cwd", "keywords", "thread_id", "updated_at", "rollout_path", "git_branch":
		return true
	}
	return false
}

func parseFront(doc *memDoc, lines []string) {
	var listKey string
	for _, raw := range lines {
		line := strings.TrimSpace(raw)
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "- ") && listKey != "" {
			item := cleanItem(strings.Trim(strings.TrimPrefix(line, "- "), `"'`))
			if listKey == "keywords" && item != "" {
				doc.Keywords = append(doc.Keywords, item)
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
		doc.Front[key] = cleanItem(val)
		if key == "keywords" && val != "" {
			doc.Keywords = splitKeywords(val)
		}
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

// placeholderItem matches list entries that stand for "nothing here"
// ("- none", "- … 3 more"); they are not memory.
var placeholderItem = lazyRegexp(`(?i)^(\(?none\)?\.?|n/a|nothing|(…|\.\.\.)\s*\d+\s+more)$`)

// addItem appends a cleaned item unless it is empty or a placeholder.
func addItem(l *[]string, s string) bool {
	item := cleanItem(s)
	if item == "" || placeholderItem().MatchString(item) {
		return false
	}
	*l = append(*l, item)
	return true
}

// cleanItem collapses whitespace and drops surrounding bullet markup.
func cleanItem(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// clip shortens s to at most n bytes at a word boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := previousCharBoundary(s, n-3)
	if sp := strings.LastIndexByte(s[:cut], ' '); sp > n/2 {
		cut = sp
	}
	return strings.TrimRight(s[:cut], " ,;:") + "..."
}
