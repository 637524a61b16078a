package consolidate

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/model"
	"github.com/memctl/memctl/internal/rawmemory"
	"github.com/memctl/memctl/internal/textcut"
)

// Size bounds of the heuristic output. They keep memory_summary.md near
// the 2,500-token injection budget and MEMORY.md greppable.
const (
	maxItemBytes      = 400 // one bullet in MEMORY.md
	maxSummaryItem    = 240 // one bullet in memory_summary.md
	maxBlockBullets   = 30  // per block-level section of a task group
	maxSummaryPrefs   = 15
	maxSummaryTips    = 15
	maxOlderPerScope  = 25
	maxRecentPerScope = 20
	maxProfileScopes  = 8
	maxNotes          = 50
	summaryV2Target   = 9000 // comfortably under the 10,000-byte limit
	recentMemoryDays  = 3
	dayLayout         = "2006-01-02"
	unknownCwd        = "unknown"
	noteMarker        = "[ad-hoc note]"
	// userAssertedMarker tags what a user-asserted memory states.
	userAssertedMarker = "[user-asserted]"
)

// NewHeuristic returns the offline consolidator: it builds MEMORY.md and
// memory_summary.md (v2: the summary only) from the structure of the
// selected raw memories and rollout summaries, plus the ad hoc notes, with
// no model. The output is a pure function of its inputs, so an unchanged
// selection produces byte-identical files and the next run is a no-op.
func NewHeuristic() Consolidator { return heuristic{} }

type heuristic struct{}

func (heuristic) Name() string { return "heuristic" }

// memory is one selected thread, parsed.
type memory struct {
	sel      Selected
	file     string // rollout_summaries/<stem>.md
	cwd      string
	desc     string
	topic    string
	outcome  string
	keywords []string
	tasks    []memTask
	day      string
	// offline is set for a memory of memctl's offline extractor, whose
	// knowledge is tagged (Check:, Fix:, Finding:).
	offline bool
	// stale is set when what the memory rests on changed since it was
	// written: its tips leave the summary, its index line says so, and
	// when everything it rested on is gone it leaves the summary.
	stale *StaleMemory
}

// dropped reports a memory that is left out of the summary.
func (m memory) dropped() bool { return m.stale != nil && m.stale.Gone }

// staleNote is what the summary says next to a stale memory.
func (m memory) staleNote() string {
	if m.stale == nil {
		return ""
	}
	return " (stale: " + textcut.Words(m.stale.Note(), maxSummaryItem) + ")"
}

// markStale attaches the run's stale verdicts to the parsed memories. A
// memory the user pinned or wrote is demoted at most, never dropped: the
// user chose to keep it.
func markStale(mems []memory, stale map[string]StaleMemory) {
	for i := range mems {
		if st, ok := stale[mems[i].sel.ThreadID]; ok {
			if mems[i].sel.Pinned || mems[i].sel.UserAsserted {
				st.Gone = false
			}
			mems[i].stale = &st
		}
	}
}

// current returns the memories the summary may show.
func current(mems []memory) []memory {
	var out []memory
	for _, m := range mems {
		if !m.dropped() {
			out = append(out, m)
		}
	}
	return out
}

type note struct {
	file string
	text string
	pref bool
	// project is the key a note was written for (its first line reads
	// "project: <key>"); empty for a note that holds everywhere.
	project string
}

func (heuristic) Consolidate(ctx context.Context, ws *Workspace) (model.Usage, error) {
	mems := parseSelected(ws.Selected)
	markStale(mems, ws.Stale)
	notes := readNotes(ws.Root, ws.redact)
	if err := ctx.Err(); err != nil {
		return model.Usage{}, err
	}
	if ws.Version == memversion.V2 {
		return model.Usage{}, putFile(filepath.Join(ws.Root, memdir.SummaryFile), []byte(ws.redact(renderSummaryV2(mems, notes))), 0o600)
	}
	if err := putFile(filepath.Join(ws.Root, memdir.MemoryFile), []byte(ws.redact(renderMemoryMD(mems, notes))), 0o600); err != nil {
		return model.Usage{}, err
	}
	return model.Usage{}, putFile(filepath.Join(ws.Root, memdir.SummaryFile), []byte(ws.redact(renderSummaryV1(mems, notes))), 0o600)
}

// parseSelected parses every selected row, newest first (ties by thread id).
func parseSelected(sel []Selected) []memory {
	var out []memory
	for _, s := range sel {
		m := memory{sel: s, file: memdir.RolloutSummariesDir + "/" + memdir.RolloutSummaryStem(s.ThreadID, s.SourceUpdatedAt, s.RolloutSlug) + ".md"}
		m.day = time.Unix(s.SourceUpdatedAt, 0).UTC().Format(dayLayout)
		raw := parseMemoryText(s.RawMemory)
		sum := parseMemoryText(s.RolloutSummary)
		m.offline = raw.Offline() || sum.Offline()
		doc := raw
		if len(raw.Tasks) == 0 && raw.Front.Description == "" && len(raw.Loose.Knowledge)+len(raw.Loose.Prefs)+len(raw.Loose.Failures) == 0 {
			doc = sum // no usable raw memory (v2, or an unstructured one)
		}
		if s.UserAsserted {
			// The user's own words are the memory, structured or not.
			doc = userDoc(s, doc)
		}
		m.cwd = firstNonEmpty(known(doc.Front.Cwd), known(s.Cwd), known(sum.Front.Cwd), unknownCwd)
		m.keywords = doc.Front.Keywords
		m.tasks = doc.Tasks
		if len(m.tasks) == 0 {
			t := doc.Loose
			m.tasks = []memTask{t}
		} else if l := doc.Loose; len(l.Prefs)+len(l.Knowledge)+len(l.Failures) > 0 {
			m.tasks[0].Prefs = append(m.tasks[0].Prefs, l.Prefs...)
			m.tasks[0].Knowledge = append(m.tasks[0].Knowledge, l.Knowledge...)
			m.tasks[0].Failures = append(m.tasks[0].Failures, l.Failures...)
		}
		first := m.tasks[0]
		m.desc = firstNonEmpty(doc.Front.Description, doc.Loose.Task, first.Task, first.Title, doc.Title, sum.Title, firstLineOf(s.RolloutSummary), "session "+s.ThreadID)
		m.topic = firstNonEmpty(doc.Loose.Group, first.Group, doc.Front.TaskGroup, first.Title, first.Task, m.desc)
		m.outcome = firstNonEmpty(doc.Loose.Outcome, doc.Front.TaskOutcome, first.Outcome)
		if len(m.keywords) == 0 {
			m.keywords = fallbackKeywords(m.topic + " " + m.desc)
		}
		out = append(out, m)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].sel.SourceUpdatedAt != out[j].sel.SourceUpdatedAt {
			return out[i].sel.SourceUpdatedAt > out[j].sel.SourceUpdatedAt
		}
		return out[i].sel.ThreadID < out[j].sel.ThreadID
	})
	return out
}

// userDoc is the memory of a user-asserted row: the text the user wrote
// (the raw memory, or in v2 the rollout summary) as parsed, or, when it
// has no structure memctl recognises, its first line as the description
// and every further line as a piece of knowledge.
func userDoc(s Selected, parsed rawmemory.Doc) rawmemory.Doc {
	text := s.RawMemory
	if strings.TrimSpace(text) == "" {
		text = s.RolloutSummary
	}
	doc := parseMemoryText(text)
	if !(len(doc.Tasks) > 0 || doc.Front.Description != "" || len(doc.Loose.Knowledge)+len(doc.Loose.Prefs)+len(doc.Loose.Failures) > 0) {
		var lines []string
		for _, l := range strings.Split(text, "\n") {
			if l = cleanItem(strings.TrimLeft(strings.TrimSpace(l), "-*#> ")); l != "" {
				lines = append(lines, l)
			}
		}
		if len(lines) == 0 {
			return parsed
		}
		doc = rawmemory.Doc{Front: rawmemory.Front{Description: lines[0], Cwd: parsed.Front.Cwd}}
		doc.Loose.Knowledge = lines[1:]
		if len(doc.Loose.Knowledge) == 0 {
			doc.Loose.Knowledge = lines[:1]
		}
	}
	// Every statement carries the mark into MEMORY.md and the summary.
	mark := func(items []string) {
		for i, it := range items {
			items[i] = userAssertedMarker + " " + it
		}
	}
	for _, t := range append(doc.Tasks, doc.Loose) {
		mark(t.Prefs)
		mark(t.Knowledge)
		mark(t.Failures)
	}
	return doc
}

func known(s string) string {
	if strings.EqualFold(strings.TrimSpace(s), unknownCwd) {
		return ""
	}
	return strings.TrimSpace(s)
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func firstLineOf(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(strings.TrimLeft(l, "# ")); l != "" {
			return l
		}
	}
	return ""
}

var wordRe = lazyRegexp(`[A-Za-z][A-Za-z0-9_.+#-]{2,}`)

var stopWords = map[string]bool{
	"the": true, "and": true, "for": true, "with": true, "that": true, "this": true, "from": true,
	"into": true, "was": true, "were": true, "are": true, "has": true, "have": true, "user": true,
	"task": true, "session": true, "when": true, "then": true, "than": true, "not": true, "but": true,
	"its": true, "via": true, "all": true, "any": true, "new": true, "use": true, "used": true,
}

// fallbackKeywords picks up to six distinctive words when a memory lists
// none, so every task keeps a searchable keywords line.
func fallbackKeywords(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range wordRe().FindAllString(text, -1) {
		lw := strings.ToLower(strings.TrimRight(w, ".-"))
		if stopWords[lw] || seen[lw] || len(lw) < 3 {
			continue
		}
		seen[lw] = true
		out = append(out, lw)
		if len(out) == 6 {
			break
		}
	}
	return out
}

var prefNoteRe = lazyRegexp(`(?i)\b(prefers?|preferred|always|never|don't|do not|avoid|please|i like|i want|i'd like|use)\b`)

// readNotes loads extensions/ad_hoc/notes/*.md in name order.
func readNotes(root string, redact func(string) string) []note {
	dir := filepath.Join(root, filepath.FromSlash(memdir.NotesDir))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []note
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		body, scope := noteScope(lossy(data))
		text := textcut.Words(cleanItem(body), maxSummaryItem)
		if text == "" {
			continue
		}
		text = redact(text)
		out = append(out, note{file: memdir.NotesDir + "/" + e.Name(), text: text, pref: prefNoteRe().MatchString(text), project: scope})
		if len(out) == maxNotes {
			break
		}
	}
	return out
}

// noteScope splits a note's "project: <key>" first line, if any, from
// its text.
func noteScope(text string) (body, projectKey string) {
	first, rest, _ := strings.Cut(text, "\n")
	if k, ok := strings.CutPrefix(strings.TrimSpace(first), notePrefix); ok && strings.TrimSpace(k) != "" {
		return rest, strings.TrimSpace(k)
	}
	return text, ""
}

// group is the memories of one project (of one working directory for
// memories whose thread has no project key yet).
type group struct {
	cwd    string // the newest memory's folder
	key    string // the project key; "" when grouped by folder
	name   string // what headings call the group
	cwds   []string
	mems   []memory
	latest int64
}

func groupByCwd(mems []memory) []group {
	idx := map[string]int{}
	var gs []group
	for _, m := range mems { // mems are newest first, so groups come out by recency
		id := m.cwd
		if m.sel.ProjectKey != "" {
			id = "\x00" + m.sel.ProjectKey
		}
		i, ok := idx[id]
		if !ok {
			i = len(gs)
			idx[id] = i
			g := group{cwd: m.cwd, latest: m.sel.SourceUpdatedAt, name: m.cwd}
			if m.sel.ProjectKey != "" {
				g.key, g.name = m.sel.ProjectKey, firstNonEmpty(m.sel.ProjectName, m.sel.ProjectKey)
			}
			gs = append(gs, g)
		}
		gs[i].mems = append(gs[i].mems, m)
		if !contains(gs[i].cwds, m.cwd) {
			gs[i].cwds = append(gs[i].cwds, m.cwd)
		}
	}
	return gs
}

func groupName(cwd string) string {
	if cwd == unknownCwd {
		return "no recorded working directory"
	}
	base := filepath.Base(filepath.FromSlash(cwd))
	if base == "." || base == "/" || base == "" {
		return cwd
	}
	return base + " (" + cwd + ")"
}

// bulletSet collects bullets without duplicates, remembering which tasks
// and how many sessions stated each one: the same memory from N sessions
// is one bullet that says so, not N bullets.
type bulletSet struct {
	order    []string
	refs     map[string][]int
	text     map[string]string
	sessions map[string][]string
}

func newBulletSet() *bulletSet {
	return &bulletSet{refs: map[string][]int{}, text: map[string]string{}, sessions: map[string][]string{}}
}

func normKey(s string) string {
	return strings.ToLower(strings.Trim(cleanItem(s), " .;:-"))
}

// add records item, stated in task (0: none) of the session thread.
func (b *bulletSet) add(item string, task int, thread string) {
	k := normKey(item)
	if k == "" {
		return
	}
	if _, ok := b.text[k]; !ok {
		b.order = append(b.order, k)
		b.text[k] = item
	}
	if thread != "" && !contains(b.sessions[k], thread) {
		b.sessions[k] = append(b.sessions[k], thread)
	}
	if task > 0 {
		refs := b.refs[k]
		if len(refs) == 0 || refs[len(refs)-1] != task {
			b.refs[k] = append(refs, task)
		}
	}
}

func (b *bulletSet) write(sb *strings.Builder, heading string, limit int) {
	if len(b.order) == 0 {
		return
	}
	fmt.Fprintf(sb, "\n## %s\n\n", heading)
	for i, k := range b.order {
		if i == limit {
			break
		}
		line := "- " + textcut.Words(b.text[k], maxItemBytes) + seenIn(len(b.sessions[k]))
		if refs := b.refs[k]; len(refs) > 0 {
			parts := make([]string, len(refs))
			for j, r := range refs {
				parts[j] = fmt.Sprintf("Task %d", r)
			}
			line += " [" + strings.Join(parts, ", ") + "]"
		}
		sb.WriteString(line + "\n")
	}
}

// seenIn is the note on a memory several sessions stated: " (seen in N
// sessions)", or nothing for one.
func seenIn(sessions int) string {
	if sessions < 2 {
		return ""
	}
	return fmt.Sprintf(" (seen in %d sessions)", sessions)
}

// renderMemoryMD builds the v1 handbook: one task group per working
// directory, newest first.
func renderMemoryMD(mems []memory, notes []note) string {
	var sb strings.Builder
	sb.WriteString("# Memory\n\nThe handbook of past work, grouped by project. memory_summary.md is the index; rollout_summaries/ holds the details.\n")
	if len(mems) == 0 && len(notes) == 0 {
		sb.WriteString("\nNo sessions have been consolidated yet.\n")
	}
	for _, g := range groupByCwd(mems) {
		if g.key != "" {
			fmt.Fprintf(&sb, "\n# Task Group: %s\n", g.name)
			fmt.Fprintf(&sb, "scope: %d session(s) of work in project %s, in %s, latest %s\n", len(g.mems), g.name, strings.Join(g.cwds, ", "), g.mems[0].day)
			fmt.Fprintf(&sb, "applies_to: project=%s; cwd=%s; reuse_rule=reuse for work in this project after checking that the code still matches\n", g.key, strings.Join(g.cwds, ", "))
		} else {
			fmt.Fprintf(&sb, "\n# Task Group: %s\n", groupName(g.cwd))
			fmt.Fprintf(&sb, "scope: %d session(s) of work in %s, latest %s\n", len(g.mems), g.cwd, g.mems[0].day)
			fmt.Fprintf(&sb, "applies_to: cwd=%s; reuse_rule=reuse for work under this directory after checking that the code still matches\n", g.cwd)
		}
		prefs, know, fails, doubt, old := newBulletSet(), newBulletSet(), newBulletSet(), newBulletSet(), newBulletSet()
		facts := newerFacts{}
		n := 0
		for _, m := range g.mems {
			for _, t := range m.tasks {
				n++
				title := firstNonEmpty(t.Task, t.Title, m.desc)
				outcome := firstNonEmpty(t.Outcome, m.outcome)
				heading := textcut.Words(title, maxItemBytes)
				if outcome != "" {
					heading += ", " + outcome
				}
				fmt.Fprintf(&sb, "\n## Task %d: %s\n\n", n, heading)
				sb.WriteString("### rollout_summary_files\n\n")
				fmt.Fprintf(&sb, "- %s (cwd=%s, rollout_path=%s, updated_at=%s, thread_id=%s", m.file, m.cwd, m.sel.RolloutPath, formatRFC3339(m.sel.SourceUpdatedAt), m.sel.ThreadID)
				if m.sel.GitBranch != "" {
					fmt.Fprintf(&sb, ", git_branch=%s", m.sel.GitBranch)
				}
				sb.WriteString(controlNote(m.sel))
				sb.WriteString(")\n")
				if m.stale != nil {
					fmt.Fprintf(&sb, "\nstale_evidence: %s\n", m.stale.Note())
				}
				sb.WriteString("\n### keywords\n\n")
				fmt.Fprintf(&sb, "- %s\n", strings.Join(m.keywords, ", "))
				id := m.sel.ThreadID
				for _, p := range t.Prefs {
					prefs.add(p, n, id)
				}
				if m.stale != nil {
					// Kept for the record, apart: what it says may no longer hold.
					for _, k := range append(append([]string(nil), t.Knowledge...), t.Failures...) {
						doubt.add(k, n, id)
					}
					continue
				}
				for _, k := range t.Knowledge {
					facts.sort(m, k, n, know, old)
				}
				for _, f := range t.Failures {
					facts.sort(m, f, n, fails, old)
				}
			}
		}
		prefs.write(&sb, "User preferences", maxBlockBullets)
		know.write(&sb, "Reusable knowledge", maxBlockBullets)
		fails.write(&sb, "Failures and how to do differently", maxBlockBullets)
		doubt.write(&sb, "Possibly stale (what these rest on changed since; verify before reuse)", maxBlockBullets)
		old.write(&sb, "Superseded (a later session says otherwise; kept as history)", maxBlockBullets)
	}
	if len(notes) > 0 {
		sb.WriteString("\n# Ad-hoc Notes\n\nNotes written on purpose under extensions/ad_hoc/notes/; they take precedence over older session memory.\n\n")
		for _, n := range notes {
			fmt.Fprintf(&sb, "- %s %s (%s)\n", noteMarker, n.text, n.file)
		}
	}
	return sb.String()
}

// toolNames maps lowercase words to how the profile spells them. "go" is
// too common an English word to count from prose; it is found through
// keywords and Go-specific tokens instead.
var toolNames = map[string]string{
	"golang": "Go", "go.mod": "Go", "rust": "Rust", "cargo": "Cargo", "python": "Python", "pytest": "pytest",
	"typescript": "TypeScript", "javascript": "JavaScript", "node": "Node.js", "nodejs": "Node.js", "npm": "npm",
	"pnpm": "pnpm", "yarn": "Yarn", "java": "Java", "kotlin": "Kotlin", "swift": "Swift", "ruby": "Ruby",
	"php": "PHP", "sql": "SQL", "sqlite": "SQLite", "postgres": "PostgreSQL", "postgresql": "PostgreSQL",
	"mysql": "MySQL", "redis": "Redis", "docker": "Docker", "kubernetes": "Kubernetes", "kubectl": "Kubernetes",
	"terraform": "Terraform", "git": "git", "github": "GitHub", "make": "make",
	"makefile": "make", "cmake": "CMake", "react": "React", "vue": "Vue", "django": "Django", "flask": "Flask",
	"fastapi": "FastAPI", "grpc": "gRPC", "graphql": "GraphQL", "aws": "AWS", "gcp": "GCP", "azure": "Azure",
	"nix": "Nix", "bazel": "Bazel", "gradle": "Gradle", "maven": "Maven", "vite": "Vite", "webpack": "webpack",
	"jest": "Jest", "c++": "C++", "cpp": "C++", "c#": "C#", "dotnet": ".NET", "deno": "Deno", "bun": "Bun",
	"elixir": "Elixir", "haskell": "Haskell", "scala": "Scala", "lua": "Lua", "zig": "Zig", "ansible": "Ansible",
	"codex": "Codex CLI", "claude": "Claude Code", "mcp": "MCP", "openai": "OpenAI API", "anthropic": "Anthropic API",
}

var tokenRe = lazyRegexp(`[A-Za-z][A-Za-z0-9+#.]*`)

// toolsSeen counts, per memory, the languages and tools it mentions and
// returns the most frequent first.
func toolsSeen(mems []memory) []string {
	count := map[string]int{}
	for _, m := range mems {
		seen := map[string]bool{}
		for _, k := range m.keywords {
			if strings.EqualFold(k, "go") {
				seen["Go"] = true
			}
		}
		text := strings.Join(m.keywords, " ") + " " + m.desc + " " + m.sel.RawMemory + " " + m.sel.RolloutSummary
		if strings.Contains(text, "go test") || strings.Contains(text, "go build") || strings.Contains(text, "go vet") {
			seen["Go"] = true
		}
		for _, tok := range tokenRe().FindAllString(text, -1) {
			if name, ok := toolNames[strings.ToLower(strings.TrimRight(tok, "."))]; ok {
				seen[name] = true
			}
		}
		for name := range seen {
			count[name]++
		}
	}
	names := make([]string, 0, len(count))
	for n := range count {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if count[names[i]] != count[names[j]] {
			return count[names[i]] > count[names[j]]
		}
		return names[i] < names[j]
	})
	if len(names) > 12 {
		names = names[:12]
	}
	return names
}

func userProfile(mems []memory, gs []group) string {
	if len(mems) == 0 {
		return "No sessions have been consolidated yet, so nothing is known about the user's work."
	}
	var sb strings.Builder
	byProject := gs[0].key != ""
	noun := "working director"
	if byProject {
		noun = "project"
	}
	fmt.Fprintf(&sb, "These memories cover %d session(s) in %d %s", len(mems), len(gs), noun)
	switch {
	case byProject && len(gs) != 1:
		sb.WriteString("s")
	case !byProject && len(gs) == 1:
		sb.WriteString("y")
	case !byProject:
		sb.WriteString("ies")
	}
	sb.WriteString(": ")
	var parts []string
	for i, g := range gs {
		if i == maxProfileScopes {
			parts = append(parts, fmt.Sprintf("and %d more", len(gs)-i))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%d)", g.name, len(g.mems)))
	}
	sb.WriteString(strings.Join(parts, ", ") + ".")
	if tools := toolsSeen(mems); len(tools) > 0 {
		sb.WriteString(" Languages and tools seen: " + strings.Join(tools, ", ") + ".")
	}
	fmt.Fprintf(&sb, " Most recent work (%s): %s.", mems[0].day, strings.TrimRight(textcut.Words(mems[0].desc, maxSummaryItem), "."))
	return sb.String()
}

// rankedItems dedupes items gathered across memories, most frequent first,
// then in order of first appearance (newest memory first).
func rankedItems(items []string, limit int) []string {
	count := map[string]int{}
	first := map[string]string{}
	var order []string
	for _, it := range items {
		k := normKey(it)
		if k == "" {
			continue
		}
		if _, ok := first[k]; !ok {
			first[k] = it
			order = append(order, k)
		}
		count[k]++
	}
	sort.SliceStable(order, func(i, j int) bool { return count[order[i]] > count[order[j]] })
	var out []string
	for i, k := range order {
		if i == limit {
			break
		}
		out = append(out, textcut.Words(first[k], maxSummaryItem))
	}
	return out
}

func summaryLists(mems []memory, notes []note) (prefs, tips []string) {
	// With several projects in memory, a tip like "`make test` is the
	// project's test command" is only useful when it says which project.
	projects := map[string]bool{}
	for _, m := range mems {
		projects[m.projectID().Key] = true
	}
	scope := func(m memory, items []string) []string {
		if len(projects) < 2 || m.cwd == "" {
			return items
		}
		name := "(" + path.Base(m.cwd) + ") "
		if m.sel.ProjectName != "" {
			name = "(" + m.sel.ProjectName + ") "
		}
		out := make([]string, len(items))
		for i, it := range items {
			out[i] = name + it
		}
		return out
	}
	var p, k []string
	latest := newerFacts{}
	for _, m := range mems {
		for _, t := range m.tasks {
			// Preferences are the user's words, about no file: a stale
			// memory keeps them. Its tips rest on what changed.
			p = append(p, scope(m, t.Prefs)...)
			if m.stale != nil {
				continue
			}
			if m.offline {
				for _, it := range tipItems(t.Knowledge) {
					if subjectOf(it) != "" {
						if latest.claim(m, it, 0) != "" {
							continue // a later session says otherwise
						}
						it += " (as of " + m.day + ")"
					}
					k = append(k, scope(m, []string{it})...)
				}
				continue
			}
			k = append(k, scope(m, t.Knowledge)...)
			k = append(k, scope(m, t.Failures)...)
		}
	}
	for _, n := range notes {
		if n.pref {
			prefs = append(prefs, noteMarker+" "+n.text)
		} else {
			tips = append(tips, noteMarker+" "+n.text)
		}
	}
	prefs = append(prefs, rankedItems(p, maxSummaryPrefs)...)
	tips = append(tips, rankedItems(k, maxSummaryTips)...)
	return prefs, tips
}

// subjectOf names what a fact of the offline extractor is about: the
// command a Check, a Fix or a failure line is about ("" for anything
// else). Two such facts about the same command in one project say how it
// went then; the later one holds now.
func subjectOf(item string) string {
	s := item
	switch rawmemory.Tagged(s) {
	case rawmemory.TagCheck:
		s = strings.TrimPrefix(s, rawmemory.TagCheck)
	case rawmemory.TagFix:
		s = strings.TrimPrefix(s, rawmemory.TagFix)
	case "":
	default:
		return "" // a finding is the agent's words, not a command's outcome
	}
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "`") {
		return ""
	}
	end := strings.IndexByte(s[1:], '`')
	if end <= 0 {
		return ""
	}
	return s[1 : 1+end]
}

// newerFacts remembers, per project and command, the newest memory that
// stated a fact about it. Memories are visited newest first, so the first
// claim holds and a later one from another memory is superseded.
type newerFacts map[string]factOwner

type factOwner struct {
	thread string
	day    string
	task   int
	text   string // normKey of what it stated
}

// claim records m's fact, or, when a newer memory already stated one
// about the same command, says so ("superseded on DAY by Task N"). Facts
// with no subject, and memories not written by the offline extractor
// (whose wording memctl cannot read), are never superseded.
func (f newerFacts) claim(m memory, item string, task int) string {
	subj := subjectOf(item)
	if !m.offline || subj == "" {
		return ""
	}
	key := m.projectID().Key + "\x00" + subj
	owner, ok := f[key]
	if !ok {
		f[key] = factOwner{thread: m.sel.ThreadID, day: m.day, task: task, text: normKey(item)}
		return ""
	}
	if owner.thread == m.sel.ThreadID {
		return ""
	}
	by := "superseded on " + owner.day
	if owner.task > 0 {
		by += fmt.Sprintf(" by Task %d", owner.task)
	}
	return by
}

// restated reports whether the newer memory that claimed item's subject
// stated the very same fact: that is the fact seen again, not
// superseded.
func (f newerFacts) restated(m memory, item string) bool {
	owner, ok := f[m.projectID().Key+"\x00"+subjectOf(item)]
	return ok && owner.text == normKey(item)
}

// sort puts m's fact into current, or into old with the newer memory that
// superseded it; a fact a newer memory restated word for word is current,
// one bullet for every session that stated it.
func (f newerFacts) sort(m memory, item string, task int, current, old *bulletSet) {
	by := f.claim(m, item, task)
	switch {
	case by == "" || f.restated(m, item):
		current.add(item, task, m.sel.ThreadID)
	default:
		old.add(item+" ("+by+")", task, m.sel.ThreadID)
	}
}

// supersessions says, for each fact (thread id, NUL, item) that a newer
// memory of the same project supersedes, since when.
func supersessions(mems []memory) map[string]string {
	out := map[string]string{}
	f := newerFacts{}
	for _, m := range mems { // newest first
		if m.stale != nil {
			continue // a stale memory supersedes nothing
		}
		for _, t := range m.tasks {
			for _, it := range append(append([]string(nil), t.Knowledge...), t.Failures...) {
				if by := f.claim(m, it, 0); by != "" && !f.restated(m, it) {
					out[m.sel.ThreadID+"\x00"+it] = by
				}
			}
		}
	}
	return out
}

// tipItems keeps the facts a general tip may state: a check that verified the
// work, or a fix that made a failure pass. The agent's explanations stay in
// MEMORY.md, where they are read with their task.
func tipItems(knowledge []string) []string {
	var out []string
	for _, k := range knowledge {
		if tag := rawmemory.Tagged(k); tag == rawmemory.TagCheck || tag == rawmemory.TagFix {
			out = append(out, k)
		}
	}
	return out
}

func writeList(sb *strings.Builder, items []string, empty string) {
	if len(items) == 0 {
		sb.WriteString("- " + empty + "\n")
		return
	}
	for _, it := range items {
		sb.WriteString("- " + it + "\n")
	}
}

// recentDays returns the newest distinct memory days, newest first.
func recentDays(mems []memory, n int) map[string]bool {
	days := map[string]bool{}
	var order []string
	for _, m := range mems {
		if !days[m.day] {
			days[m.day] = true
			order = append(order, m.day)
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(order)))
	out := map[string]bool{}
	for i, d := range order {
		if i == n {
			break
		}
		out[d] = true
	}
	return out
}

func firstLearning(m memory) string {
	for _, t := range m.tasks {
		if len(t.Knowledge) > 0 {
			return t.Knowledge[0]
		}
	}
	for _, t := range m.tasks {
		if len(t.Failures) > 0 {
			return t.Failures[0]
		}
	}
	return ""
}

// profileOf is the user profile of the memories the summary shows, or of
// all of them when every one was dropped as stale: the user did that work.
func profileOf(all, shown []memory) string {
	if len(shown) == 0 {
		shown = all
	}
	return userProfile(shown, groupByCwd(shown))
}

// emptyIndex is what an empty "What's in Memory" says.
func emptyIndex(all []memory, none, keeper string) string {
	if len(all) > 0 {
		return "every memory rests on files or commands that are gone; " + keeper + " keeps them, marked stale"
	}
	return none
}

// renderSummaryV1 builds memory_summary.md for v1: profile, preferences,
// tips and an index of MEMORY.md by project and day.
func renderSummaryV1(all []memory, notes []note) string {
	prefs, tips := summaryLists(all, notes)
	mems := current(all)
	gs := groupByCwd(mems)
	later := supersessions(all)
	var sb strings.Builder
	sb.WriteString("v1\n\n## User Profile\n\n")
	sb.WriteString(profileOf(all, mems) + "\n\n")
	sb.WriteString("## User preferences\n\n")
	writeList(&sb, prefs, "none recorded yet")
	sb.WriteString("\n## General Tips\n\n")
	writeList(&sb, tips, "none recorded yet")
	sb.WriteString("\n## What's in Memory\n")
	if len(mems) == 0 {
		sb.WriteString("\n- " + emptyIndex(all, "nothing yet; MEMORY.md is empty", memdir.MemoryFile) + "\n")
		return sb.String()
	}
	recent := recentDays(mems, recentMemoryDays)
	for _, g := range gs {
		writeRecentTopics(&sb, g.name, repeatsMerged(g.mems, recent, true), later)
	}
	older := false
	for _, g := range gs {
		old := repeatsMerged(g.mems, recent, false)
		if len(old) == 0 {
			continue
		}
		if !older {
			sb.WriteString("\n### Older Memory Topics\n")
			older = true
		}
		fmt.Fprintf(&sb, "\n#### %s\n\n", g.name)
		for i, e := range old {
			if i == maxOlderPerScope {
				fmt.Fprintf(&sb, "- and %d older topics; search MEMORY.md\n", len(old)-i)
				break
			}
			m := e.memory
			fmt.Fprintf(&sb, "- %s: %s%s%s\n", textcut.Words(m.topic, 120), strings.Join(m.keywords, ", "), m.staleNote(), seenIn(e.sessions))
		}
	}
	return sb.String()
}

// indexEntry is a memory of the summary's index with how many sessions
// of its project stated it word for word (it is the newest of them).
type indexEntry struct {
	memory
	sessions int
}

// repeatsMerged lists a project's memories of recent days (or, with
// recentOnes false, of older days), newest first, merging each memory
// that repeats a newer one's topic, keywords, description and first
// learning into that newer entry's count: one line for N identical
// sessions, not N lines.
func repeatsMerged(mems []memory, recent map[string]bool, recentOnes bool) []indexEntry {
	var out []indexEntry
	at := map[string]int{}
	for _, m := range mems {
		if recent[m.day] != recentOnes {
			continue
		}
		key := normKey(m.topic) + "\x00" + normKey(strings.Join(m.keywords, ",")) + "\x00" + normKey(m.desc) + "\x00" + normKey(firstLearning(m))
		if m.stale != nil {
			key = m.sel.ThreadID // a stale memory says so on its own line
		}
		if i, ok := at[key]; ok {
			out[i].sessions++
			continue
		}
		at[key] = len(out)
		out = append(out, indexEntry{memory: m, sessions: 1})
	}
	return out
}

// writeRecentTopics writes a project's recent memories into the v1
// index, by day, each with its description and first learning.
func writeRecentTopics(sb *strings.Builder, name string, rec []indexEntry, later map[string]string) {
	if len(rec) == 0 {
		return
	}
	fmt.Fprintf(sb, "\n### %s\n", name)
	day := ""
	for i, e := range rec {
		if i == maxRecentPerScope {
			fmt.Fprintf(sb, "- and %d more recent topics; search MEMORY.md\n", len(rec)-i)
			break
		}
		m := e.memory
		if m.day != day {
			day = m.day
			fmt.Fprintf(sb, "\n#### %s\n\n", day)
		}
		fmt.Fprintf(sb, "- %s: %s%s%s\n", textcut.Words(m.topic, 120), strings.Join(m.keywords, ", "), m.staleNote(), seenIn(e.sessions))
		fmt.Fprintf(sb, "  - desc: %s%s\n", textcut.Words(m.desc, maxSummaryItem), assertedMark(m.sel))
		if l := firstLearning(m); l != "" && m.stale == nil {
			note := ""
			if by := later[m.sel.ThreadID+"\x00"+l]; by != "" {
				note = " (" + by + ")"
			}
			fmt.Fprintf(sb, "  - learnings: %s%s\n", textcut.Words(l, maxSummaryItem), note)
		}
	}
}

// v2Limits is how much of each list the v2 summary shows; shrinking them
// is how the summary is made to fit.
type v2Limits struct{ prefs, tips, recent, older int }

// renderSummaryV2 builds the compact v2 summary with direct pointers to
// rollout summaries, dropping the oldest pointers, then tips and
// preferences, until it fits summaryV2Target bytes.
func renderSummaryV2(all []memory, notes []note) string {
	prefs, tips := summaryLists(all, notes)
	mems := current(all)
	recent := recentDays(mems, recentMemoryDays)
	nRecent, nOlder := 0, 0
	for _, m := range mems {
		if recent[m.day] {
			nRecent++
		} else {
			nOlder++
		}
	}
	lim := v2Limits{len(prefs), len(tips), nRecent, nOlder}
	for {
		s := renderSummaryV2With(all, mems, prefs, tips, recent, lim)
		if len(s) < summaryV2Target {
			return s
		}
		// Pointer lines run to about 150 bytes: drop roughly the overshoot at once.
		step := max(1, (len(s)-summaryV2Target)/150)
		switch {
		case lim.older > 0:
			lim.older = max(0, lim.older-step)
		case lim.tips > 3:
			lim.tips--
		case lim.prefs > 3:
			lim.prefs--
		case lim.recent > 1:
			lim.recent--
		case lim.tips > 0:
			lim.tips--
		case lim.prefs > 0:
			lim.prefs--
		case lim.recent > 0:
			lim.recent--
		default:
			return s[:textcut.PrefixEnd(s, summaryV2Target-1)]
		}
	}
}

// controlNote is the note of a rollout_summary_files bullet: what the user
// did to the memory (Codex leaves the note slot free).
func controlNote(s Selected) string {
	var out string
	if s.UserAsserted {
		out += ", user-asserted: written by the user"
	}
	if s.Pinned {
		out += ", pinned by the user"
	}
	return out
}

// assertedMark tags a summary line whose memory the user wrote.
func assertedMark(s Selected) string {
	if s.UserAsserted {
		return " " + userAssertedMarker
	}
	return ""
}

func pointerLine(m memory) string {
	return fmt.Sprintf("- %s — %s%s; thread_id=%s%s\n", m.file, strings.TrimRight(textcut.Words(m.desc, 160), "."), assertedMark(m.sel), m.sel.ThreadID, m.staleNote())
}

func renderSummaryV2With(all, mems []memory, prefs, tips []string, recent map[string]bool, lim v2Limits) string {
	gs := groupByCwd(mems)
	var sb strings.Builder
	sb.WriteString("v1\n\n## User Profile\n\n")
	sb.WriteString(profileOf(all, mems) + "\n\n")
	sb.WriteString("## User preferences\n\n")
	writeList(&sb, prefs[:lim.prefs], "none recorded yet")
	sb.WriteString("\n## General Tips\n\n")
	writeList(&sb, tips[:lim.tips], "none recorded yet")
	sb.WriteString("\n## What's in Memory\n")
	if len(mems) == 0 {
		sb.WriteString("\n- " + emptyIndex(all, "nothing yet", memdir.RolloutSummariesDir+"/") + "\n")
		return sb.String()
	}
	// Recent pointers are kept newest first across all scopes.
	keepRecent := map[string]bool{}
	n := 0
	for _, m := range mems {
		if recent[m.day] && n < lim.recent {
			keepRecent[m.sel.ThreadID] = true
			n++
		}
	}
	for _, g := range gs {
		day := ""
		header := false
		for _, m := range g.mems {
			if !keepRecent[m.sel.ThreadID] {
				continue
			}
			if !header {
				fmt.Fprintf(&sb, "\n### %s\n", g.name)
				header = true
			}
			if m.day != day {
				day = m.day
				fmt.Fprintf(&sb, "\n#### %s\n\n", day)
			}
			sb.WriteString(pointerLine(m))
		}
	}
	keepOld := map[string]bool{}
	n = 0
	for _, m := range mems {
		if !recent[m.day] && n < lim.older {
			keepOld[m.sel.ThreadID] = true
			n++
		}
	}
	if len(keepOld) > 0 {
		sb.WriteString("\n### Older Memory Topics\n")
		for _, g := range gs {
			header := false
			for _, m := range g.mems {
				if !keepOld[m.sel.ThreadID] {
					continue
				}
				if !header {
					fmt.Fprintf(&sb, "\n#### %s\n\n", g.name)
					header = true
				}
				sb.WriteString(pointerLine(m))
			}
		}
	}
	return sb.String()
}
