package heuristic

import (
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
	if firstWord(cmd) != "git" || isExploration(cmd) {
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
