package consolidate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/textcut"
)

func TestSnapshotSkipsGitAndDiffFile(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "MEMORY.md"), "m")
	writeFile(t, filepath.Join(root, memdir.DiffFile), "diff")
	writeFile(t, filepath.Join(root, ".git", "HEAD"), "ref")
	writeFile(t, filepath.Join(root, "sub", ".git"), "gitdir: x")
	writeFile(t, filepath.Join(root, "sub", memdir.DiffFile), "nested diff file is ordinary")
	writeFile(t, filepath.Join(root, "skills", "x", "run.sh"), "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(root, "skills", "x", "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "empty", "dir"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	files, err := Snapshot(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Path+" "+modeString(f.Mode)+" "+string(f.Content))
	}
	want := []string{
		"MEMORY.md 100644 m",
		"link 120000 /etc/passwd",
		"skills/x/run.sh 100755 #!/bin/sh\n",
		"sub/" + memdir.DiffFile + " 100644 nested diff file is ordinary",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Snapshot =\n%q\nwant\n%q", got, want)
	}
}

func modeString(m uint32) string { return fmt.Sprintf("%06o", m) }

func itoa8(m uint32) string {
	var b []byte
	for m > 0 {
		b = append([]byte{byte('0' + m%8)}, b...)
		m /= 8
	}
	return string(b)
}

func TestDiffStatuses(t *testing.T) {
	base := []BaselineFile{
		{Path: "a.md", Mode: modeRegular, Content: []byte("same")},
		{Path: "b.md", Mode: modeRegular, Content: []byte("old")},
		{Path: "c.md", Mode: modeRegular, Content: []byte("gone")},
		{Path: "d.sh", Mode: modeRegular, Content: []byte("x")},
	}
	cur := []BaselineFile{
		{Path: "a.md", Mode: modeRegular, Content: []byte("same")},
		{Path: "b.md", Mode: modeRegular, Content: []byte("new")},
		{Path: "d.sh", Mode: modeExecutable, Content: []byte("x")},
		{Path: "e.md", Mode: modeRegular, Content: []byte("added")},
	}
	var got []string
	for _, c := range diffSnapshots(base, cur) {
		got = append(got, c.String())
	}
	if want := "M b.md|D c.md|M d.sh|A e.md"; strings.Join(got, "|") != want {
		t.Errorf("Diff = %q, want %q", strings.Join(got, "|"), want)
	}
	if len(diffSnapshots(nil, nil)) != 0 {
		t.Error("empty diff not empty")
	}
}

func TestRenderDiffFileNone(t *testing.T) {
	got := renderDiffFile(nil, nil, nil)
	if !strings.HasPrefix(got, "# Memory Workspace Diff\n\n") || !strings.HasSuffix(got, "\n\n## Status\n- none\n") {
		t.Errorf("unexpected none form:\n%s", got)
	}
	if strings.Contains(got, "## Diff") {
		t.Error("none form has a diff section")
	}
}

func TestRenderDiffFileGolden(t *testing.T) {
	oldRaw := "# Raw Memories\n\nintro\n\n## Thread `a`\nline 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nline 9\n## Thread `b`\ncontent b\n"
	newRaw := "# Raw Memories\n\nintro\n\n## Thread `a`\nline 1\nline 2\nline 3\nline 4 changed\nline 5\nline 6\nline 7\nline 8\nline 9\n## Thread `c`\ncontent c\n"
	base := []BaselineFile{
		{Path: "MEMORY.md", Mode: modeRegular, Content: []byte("keep\n")},
		{Path: "raw_memories.md", Mode: modeRegular, Content: []byte(oldRaw)},
		{Path: "rollout_summaries/old.md", Mode: modeRegular, Content: []byte("thread_id: b\n\nold summary")},
		{Path: "skills/x/run.sh", Mode: modeRegular, Content: []byte("#!/bin/sh\n")},
		{Path: "bin.dat", Mode: modeRegular, Content: []byte{0xff, 0xfe, 'a', '\n'}},
	}
	cur := []BaselineFile{
		{Path: "MEMORY.md", Mode: modeRegular, Content: []byte("keep\n")},
		{Path: "raw_memories.md", Mode: modeRegular, Content: []byte(newRaw)},
		{Path: "rollout_summaries/new.md", Mode: modeRegular, Content: []byte("thread_id: c\n\nnew summary\n")},
		{Path: "skills/x/run.sh", Mode: modeExecutable, Content: []byte("#!/bin/sh\n")},
		{Path: "bin.dat", Mode: modeRegular, Content: []byte{0xff, 'b', '\n'}},
		{Path: "extensions/ad_hoc/notes/n.md", Mode: modeRegular, Content: []byte("")},
	}
	sortFiles(base)
	sortFiles(cur)
	got := renderDiffFile(diffSnapshots(base, cur), base, cur)
	goldenFile(t, "diff_file.golden", got)
}

func TestUnifiedHunks(t *testing.T) {
	tests := []struct {
		name, a, b, want string
	}{
		{"equal", "x\ny\n", "x\ny\n", ""},
		{"append", "a\n", "a\nb\n", "@@ -1 +1,2 @@\n a\n+b\n"},
		{"from empty", "", "a\n", "@@ -0,0 +1 @@\n+a\n"},
		{"to empty", "a\nb\n", "", "@@ -1,2 +0,0 @@\n-a\n-b\n"},
		{"no newline", "a", "b", "@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n"},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "1\nX\n3\n4\n5\n6\n7\n8\n9\n10\nY\n12\n",
			"@@ -1,5 +1,5 @@\n 1\n-2\n+X\n 3\n 4\n 5\n@@ -8,5 +8,5 @@\n 8\n 9\n 10\n-11\n+Y\n 12\n"},
		{"merged hunk", "1\n2\n3\n4\n5\n6\n7\n8\n", "1\nX\n3\n4\n5\n6\nY\n8\n",
			"@@ -1,8 +1,8 @@\n 1\n-2\n+X\n 3\n 4\n 5\n 6\n-7\n+Y\n 8\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := unifiedHunks(tt.a, tt.b); got != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestRenderDiffFileTruncatesOnCharBoundary(t *testing.T) {
	// "é" is two bytes; the header lines before the content shift the cut
	// so that it lands inside a character for one of these paddings.
	for pad := 0; pad < 2; pad++ {
		// Several files, each under the size at which a file's diff is
		// summarised, that together pass the cap.
		var cur []BaselineFile
		var changes []Change
		for i := 0; i < 12; i++ {
			content := strings.Repeat("é", 200_000) + "\n"
			if i == 0 {
				content = strings.Repeat("x", pad) + content
			}
			name := fmt.Sprintf("MEMORY%02d.md", i)
			if i == 0 {
				name = "MEMORY.md"
			}
			cur = append(cur, BaselineFile{Path: name, Mode: modeRegular, Content: []byte(content)})
			changes = append(changes, Change{'A', name})
		}
		got := renderDiffFile(changes, nil, cur)
		if !strings.Contains(got, "- A MEMORY.md\n") {
			t.Fatal("status line missing")
		}
		const marker = "\n\n[workspace diff truncated at 4194304 bytes]\n```\n"
		if !strings.HasSuffix(got, marker) {
			t.Fatalf("pad %d: no truncation marker at the end: %q", pad, got[len(got)-80:])
		}
		start := strings.Index(got, "```diff\n") + len("```diff\n")
		body := got[start : len(got)-len(marker)+1] // keep the newline added after the cut
		if len(body) > maxDiffBytes+1 {
			t.Errorf("pad %d: body is %d bytes", pad, len(body))
		}
		if !strings.HasSuffix(body, "\n") {
			t.Errorf("pad %d: cut body does not end with a newline", pad)
		}
		if strings.ContainsRune(got, '\uFFFD') {
			t.Errorf("pad %d: a character was split", pad)
		}
	}
}

func TestPreviousCharBoundary(t *testing.T) {
	s := "aé" // a, 0xC3, 0xA9
	for limit, want := range map[int]int{0: 0, 1: 1, 2: 1, 3: 3, 10: 3} {
		if got := textcut.PrefixEnd(s, limit); got != want {
			t.Errorf("textcut.PrefixEnd(%q, %d) = %d, want %d", s, limit, got, want)
		}
	}
}

func TestStorageSize(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "a"), "12345")
	writeFile(t, filepath.Join(root, "d", "b"), "123")
	writeFile(t, filepath.Join(root, ".git", "objects"), "1234567890")
	if err := os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "l")); err != nil {
		t.Fatal(err)
	}
	n, err := memdir.Size(root)
	if err != nil || n != 8 {
		t.Errorf("StorageSize = %d, %v; want 8", n, err)
	}
}

func TestRenderDiffFileSummarisesHugeFiles(t *testing.T) {
	big := []byte(strings.Repeat("line\n", 300_000))
	got := renderDiffFile([]Change{{'A', "extensions/x/resources/dump.md"}}, nil,
		[]BaselineFile{{Path: "extensions/x/resources/dump.md", Mode: modeRegular, Content: big}})
	if !strings.Contains(got, "@@ large file: 0 bytes before, 1500000 bytes after; contents not shown @@") || len(got) > 2000 {
		t.Errorf("huge file not summarised:\n%.500s", got)
	}
}

// memoryLike is a MEMORY.md-shaped text of n lines; seed > 0 changes
// every 97th line, as a consolidation that edits a few bullets does.
func memoryLike(n, seed int) string {
	var b strings.Builder
	for i := range n {
		switch {
		case i%40 == 0:
			fmt.Fprintf(&b, "\n## Task group %d\n\n", i/40)
		case seed > 0 && i%97 == seed%97:
			fmt.Fprintf(&b, "- changed item %d in version %d: run `go test ./...` before committing\n", i, seed)
		default:
			fmt.Fprintf(&b, "- item %d: the deploy uses `make release`; keep the changelog current\n", i)
		}
	}
	return b.String()
}

// BenchmarkUnifiedHunks times the workspace diff of one file: a few
// edited bullets in a 2,000-line MEMORY.md, and a 3,000-line file whose
// every line changed (the case the Myers diff it replaced had to cap).
// docs/benchmarks.md has the figures.
func BenchmarkUnifiedHunks(b *testing.B) {
	b.Run("edits", func(b *testing.B) {
		old, cur := memoryLike(2000, 0), memoryLike(2000, 5)
		for b.Loop() {
			if unifiedHunks(old, cur) == "" {
				b.Fatal("no diff")
			}
		}
	})
	b.Run("rewrite", func(b *testing.B) {
		var o, n strings.Builder
		for i := range 3000 {
			fmt.Fprintf(&o, "old line %d\n", i)
			fmt.Fprintf(&n, "new line %d\n", i)
		}
		for b.Loop() {
			unifiedHunks(o.String(), n.String())
		}
	})
}
