package consolidate

import (
	"fmt"
	"strings"

	"github.com/memctl/memctl/internal/textcut"
)

// MaxDiffBytes caps the unified diff inside phase2_workspace_diff.md
// (4 MiB, as Codex caps it).
const MaxDiffBytes = 4 * 1024 * 1024

// diffContext is the number of unchanged lines shown around each change.
const diffContext = 3

// maxEditDistance bounds the Myers search; past it the changed middle of a
// file is shown as a whole replacement, which is still a correct diff and
// keeps memory use to a few megabytes for pathological inputs.
const maxEditDistance = 1000

// RenderDiffFile renders phase2_workspace_diff.md in Codex's layout: a
// title, a notice, the status list ("- none" when nothing changed) and, when
// something changed, a fenced git-style unified diff capped at
// MaxDiffBytes.
func RenderDiffFile(changes []Change, base, cur []BaselineFile) string {
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
		if body.Len() > MaxDiffBytes {
			break // the rest would be cut anyway
		}
		o, hasOld := old[c.Path]
		n, hasNew := now[c.Path]
		body.WriteString(unifiedFileDiff(c.Path, o, hasOld, n, hasNew))
	}
	text := body.String()
	truncated := false
	if len(text) > MaxDiffBytes {
		text = text[:textcut.PrefixEnd(text, MaxDiffBytes)]
		truncated = true
	}
	b.WriteString(text)
	if !strings.HasSuffix(text, "\n") {
		b.WriteString("\n")
	}
	if truncated {
		fmt.Fprintf(&b, "\n[workspace diff truncated at %d bytes]\n", MaxDiffBytes)
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
	hunks := unifiedHunks(splitLines(oldText), splitLines(newText))
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

// splitLines splits text into lines that keep their "\n"; a last line
// without one is kept as is.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// editOp is one line of an edit script. For '-' b is the position in the
// new file where the deletion happens, for '+' a is the position in the
// old file, so hunk headers can be computed from any op.
type editOp struct {
	kind byte // ' ', '-', '+'
	a, b int
}

// lineDiff returns an edit script turning x into y: common prefix and
// suffix are matched directly and the middle goes through Myers' O(ND)
// algorithm.
func lineDiff(x, y []string) []editOp {
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	var ops []editOp
	for i := 0; i < pre; i++ {
		ops = append(ops, editOp{' ', i, i})
	}
	mx, my := x[pre:len(x)-suf], y[pre:len(y)-suf]
	mid, ok := myers(mx, my)
	if !ok {
		mid = nil
		for i := range mx {
			mid = append(mid, editOp{'-', i, 0})
		}
		for j := range my {
			mid = append(mid, editOp{'+', len(mx), j})
		}
	}
	for _, op := range mid {
		ops = append(ops, editOp{op.kind, op.a + pre, op.b + pre})
	}
	for i := 0; i < suf; i++ {
		ops = append(ops, editOp{' ', len(x) - suf + i, len(y) - suf + i})
	}
	return ops
}

// myers finds a shortest edit script; ok is false when it needs more than
// maxEditDistance edits.
func myers(x, y []string) ([]editOp, bool) {
	n, m := len(x), len(y)
	if n == 0 && m == 0 {
		return nil, true
	}
	limit := n + m
	off := limit + 1
	v := make([]int, 2*limit+3)
	var trace [][]int
	for d := 0; d <= limit; d++ {
		if d > maxEditDistance {
			return nil, false
		}
		// Keep v as it stood after step d-1 for the backtrack.
		snap := make([]int, 2*d+3)
		copy(snap, v[off-d-1:off+d+2])
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var xx int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				xx = v[off+k+1]
			} else {
				xx = v[off+k-1] + 1
			}
			yy := xx - k
			for xx < n && yy < m && x[xx] == y[yy] {
				xx++
				yy++
			}
			v[off+k] = xx
			if xx >= n && yy >= m {
				return backtrack(trace, n, m), true
			}
		}
	}
	return nil, false
}

func backtrack(trace [][]int, n, m int) []editOp {
	var rev []editOp
	x, y := n, m
	for d := len(trace) - 1; d >= 0; d-- {
		snap := trace[d]
		get := func(k int) int { return snap[k+d+1] }
		k := x - y
		var prevK int
		if k == -d || (k != d && get(k-1) < get(k+1)) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := 0
		if d > 0 {
			prevX = get(prevK)
		}
		prevY := prevX - prevK
		if d == 0 {
			prevX, prevY = 0, 0
		}
		for x > prevX && y > prevY {
			x--
			y--
			rev = append(rev, editOp{' ', x, y})
		}
		if d > 0 {
			if x == prevX {
				y--
				rev = append(rev, editOp{'+', x, y})
			} else {
				x--
				rev = append(rev, editOp{'-', x, y})
			}
		}
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

// unifiedHunks renders the hunks of a diff with diffContext lines of
// context, "" when the texts are equal.
func unifiedHunks(x, y []string) string {
	ops := lineDiff(x, y)
	var b strings.Builder
	i := 0
	for i < len(ops) {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(0, i-diffContext)
		j := i
		for {
			for j < len(ops) && ops[j].kind != ' ' {
				j++
			}
			e := j
			for e < len(ops) && ops[e].kind == ' ' {
				e++
			}
			if e < len(ops) && e-j <= 2*diffContext {
				j = e
				continue
			}
			break
		}
		end := min(len(ops), j+diffContext)
		writeHunk(&b, ops[start:end], x, y)
		i = end
	}
	return b.String()
}

func writeHunk(b *strings.Builder, ops []editOp, x, y []string) {
	oldStart, newStart := ops[0].a, ops[0].b
	oldLen, newLen := 0, 0
	for _, op := range ops {
		if op.kind != '+' {
			oldLen++
		}
		if op.kind != '-' {
			newLen++
		}
	}
	fmt.Fprintf(b, "@@ -%s +%s @@\n", hunkRange(oldStart, oldLen), hunkRange(newStart, newLen))
	for _, op := range ops {
		var line string
		switch op.kind {
		case '+':
			line = y[op.b]
		default:
			line = x[op.a]
		}
		b.WriteByte(op.kind)
		b.WriteString(line)
		if !strings.HasSuffix(line, "\n") {
			b.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// hunkRange formats a hunk range as diff does: "l" for one line, "l,n"
// otherwise, and for an empty range the line before it.
func hunkRange(start, n int) string {
	switch n {
	case 1:
		return fmt.Sprint(start + 1)
	case 0:
		return fmt.Sprintf("%d,0", start)
	default:
		return fmt.Sprintf("%d,%d", start+1, n)
	}
}

// UnifiedDiff is a git-style unified diff of one file (path as shown),
// from old to new; hadOld or hasNew false stand for a file created or
// deleted. `memctl setup --dry-run` shows its edits with it.
func UnifiedDiff(path string, old []byte, hadOld bool, new []byte, hasNew bool) string {
	return unifiedFileDiff(path, BaselineFile{Path: path, Mode: ModeRegular, Content: old}, hadOld,
		BaselineFile{Path: path, Mode: ModeRegular, Content: new}, hasNew)
}
