package heuristic

import (
	"cmp"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/memctl/memctl/internal/english"
	"github.com/memctl/memctl/internal/rawmemory"
	"github.com/memctl/memctl/internal/sessions"
)

// The "Rollout context" paragraph: where and when the session ran, and exact counts of what it did.

// project names the session's project: its remote's last part, else its folder's name.
func (x *Extractor) project() string {
	r := strings.TrimSuffix(strings.TrimRight(x.meta.GitRemote, "/"), ".git")
	if i := strings.LastIndexAny(r, "/:"); i >= 0 && i < len(r)-1 {
		return r[i+1:]
	}
	return path.Base(cmp.Or(strings.TrimRight(x.meta.Cwd, "/"), "unknown"))
}

func (x *Extractor) context() string {
	opt := func(pre, s, post string) string { return when(s != "", pre+s+post) }
	b := cmp.Or(sessions.AgentName(x.meta.Kind), "An agent") + " session" + opt(" `", x.meta.ID, "`") +
		opt(" in `", x.meta.Cwd, "`") + " (project " + x.project() +
		opt(", branch `", when(!x.moved, x.meta.GitBranch), "`") + ")"
	if start, end := cmp.Or(x.meta.CreatedAt, x.first), cmp.Or(x.meta.UpdatedAt, x.last); !start.IsZero() {
		from, to := start.UTC().Format("2006-01-02 15:04"), end.UTC().Format("2006-01-02 15:04")
		b += ", " + from + when(!end.IsZero() && to != from, " to "+to) + " UTC"
	}
	b += opt(", source ", x.meta.Source, "") + opt(", model ", x.meta.Model, "")
	var ran, failed, unknown, refused, commits, undone int
	changed, floor := []string(nil), false // floor: files changed under names not known (moved along, edited in place)
	for _, t := range x.tasks {
		ran, failed, unknown = ran+t.ran, failed+t.failed, unknown+t.unknown
		refused, commits, undone = refused+len(t.refused), commits+len(t.commits), undone+len(t.files.undone())
		floor = floor || t.files.floor
		for _, f := range t.files.live() {
			changed = appendNew(changed, x.relPath(f.path))
		}
	}
	b += ". The human sent " + english.Count(x.humans, "message", "messages") +
		"; the agent ran " + english.Count(ran, "command", "commands") + when(ran > 0, " ("+itoa(failed)+" failed"+
		when(unknown > 0, ", "+itoa(unknown)+" without an exit status of its own")+")")
	// Whether git changed the repository (a pull, a merge) only its output says: no file edited is what stands.
	b += cmp.Or(when(len(changed) > 0, " and changed "+when(floor, "at least ")+
		english.Count(len(changed), "file", "files")), when(floor, " and changed files it does not name"),
		" and edited no file directly") + when(undone > 0, " ("+itoa(undone)+" more changed and then undone)") +
		when(commits > 0, "; it made "+english.Count(commits, "git commit", "git commits")) + "." +
		when(len(changed) > 0, " Files changed: "+codeList(capped(changed, maxChangedNames), 200)+ // to search for one
			more(len(changed), maxChangedNames)+".") +
		when(refused > 0, " "+english.Count(refused, "tool call", "tool calls")+
			" did not run: rejected or interrupted by the user, or not permitted.") +
		when(x.memReads > 0, " The agent's "+english.Count(x.memReads, "read", "reads")+
			" of its own memory are left out.")
	return b + " " + rawmemory.OfflineNote
}

// keyword scores a word for the keywords of the thread.
func (x *Extractor) keyword(w string, weight int) {
	if w = strings.TrimSpace(w); len(w) < 3 || stopWords()[w] {
		return
	}
	if _, ok := x.kw[w]; ok || len(x.kw) < maxKeywordPool {
		if x.kw[w] += weight; x.kw[w] <= 0 {
			delete(x.kw, w)
		}
	}
}

// topKeywords returns the best keywords, ties in alphabetical order.
func (x *Extractor) topKeywords(n int) []string {
	byWeight := func(a, b string) int { return cmp.Or(x.kw[b]-x.kw[a], strings.Compare(a, b)) }
	return capped(slices.SortedFunc(maps.Keys(x.kw), byWeight), n)
}
