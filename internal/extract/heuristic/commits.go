package heuristic

import (
	"github.com/memctl/memctl/internal/program"
	"slices"
	"strings"

	"github.com/memctl/memctl/internal/textcut"
)

// commit is one commit a git command reported making.
type commit struct {
	sha     string
	subject string
}

// commitLineRE is the line git commit, cherry-pick and revert print for
// each commit they make: "[main 1a2b3c4] subject", "[main (root-commit)
// 1a2b3c4] subject", "[detached HEAD 1a2b3c4] subject".
var commitLineRE = lazyRE(`(?m)^\[[^\]\n]*?([0-9a-f]{7,40})\] (.+)$`)

// maxCommits bounds the commits kept per task (a rebase of a long branch
// prints one line per commit).
const maxCommits = 8

// commitsMade returns the commits a successful git command reported: a
// session that cherry-picks or commits changes the repository even when
// no file was edited by a tool, and the hashes are what the next agent
// can look up.
func commitsMade(cmd, out string) []commit {
	if program.Name(cmd) != "git" || isExploration(cmd) {
		return nil
	}
	var cs []commit
	for _, m := range commitLineRE().FindAllStringSubmatch(out, maxCommits) {
		cs = append(cs, commit{sha: m[1], subject: textcut.Line(strings.TrimSpace(m[2]), 100)})
	}
	return cs
}

// addCommits records commits once each (a commit amended keeps a new
// hash, so it counts again, as git does).
func (t *task) addCommits(cs []commit) {
	for _, c := range cs {
		seen := false
		for _, have := range t.commits {
			seen = seen || have.sha == c.sha
		}
		if !seen && len(t.commits) < maxCommits {
			t.commits = append(t.commits, c)
		}
	}
}

// commitsText lists commits for the timeline: `1a2b3c4` “subject”.
func commitsText(cs []commit) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = code(c.sha) + " " + quote(c.subject)
	}
	return strings.Join(parts, ", ")
}

// gitChangeSubs are the git subcommands that change the checkout or its
// history when they succeed. Most print no commit line of their own: a
// fast-forward merge, a rebase, git am, git apply, git commit -q.
var gitChangeSubs = wordSet(`commit cherry-pick revert merge rebase am apply pull`)

// gitNoChangeRE is what git prints when such a command had nothing to do.
var gitNoChangeRE = lazyRE(`(?im)already up[ -]to[ -]date|^Current branch \S+ is up to date|^nothing to commit|^no changes added to commit`)

// gitNoChangeFlags make those subcommands look, undo or stop instead of
// changing anything (git apply --check, git rebase --abort).
var gitNoChangeFlags = wordSet(`--abort --quit --dry-run --show-current-patch --check --stat --numstat --summary`)

// changesThroughGit reports a command line, already known to have
// succeeded, that changed the repository through git: a session whose
// only change was "git apply fix.patch" or "git merge feature" did
// change the repository, though no tool edited a file. Each command of a
// chain counts ("git add -A && git commit -qm …").
func changesThroughGit(cmd, out string) bool {
	if gitNoChangeRE().MatchString(out) {
		return false
	}
	for _, part := range splitChain(cmd) {
		args := program.GitArgs(program.Core(part))
		if len(args) == 0 || !gitChangeSubs()[args[0]] {
			continue
		}
		if args[0] == "apply" && slices.Contains(args, "--apply") {
			return true // --apply overrides --check and --stat
		}
		if !slices.ContainsFunc(args[1:], func(a string) bool { return gitNoChangeFlags()[a] }) {
			return true
		}
	}
	return false
}

// maxGitChanges bounds the git command lines kept per task.
const maxGitChanges = 4

// addGitChange records a command line that changed the repository
// through git without reporting a commit, once.
func (t *task) addGitChange(cmd string) {
	if !slices.Contains(t.gitChanges, cmd) && len(t.gitChanges) < maxGitChanges {
		t.gitChanges = append(t.gitChanges, cmd)
	}
}

// changedNothing reports a task that changed no file, made no commit and
// changed nothing through git.
func (t *task) changedNothing() bool {
	return len(t.files.live()) == 0 && len(t.commits) == 0 && len(t.gitChanges) == 0
}
