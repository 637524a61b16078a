package review

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/reviewdir"
)

// A committed team file that the quarantine's untrusted rules hold is
// reviewed where it lies, in the repository: the user's approval is the
// hash of its bytes (reviewdir.TeamHash), kept in <home>/review/team-approved
// (reviewdir.TeamFile), one a line. An edit of the file makes it a file
// nobody approved.

// ApproveTeam records the approval of team files by their hashes.
func ApproveTeam(root string, hashes ...string) error {
	all := reviewdir.TeamApproved(root)
	for _, h := range hashes {
		all[h] = true
	}
	lines := make([]string, 0, len(all))
	for h := range all {
		lines = append(lines, h)
	}
	sort.Strings(lines)
	dir := filepath.Dir(reviewdir.TeamFile(root))
	if err := os.MkdirAll(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return memdir.WriteAtomic(reviewdir.TeamFile(root), []byte(strings.Join(lines, "\n")+"\n"), 0o600)
}
