package heuristic

import (
	"path"
	"sort"
	"strings"

	"github.com/memctl/memctl/internal/english"
	"github.com/memctl/memctl/internal/rawmemory"
	"github.com/memctl/memctl/internal/sessions"
)

// The "Rollout context" paragraph: where and when the session ran and its
// exact counts of messages, commands and changed files.

func (x *Extractor) project() string {
	if r := strings.TrimSuffix(strings.TrimRight(x.meta.GitRemote, "/"), ".git"); r != "" {
		if i := strings.LastIndexAny(r, "/:"); i >= 0 && i < len(r)-1 {
			return r[i+1:]
		}
	}
	if c := strings.TrimRight(x.meta.Cwd, "/"); c != "" {
		return path.Base(c)
	}
	return "unknown"
}

func (x *Extractor) context() string {
	var b strings.Builder
	kind := sessions.AgentName(x.meta.Kind)
	if kind == "" {
		kind = "An agent"
	}
	b.WriteString(kind + " session")
	if x.meta.ID != "" {
		b.WriteString(" `" + x.meta.ID + "`")
	}
	if x.meta.Cwd != "" {
		b.WriteString(" in `" + x.meta.Cwd + "`")
	}
	b.WriteString(" (project " + x.project())
	if x.meta.GitBranch != "" {
		b.WriteString(", branch `" + x.meta.GitBranch + "`")
	}
	b.WriteString(")")
	start, end := x.meta.CreatedAt, x.meta.UpdatedAt
	if start.IsZero() {
		start = x.first
	}
	if end.IsZero() {
		end = x.last
	}
	if !start.IsZero() {
		from := start.UTC().Format("2006-01-02 15:04")
		b.WriteString(", " + from)
		if to := end.UTC().Format("2006-01-02 15:04"); !end.IsZero() && to != from {
			b.WriteString(" to " + to)
		}
		b.WriteString(" UTC")
	}
	if x.meta.Source != "" {
		b.WriteString(", source " + x.meta.Source)
	}
	if x.meta.Model != "" {
		b.WriteString(", model " + x.meta.Model)
	}
	var ran, failed, unknown, refused, commits, undone int
	var changed, gitRan []string
	gone := goneLater(x.tasks)
	for _, t := range x.tasks {
		ran, failed, unknown, refused, commits = ran+t.ran, failed+t.failed, unknown+t.unknown, refused+len(t.refused), commits+len(t.commits)
		undone += len(t.files.undone())
		for _, f := range t.files.live() {
			if !gone[f.path] {
				changed = appendNew(changed, x.relPath(f.path))
			}
		}
		for _, g := range t.gitChanges {
			gitRan = appendNew(gitRan, "`"+g+"`")
		}
	}
	b.WriteString(". The human sent " + english.Count(x.humans, "message", "messages") + "; the agent ")
	if ran == 0 {
		b.WriteString("ran no command")
	} else {
		b.WriteString("ran " + english.Count(ran, "command", "commands") + " (" + itoa(failed) + " failed")
		if unknown > 0 {
			b.WriteString(", " + itoa(unknown) + " without an exit status of its own")
		}
		b.WriteString(")")
	}
	switch {
	case len(changed) == 0 && commits > 0:
		b.WriteString(" and made " + english.Count(commits, "git commit", "git commits") + " (no file edited directly)")
	case len(changed) == 0 && len(gitRan) > 0:
		b.WriteString(" and edited no file directly; git changed the repository (" + strings.Join(gitRan, ", ") + ")")
		gitRan = nil
	case len(changed) == 0:
		b.WriteString(" and changed no file")
	default:
		b.WriteString(" and changed " + english.Count(len(changed), "file", "files"))
	}
	if undone > 0 {
		b.WriteString(" (" + itoa(undone) + " more changed and then undone)")
	}
	if len(changed) > 0 && commits > 0 {
		b.WriteString("; it made " + english.Count(commits, "git commit", "git commits"))
	}
	if len(gitRan) > 0 {
		b.WriteString("; git also changed the repository (" + strings.Join(gitRan, ", ") + ")")
	}
	b.WriteString(".")
	if len(changed) > 0 {
		// The names, not only the count: which files a session touched is
		// what a later session searching for one of them needs.
		b.WriteString(" Files changed: `" + strings.Join(capped(changed, maxChangedNames), "`, `") + "`")
		if len(changed) > maxChangedNames {
			b.WriteString(" and " + itoa(len(changed)-maxChangedNames) + " more")
		}
		b.WriteString(".")
	}
	if refused > 0 {
		b.WriteString(" " + english.Count(refused, "tool call", "tool calls") + " did not run: rejected or interrupted by the user, or not permitted.")
	}
	if x.memReads > 0 {
		b.WriteString(" The agent's " + english.Count(x.memReads, "read", "reads") + " of its own memory are left out.")
	}
	b.WriteString(" " + rawmemory.OfflineNote)
	return b.String()
}

// keyword scores a word for the keywords of the thread.
func (x *Extractor) keyword(w string, weight int) {
	if w = strings.TrimSpace(w); w == "" || len(w) < 3 || stopWords()[w] {
		return
	}
	if _, ok := x.kw[w]; ok || len(x.kw) < maxKeywordPool {
		if x.kw[w] += weight; x.kw[w] <= 0 {
			delete(x.kw, w)
		}
	}
}

func (x *Extractor) keywords(words []string, weight int) {
	for _, w := range words {
		x.keyword(w, weight)
	}
}

// topKeywords returns the best keywords, ties in alphabetical order.
func (x *Extractor) topKeywords(n int) []string {
	all := make([]string, 0, len(x.kw))
	for w := range x.kw {
		all = append(all, w)
	}
	sort.Slice(all, func(i, j int) bool {
		if x.kw[all[i]] != x.kw[all[j]] {
			return x.kw[all[i]] > x.kw[all[j]]
		}
		return all[i] < all[j]
	})
	return capped(all, n)
}
