package consolidate

import (
	"fmt"
	"strings"

	"github.com/memctl/memctl/internal/textcut"
	"github.com/rogpeppe/go-internal/diff"
)

// maxDiffBytes caps the unified diff inside phase2_workspace_diff.md
// (4 MiB, as Codex caps it).
const maxDiffBytes = 4 * 1024 * 1024

// renderDiffFile renders phase2_workspace_diff.md in Codex's layout: a
// title, a notice, the status list ("- none" when nothing changed) and, when
// something changed, a fenced git-style unified diff capped at
// maxDiffBytes.
func renderDiffFile(changes []Change, base, cur []BaselineFile) string {
	var b strings.Builder
	b.WriteString("# Memory Workspace Diff\n\n")
	b.WriteString("memctl generated this file before consolidation to list what changed in the memory folder since the last good baseline; read it first and do not edit it.\n\n")
	b.WriteString("## Status\n")
	if len(changes) == 0 {
		b.WriteString("- none\n")
		return b.String()
	}
	for _, c := range changes {
		fmt.Fprintf(&b, "- %c %s\n", c.Status, c.Path)
	}
	b.WriteString("\n## Diff\n\n```diff\n")
	old, now := indexFiles(base), indexFiles(cur)
	var body strings.Builder
	for _, c := range changes {
		if body.Len() > maxDiffBytes {
			break // the rest would be cut anyway
		}
		o, hasOld := old[c.Path]
		n, hasNew := now[c.Path]
		body.WriteString(unifiedFileDiff(c.Path, o, hasOld, n, hasNew))
	}
	text := body.String()
	truncated := false
	if len(text) > maxDiffBytes {
		text = text[:textcut.PrefixEnd(text, maxDiffBytes)]
		truncated = true
	}
	b.WriteString(text)
	if !strings.HasSuffix(text, "\n") {
		b.WriteString("\n")
	}
	if truncated {
		fmt.Fprintf(&b, "\n[workspace diff truncated at %d bytes]\n", maxDiffBytes)
	}
	b.WriteString("```\n")
	return b.String()
}

// largeDiffFileBytes is the size (old and new content together) above
// which a file's diff is summarised instead of shown line by line.
const largeDiffFileBytes = 1 << 20

// unifiedFileDiff renders one file's git-style diff.
func unifiedFileDiff(p string, o BaselineFile, hasOld bool, n BaselineFile, hasNew bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\n", p, p)
	oldName, newName := "a/"+p, "b/"+p
	var oldText, newText string
	switch {
	case !hasOld:
		fmt.Fprintf(&b, "new file mode %06o\n", n.Mode)
		oldName = "/dev/null"
		newText = lossy(n.Content)
	case !hasNew:
		fmt.Fprintf(&b, "deleted file mode %06o\n", o.Mode)
		newName = "/dev/null"
		oldText = lossy(o.Content)
	default:
		if o.Mode != n.Mode {
			fmt.Fprintf(&b, "old mode %06o\nnew mode %06o\n", o.Mode, n.Mode)
		}
		oldText, newText = lossy(o.Content), lossy(n.Content)
	}
	if len(oldText)+len(newText) > largeDiffFileBytes {
		// A line diff of a huge file costs memory out of proportion and
		// would fill the capped diff on its own: say what changed instead.
		fmt.Fprintf(&b, "--- %s\n+++ %s\n@@ large file: %d bytes before, %d bytes after; contents not shown @@\n",
			oldName, newName, len(oldText), len(newText))
		return b.String()
	}
	hunks := unifiedHunks(oldText, newText)
	if hunks != "" {
		fmt.Fprintf(&b, "--- %s\n+++ %s\n", oldName, newName)
		b.WriteString(hunks)
	}
	return b.String()
}

// lossy decodes bytes as UTF-8, replacing invalid sequences with U+FFFD.
func lossy(data []byte) string {
	return strings.ToValidUTF8(string(data), "\uFFFD")
}

// unifiedHunks renders the hunks of a line diff from old to new with three
// lines of context, "" when the texts are equal. The diff is
// rogpeppe/go-internal's anchored diff, O(n log n) whatever the edit
// distance (docs/benchmarks.md compares it with the Myers diff it
// replaced); its header lines are dropped, since the caller writes git's,
// and its hunk ranges are written as git writes them, a count of one left
// out ("@@ -3 +3,2 @@").
func unifiedHunks(old, new string) string {
	out := diff.Diff("a", []byte(old), "b", []byte(new))
	if out == nil {
		return ""
	}
	var b strings.Builder
	b.Grow(len(out))
	n := 0
	for line := range strings.Lines(string(out)) {
		n++
		switch {
		case n <= 3: // "diff a b", "--- a", "+++ b"
		case strings.HasPrefix(line, "@@ "):
			b.WriteString(gitHunkHeader(line))
		default:
			b.WriteString(line)
		}
	}
	return b.String()
}

// gitHunkHeader rewrites "@@ -l,1 +m,n @@" as git writes it, "@@ -l +m,n @@".
func gitHunkHeader(h string) string {
	fields := strings.Fields(h) // "@@", "-l,c", "+m,n", "@@"
	if len(fields) != 4 {
		return h
	}
	for _, i := range []int{1, 2} {
		fields[i] = strings.TrimSuffix(fields[i], ",1")
	}
	return strings.Join(fields, " ") + "\n"
}

// UnifiedDiff is a git-style unified diff of one file (path as shown),
// from old to new; hadOld or hasNew false stand for a file created or
// deleted. `memctl setup --dry-run` shows its edits with it.
func UnifiedDiff(path string, old []byte, hadOld bool, new []byte, hasNew bool) string {
	return unifiedFileDiff(path, BaselineFile{Path: path, Mode: modeRegular, Content: old}, hadOld,
		BaselineFile{Path: path, Mode: modeRegular, Content: new}, hasNew)
}
