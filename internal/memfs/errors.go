// Package memfs exposes a memory folder as the tools an agent uses to look
// into it: list, read and a grep-like search over its files, and adding an
// ad hoc note. The rules follow Codex's memory tools (codex-memories.md
// 8.4 and 10): every path is relative to the root and must stay inside it,
// hidden names are invisible, symlinks are never followed, and the paths
// returned use "/" whatever the OS.
package memfs

import (
	"errors"
	"fmt"
)

// Sentinels for the errors a caller can fix by changing its request; use
// errors.Is. Any other error from this package is an I/O failure.
var (
	// ErrInvalidPath: the path leaves the root, is or goes through a
	// symlink, or goes through a file (List, Read, Search, AddNote).
	ErrInvalidPath = errors.New("invalid path")
	// ErrNotFound: nothing at the path, or a hidden name (List, Read, Search).
	ErrNotFound = errors.New("not found")
	// ErrNotFile: Read was given a directory or a special file.
	ErrNotFile = errors.New("not a file")
	// ErrNotText: Read was given a file that is not UTF-8 text.
	ErrNotText = errors.New("not UTF-8 text")
	// ErrInvalidCursor: the cursor is not a count or is past the end (List, Search).
	ErrInvalidCursor = errors.New("invalid cursor")
	// ErrInvalidLineOffset: Read's line offset is below 1.
	ErrInvalidLineOffset = errors.New("line_offset must be a 1-indexed line number")
	// ErrInvalidMaxLines: Read's max_lines is negative.
	ErrInvalidMaxLines = errors.New("max_lines must be a positive integer")
	// ErrLineOffsetExceedsFileLength: Read's line offset is past the last line.
	ErrLineOffsetExceedsFileLength = errors.New("line_offset exceeds file length")
	// ErrEmptyQuery: Search got no query, a blank one, or one that is empty
	// once normalized.
	ErrEmptyQuery = errors.New("queries must be non-empty strings")
	// ErrTooManyQueries: Search got more than MaxQueries queries, or more
	// than MaxQueryBytes bytes of them.
	// (The text spells the bounds out: no fmt.Errorf at start-up.)
	ErrTooManyQueries = errors.New("queries: at most 64, of at most 4096 bytes in all")
	// ErrInvalidMatchWindow: all_within_lines with line_count below 1.
	ErrInvalidMatchWindow = errors.New("all_within_lines.line_count must be a positive integer")
	// ErrInvalidMatchMode: an unknown match_mode type.
	ErrInvalidMatchMode = errors.New("match_mode.type must be any, all_on_same_line or all_within_lines")
	// ErrInvalidFilename: a note filename or slug breaks the naming rules.
	ErrInvalidFilename = errors.New("invalid note filename")
	// ErrEmptyNote: AddNote was given a blank note.
	ErrEmptyNote = errors.New("note must not be empty")
	// ErrAlreadyExists: a note with that filename exists.
	ErrAlreadyExists = errors.New("already exists")
	// ErrInstructionShaped: AddNote was given a line that reads like an
	// order to an agent (internal/quarantine's strong rules): injected
	// text or a command that sends secrets away.
	ErrInstructionShaped = errors.New("a note records facts, not orders to an agent")
)

// requestErrors lists the sentinels IsRequestError recognises.
var requestErrors = []error{
	ErrInvalidPath, ErrNotFound, ErrNotFile, ErrNotText, ErrInvalidCursor,
	ErrInvalidLineOffset, ErrInvalidMaxLines, ErrLineOffsetExceedsFileLength,
	ErrEmptyQuery, ErrTooManyQueries, ErrInvalidMatchWindow, ErrInvalidMatchMode,
	ErrInvalidFilename, ErrEmptyNote, ErrAlreadyExists, ErrInstructionShaped,
}

// IsRequestError reports whether err is one of this package's request
// errors (as opposed to an I/O failure). Tool servers return those to the
// model as tool errors.
func IsRequestError(err error) bool {
	for _, s := range requestErrors {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// Error is a request error about one path, cursor or filename.
type Error struct {
	Kind    error  // one of the sentinels above
	Subject string // "path", "cursor", "filename" or "note"
	Value   string
	Reason  string
}

// Error formats like Codex: "path 'x' must not be a symlink".
func (e *Error) Error() string {
	return fmt.Sprintf("%s '%s' %s", e.Subject, e.Value, e.Reason)
}

// Unwrap returns the sentinel, for errors.Is.
func (e *Error) Unwrap() error { return e.Kind }

func invalidPath(path, reason string) error {
	return &Error{Kind: ErrInvalidPath, Subject: "path", Value: path, Reason: reason}
}

func notFound(path string) error {
	return &Error{Kind: ErrNotFound, Subject: "path", Value: path, Reason: "was not found"}
}

func notFile(path string) error {
	return &Error{Kind: ErrNotFile, Subject: "path", Value: path, Reason: "is not a file"}
}

func invalidCursor(cursor, reason string) error {
	return &Error{Kind: ErrInvalidCursor, Subject: "cursor", Value: cursor, Reason: reason}
}

func invalidFilename(name, reason string) error {
	return &Error{Kind: ErrInvalidFilename, Subject: "filename", Value: name, Reason: reason}
}
