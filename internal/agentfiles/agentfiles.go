// Package agentfiles writes memory into an agent's own instruction files
// on request (`memctl export --to`): a managed block between two marker
// lines in AGENTS.md or CLAUDE.md, or Codex's memory extension file. What
// lies outside the block is the user's and is kept byte for byte; a second
// export replaces the block in place.
package agentfiles

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/internal/memdir"
)

// Targets of export --to.
const (
	AgentsMD = "agents-md"
	ClaudeMD = "claude-md"
	Codex    = "codex"
)

// Targets lists the values of export --to.
var Targets = []string{AgentsMD, ClaudeMD, Codex}

// The marker lines of the managed block.
const (
	Begin = "<!-- BEGIN memctl memory: managed by `memctl export --to`; edits inside are replaced -->"
	End   = "<!-- END memctl memory -->"
)

// Path is the file a target writes: AGENTS.md or CLAUDE.md at the
// repository's top folder, or memories_extensions/memctl/instructions.md
// under Codex's home.
func Path(target, repoRoot, codexHome string) (string, error) {
	switch target {
	case AgentsMD:
		return filepath.Join(repoRoot, "AGENTS.md"), nil
	case ClaudeMD:
		return filepath.Join(repoRoot, "CLAUDE.md"), nil
	case Codex:
		return filepath.Join(codexHome, "memories_extensions", "memctl", "instructions.md"), nil
	}
	return "", fmt.Errorf("unknown target %q (want %s)", target, strings.Join(Targets, ", "))
}

// ErrMarkers is returned for a file whose markers are out of order or
// repeated: replacing anything there could eat the user's text.
var ErrMarkers = errors.New("the memctl markers are broken (an END before its BEGIN, or more than one block); fix them by hand")

// Replace returns existing with the managed block holding body: the old
// block replaced in place, or a new one appended after a blank line.
func Replace(existing, body string) (string, error) {
	block := Begin + "\n" + strings.TrimRight(body, "\n") + "\n" + End + "\n"
	b, e := strings.Index(existing, Begin), strings.Index(existing, End)
	switch {
	case b < 0 && e < 0:
		if existing == "" {
			return block, nil
		}
		// One blank line between the user's text and the block.
		var sep string
		switch {
		case !strings.HasSuffix(existing, "\n"):
			sep = "\n\n"
		case !strings.HasSuffix(existing, "\n\n"):
			sep = "\n"
		}
		return existing + sep + block, nil
	case b < 0 || e < 0 || e < b || strings.Count(existing, Begin) > 1 || strings.Count(existing, End) > 1:
		return "", ErrMarkers
	}
	after := existing[e+len(End):]
	after = strings.TrimPrefix(after, "\n")
	return existing[:b] + block + after, nil
}

// Write puts body into the managed block of path, atomically, creating
// the file (and, for Codex's extension, its folders) when missing. It
// reports whether the file changed.
func Write(path, body string) (bool, error) {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
	next, err := Replace(string(old), body)
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	if next == string(old) {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	return true, memdir.WriteAtomic(path, []byte(next), mode)
}
