package memfs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadRejectsDirectoryAndReturnsFileContent(t *testing.T) {
	root := tree(t, map[string]string{"MEMORY.md": "remember this", "skills/": ""})
	res, err := Read(root, "MEMORY.md", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res != (ReadResult{Path: "MEMORY.md", StartLineNumber: 1, Content: "remember this"}) {
		t.Fatalf("got %+v", res)
	}
	for _, p := range []string{".", "", "skills"} {
		_, err = Read(root, p, 1, 0)
		wantErr(t, err, ErrNotFile)
	}
}

func TestReadLineWindows(t *testing.T) {
	root := tree(t, map[string]string{"MEMORY.md": "alpha\nbeta\ngamma\n", "nofinal.md": "a\nb"})
	tests := []struct {
		name             string
		path             string
		offset, maxLines int
		content          string
		truncated        bool
	}{
		{"line offset", "MEMORY.md", 2, 0, "beta\ngamma\n", false},
		{"max lines", "MEMORY.md", 2, 1, "beta\n", true},
		{"max lines to the end", "MEMORY.md", 2, 2, "beta\ngamma\n", false},
		{"more lines than exist", "MEMORY.md", 1, 10, "alpha\nbeta\ngamma\n", false},
		{"just past the final newline is empty", "MEMORY.md", 4, 0, "", false},
		{"no final newline", "nofinal.md", 2, 1, "b", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Read(root, tt.path, tt.offset, tt.maxLines)
			if err != nil {
				t.Fatal(err)
			}
			if res.Content != tt.content || res.Truncated != tt.truncated || res.StartLineNumber != tt.offset {
				t.Fatalf("got %+v, want content %q truncated %v", res, tt.content, tt.truncated)
			}
		})
	}
}

func TestReadRejectsInvalidLineRequests(t *testing.T) {
	root := tree(t, map[string]string{"MEMORY.md": "only\n"})
	_, err := Read(root, "MEMORY.md", 0, 0)
	wantErr(t, err, ErrInvalidLineOffset)
	_, err = Read(root, "MEMORY.md", 1, -1)
	wantErr(t, err, ErrInvalidMaxLines)
	_, err = Read(root, "MEMORY.md", 3, 0)
	wantErr(t, err, ErrLineOffsetExceedsFileLength)
}

func TestReadRejectsSymlinkedFiles(t *testing.T) {
	root := tree(t, map[string]string{"MEMORY.md": "m"})
	outside := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(outside, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	symlink(t, outside, filepath.Join(root, "linked.md"))
	symlink(t, "MEMORY.md", filepath.Join(root, "inside.md"))
	for _, p := range []string{"linked.md", "inside.md"} {
		_, err := Read(root, p, 1, 0)
		wantErr(t, err, ErrInvalidPath)
	}
}

func TestReadPathErrors(t *testing.T) {
	root := tree(t, map[string]string{".hidden.md": "h", "MEMORY.md": "m"})
	_, err := Read(root, "../secret", 1, 0)
	wantErr(t, err, ErrInvalidPath)
	_, err = Read(root, ".hidden.md", 1, 0)
	wantErr(t, err, ErrNotFound)
	_, err = Read(root, "nope.md", 1, 0)
	wantErr(t, err, ErrNotFound)
	_, err = Read(root, "MEMORY.md/x", 1, 0)
	wantErr(t, err, ErrInvalidPath)
}

func TestReadNotText(t *testing.T) {
	root := tree(t, map[string]string{"bin.dat": "\xff\xfe\x00"})
	_, err := Read(root, "bin.dat", 1, 0)
	wantErr(t, err, ErrNotText)
}

func TestReadCapsTokens(t *testing.T) {
	big := strings.Repeat("0123456789abcdef\n", 6000) // 102,000 bytes > 80,000
	root := tree(t, map[string]string{"big.md": big})
	res, err := Read(root, "big.md", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || !strings.Contains(res.Content, "…5500 tokens truncated…") || len(res.Content) > 80100 {
		t.Fatalf("truncated=%v, %d bytes", res.Truncated, len(res.Content))
	}
	if !strings.HasPrefix(res.Content, "0123456789abcdef\n") || !strings.HasSuffix(res.Content, "abcdef\n") {
		t.Fatalf("head or tail lost")
	}
}
