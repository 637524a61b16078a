// Package reviewdir names where the review queue and the approvals of
// team files live, and reads what summary needs of them: how many items
// wait and which team files the user approved. It is a leaf, so the read
// path (memctl-summary) reads the queue without linking the queue's
// writers, the store or the bundle format (internal/review).
package reviewdir

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
)

// Folder is the home's folder of review queues and approvals.
const Folder = "review"

// Dir is the review folder of the memory folder root:
// <home>/review/<memory folder's name>/, one JSON file per held item.
func Dir(root string) string {
	return filepath.Join(filepath.Dir(root), Folder, filepath.Base(root))
}

// Count is how many items wait in the queue of root: one directory read,
// for summary. A missing or unreadable folder counts none.
func Count(root string) int {
	ents, err := os.ReadDir(Dir(root))
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".json") {
			n++
		}
	}
	return n
}

// TeamHash is what an approval of a team file's bytes records.
func TeamHash(content []byte) string {
	h := sha256.Sum256(content)
	return hex.EncodeToString(h[:])
}

// TeamFile holds the approved hashes of team files for the memory folder
// root's home, one a line.
func TeamFile(root string) string {
	return filepath.Join(filepath.Dir(root), Folder, "team-approved")
}

// TeamApproved returns the approved hashes (for the memory folder root's
// home); none when nothing was approved. summary reads it only when a
// team file is held.
func TeamApproved(root string) map[string]bool {
	out := map[string]bool{}
	b, err := os.ReadFile(TeamFile(root))
	if err != nil {
		return out
	}
	for _, l := range strings.Fields(string(b)) {
		out[l] = true
	}
	return out
}
