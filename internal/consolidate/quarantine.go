package consolidate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/quarantine"
)

// HeldLine is a line removed from a file of the memory folder because it
// reads like an order to the agent that will read it.
type HeldLine struct {
	Path   string `json:"path"` // relative, slash-separated
	Line   int    `json:"line"` // 1-based, in the file as it was
	Reason string `json:"reason"`
	Text   string `json:"text"` // cut to quarantine.MaxTextBytes
}

// holdBackInFolder removes from every file of the folder that an agent
// reads (MEMORY.md, memory_summary.md, raw_memories.md, rollout summaries,
// the project layer, skills, notes and extension resources) the lines the
// strong rules of internal/quarantine object to: text that overrides the
// agent's instructions or sends secrets away, whoever wrote it. Extraction
// holds such lines back from raw memories with the session's help; this
// covers what got past it, what a model or agent consolidator wrote, and
// what a person put in a note. It runs on the inputs
// before the consolidator reads them and on everything once it is done.
//
// Hidden names, the workspace diff (made from the swept inputs) and the
// ad hoc instructions memctl seeds are left alone; so is what is not
// UTF-8 text. Files are rewritten atomically, keeping their mode.
func holdBackInFolder(root string) ([]HeldLine, error) {
	var held []HeldLine
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if p != root && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case rel == memdir.DiffFile, rel == memdir.AdHocInstructionsFile, strings.HasSuffix(rel, ".json"):
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if !utf8.Valid(data) {
			return nil
		}
		lines := strings.Split(string(data), "\n")
		kept := lines[:0:0]
		var here []HeldLine
		for i, line := range lines {
			if r := quarantine.Strong(line); r != "" {
				here = append(here, HeldLine{Path: rel, Line: i + 1, Reason: r, Text: cut(strings.TrimSpace(line))})
				continue
			}
			kept = append(kept, line)
		}
		if len(here) == 0 {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if err := memdir.WriteAtomic(p, []byte(strings.Join(kept, "\n")), info.Mode().Perm()); err != nil {
			return err
		}
		held = append(held, here...)
		return nil
	})
	sort.SliceStable(held, func(i, j int) bool { return held[i].Path < held[j].Path })
	return held, err
}

func cut(s string) string {
	if len(s) <= quarantine.MaxTextBytes {
		return s
	}
	end := quarantine.MaxTextBytes
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + "…"
}

// describeHeld is the log line for lines held back from the folder.
func describeHeld(stage string, held []HeldLine) string {
	var where []string
	for i, h := range held {
		if i == 5 {
			where = append(where, fmt.Sprintf("and %d more", len(held)-i))
			break
		}
		where = append(where, fmt.Sprintf("%s:%d (%s)", h.Path, h.Line, h.Reason))
	}
	return fmt.Sprintf("memctl: warning: held back %d instruction-shaped line(s) %s: %s",
		len(held), stage, strings.Join(where, ", "))
}
