package heuristic

import (
	"slices"
	"strings"

	"github.com/memctl/memctl/internal/program"
	"github.com/memctl/memctl/internal/textcut"
)

// commit is one commit a git command reported making.
type commit = program.Commit

// maxCommits bounds the commits kept per task (a rebase of a long branch
// prints one line per commit).
const maxCommits = 8

// commitsMade returns the commits a successful git command reported: a
// session that cherry-picks or commits changes the repository even when
// no file was edited by a tool, and the hashes are what the next agent
// can look up.
func commitsMade(cmd, out string) []commit {
	if program.Name(cmd) != "git" || program.Explores(cmd) {
		return nil
	}
	cs := program.CommitsReported(out, maxCommits)
	for i := range cs {
		cs[i].Subject = textcut.Line(cs[i].Subject, 100)
	}
	return cs
}

// addCommits records commits once each (a commit amended keeps a new
// hash, so it counts again, as git does).
func (t *task) addCommits(cs []commit) {
	for _, c := range cs {
		seen := false
		for _, have := range t.commits {
			seen = seen || have.SHA == c.SHA
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
		parts[i] = code(c.SHA) + " " + quote(c.Subject)
	}
	return strings.Join(parts, ", ")
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
