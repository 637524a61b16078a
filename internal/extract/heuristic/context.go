package heuristic

import (
	"path"
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

func (x *Extractor) context(d digest) string {
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
	b.WriteString(" (project " + d.project)
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
	b.WriteString(". The human sent " + english.Count(x.humans, "message", "messages") + "; the agent ")
	if d.ran == 0 {
		b.WriteString("ran no command")
	} else {
		b.WriteString("ran " + english.Count(d.ran, "command", "commands") + " (" + itoa(d.failed) + " failed")
		if d.unknown > 0 {
			b.WriteString(", " + itoa(d.unknown) + " without a recorded exit status")
		}
		b.WriteString(")")
	}
	gitRan := ""
	if len(d.gitChanges) > 0 {
		gitRan = "`" + strings.Join(cutLines(d.gitChanges, 80), "`, `") + "`"
	}
	switch {
	case d.files == 0 && d.commits > 0:
		// Files a commit, a cherry-pick or a revert brought in were
		// changed by git, not one by one: say what git reported.
		b.WriteString(" and made " + english.Count(d.commits, "git commit", "git commits") + " (no file edited directly)")
	case d.files == 0 && gitRan != "":
		// git apply, a merge or a rebase changed files that no tool
		// edited, and reported no commit to count: name the commands.
		b.WriteString(" and edited no file directly; git changed the repository (" + gitRan + ")")
		gitRan = ""
	case d.files == 0:
		b.WriteString(" and changed no file")
	default:
		b.WriteString(" and changed " + english.Count(d.files, "file", "files"))
	}
	if d.undone > 0 {
		b.WriteString(" (" + itoa(d.undone) + " more changed and then undone)")
	}
	if d.files > 0 && d.commits > 0 {
		b.WriteString("; it made " + english.Count(d.commits, "git commit", "git commits"))
	}
	if gitRan != "" {
		b.WriteString("; git also changed the repository (" + gitRan + ")")
	}
	b.WriteString(".")
	if len(d.changed) > 0 {
		// The names, not only the count: which files a session touched is
		// what a later session searching for one of them needs.
		b.WriteString(" Files changed: `" + strings.Join(d.changed, "`, `") + "`")
		if d.files > len(d.changed) {
			b.WriteString(" and " + itoa(d.files-len(d.changed)) + " more")
		}
		b.WriteString(".")
	}
	if d.refused > 0 {
		b.WriteString(" " + english.Count(d.refused, "tool call", "tool calls") + " did not run: rejected or interrupted by the user, or not permitted.")
	}
	if x.subagents > 0 {
		b.WriteString(" Sub-agents exchanged " + english.Count(x.subagents, "message", "messages") + ".")
	}
	if x.memReads > 0 {
		b.WriteString(" The agent's " + english.Count(x.memReads, "read", "reads") + " of its own memory are left out.")
	}
	b.WriteString(" " + rawmemory.OfflineNote)
	return b.String()
}
