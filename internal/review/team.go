package review

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/memctl/memctl/internal/memdir"
)

// A committed team file that the quarantine's untrusted rules hold is
// reviewed where it lies, in the repository: the user's approval is the
// hash of its bytes, kept in <home>/review/team-approved, one a line. An
// edit of the file makes it a file nobody approved.

// TeamHash is what an approval of a team file's bytes records.
func TeamHash(content []byte) string {
	h := sha256.Sum256(content)
	return hex.EncodeToString(h[:])
}

func teamFile(root string) string {
	return filepath.Join(filepath.Dir(root), Folder, "team-approved")
}

// TeamApproved returns the approved hashes (for the memory folder root's
// home); none when nothing was approved. summary reads it only when a
// team file is held.
func TeamApproved(root string) map[string]bool {
	out := map[string]bool{}
	b, err := os.ReadFile(teamFile(root))
	if err != nil {
		return out
	}
	for _, l := range strings.Fields(string(b)) {
		out[l] = true
	}
	return out
}

// ApproveTeam records the approval of team files by their hashes.
func ApproveTeam(root string, hashes ...string) error {
	all := TeamApproved(root)
	for _, h := range hashes {
		all[h] = true
	}
	lines := make([]string, 0, len(all))
	for h := range all {
		lines = append(lines, h)
	}
	sort.Strings(lines)
	dir := filepath.Dir(teamFile(root))
	if err := os.MkdirAll(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return memdir.WriteAtomic(teamFile(root), []byte(strings.Join(lines, "\n")+"\n"), 0o600)
}
