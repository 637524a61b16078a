package consolidate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memversion"
)

// errInvalidArtifacts wraps every reason Validate rejects a memory folder.
var errInvalidArtifacts = errors.New("invalid memory artifacts")

// maxSummaryV2Bytes is the exclusive size limit of a v2 memory_summary.md.
const maxSummaryV2Bytes = 10000

// summaryV2Headings must each appear as a line of a v2 summary.
var summaryV2Headings = []string{"## User Profile", "## User preferences", "## General Tips", "## What's in Memory"}

// Validate checks the consolidated artifacts as Codex 7.6 does. It first
// removes every symlink under root: a consolidator has no business creating
// links, and one pointing outside the folder would let later writes escape
// it, so any removed link makes the folder invalid. Then: v1 needs MEMORY.md
// as a regular file; both need memory_summary.md whose first line is
// exactly "v1" (the format header, not the pipeline version); v2 also needs
// the summary below 10,000 bytes with its four headings.
func Validate(root string, version memversion.Version) error {
	n, err := memdir.RemoveSymlinks(root)
	if err != nil {
		return fmt.Errorf("%w: %v", errInvalidArtifacts, err)
	}
	if n > 0 {
		return fmt.Errorf("%w: removed %d symbolic links from the memory folder", errInvalidArtifacts, n)
	}
	if version != memversion.V2 {
		fi, err := os.Lstat(filepath.Join(root, memdir.MemoryFile))
		if err != nil {
			return fmt.Errorf("%w: %s is missing", errInvalidArtifacts, memdir.MemoryFile)
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%w: %s is not a regular file", errInvalidArtifacts, memdir.MemoryFile)
		}
	}
	data, err := os.ReadFile(filepath.Join(root, memdir.SummaryFile))
	if err != nil {
		return fmt.Errorf("%w: %s is not readable", errInvalidArtifacts, memdir.SummaryFile)
	}
	text := string(data)
	if firstLine(text) != "v1" { // the format header, whatever the memory version
		return fmt.Errorf("%w: the first line of %s must be exactly v1", errInvalidArtifacts, memdir.SummaryFile)
	}
	if version == memversion.V2 {
		if len(data) >= maxSummaryV2Bytes {
			return fmt.Errorf("%w: %s is %d bytes, the limit is %d", errInvalidArtifacts, memdir.SummaryFile, len(data), maxSummaryV2Bytes)
		}
		have := map[string]bool{}
		for _, l := range strings.Split(text, "\n") {
			have[strings.TrimSpace(l)] = true
		}
		for _, h := range summaryV2Headings {
			if !have[h] {
				return fmt.Errorf("%w: %s lacks the heading %q", errInvalidArtifacts, memdir.SummaryFile, h)
			}
		}
	}
	return nil
}

// firstLine returns the text before the first "\n", without a trailing "\r".
func firstLine(s string) string {
	if s == "" {
		return "\x00" // no line at all: never equals "v1"
	}
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSuffix(line, "\r")
}
