package memfs

import (
	"fmt"
	"os"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/textcut"
)

// DefaultReadTokens caps what one Read returns, in approximate tokens.
const DefaultReadTokens = 20000

// ReadResult is a window of one file.
type ReadResult struct {
	Path            string `json:"path"`
	StartLineNumber int    `json:"start_line_number"`
	Content         string `json:"content"`
	// Truncated is set when the file goes on after the window or the
	// window was cut to the token cap.
	Truncated bool `json:"truncated"`
}

// Read returns the regular file at path from the start of line lineOffset
// (1-based) through maxLines lines, newlines included (the rest of the file
// when maxLines is 0), cut to DefaultReadTokens tokens. An offset just past
// a final newline yields empty content; anything further is an error.
func Read(root, path string, lineOffset, maxLines int) (ReadResult, error) {
	if lineOffset < 1 {
		return ReadResult{}, ErrInvalidLineOffset
	}
	if maxLines < 0 {
		return ReadResult{}, ErrInvalidMaxLines
	}
	abs, rel, err := resolve(root, path)
	if err != nil {
		return ReadResult{}, err
	}
	info, err := lstatStart(abs, rel, path)
	if err != nil {
		return ReadResult{}, err
	}
	if !info.Mode().IsRegular() {
		return ReadResult{}, notFile(displayRequested(path))
	}
	b, err := os.ReadFile(abs)
	if err != nil {
		return ReadResult{}, fmt.Errorf("memories: %w", err)
	}
	if !utf8.Valid(b) {
		return ReadResult{}, &Error{Kind: ErrNotText, Subject: "path", Value: path, Reason: "is not UTF-8 text"}
	}
	content := string(b)
	start, ok := lineStart(content, lineOffset)
	if !ok {
		return ReadResult{}, ErrLineOffsetExceedsFileLength
	}
	end := lineEnd(content, start, maxLines)
	window := content[start:end]
	cut := textcut.MiddleTokens(window, DefaultReadTokens)
	truncated := cut != window
	return ReadResult{
		Path:            rel,
		StartLineNumber: lineOffset,
		Content:         cut,
		Truncated:       truncated || end < len(content),
	}, nil
}

// lineStart is the byte offset where line n (1-based) begins.
func lineStart(s string, n int) (int, bool) {
	if n == 1 {
		return 0, true
	}
	line := 1
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			line++
			if line == n {
				return i + 1, true
			}
		}
	}
	return 0, false
}

// lineEnd is the byte offset just after maxLines lines starting at start
// (the end of s when maxLines is 0 or s has fewer lines).
func lineEnd(s string, start, maxLines int) int {
	if maxLines == 0 {
		return len(s)
	}
	seen := 1
	for i := start; i < len(s); i++ {
		if s[i] == '\n' {
			if seen == maxLines {
				return i + 1
			}
			seen++
		}
	}
	return len(s)
}
