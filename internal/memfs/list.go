package memfs

import (
	"fmt"
	"os"
	"strconv"
)

// Limits of List.
const (
	DefaultListResults = 2000
	MaxListResults     = 2000
)

// EntryType tells files from directories in a listing.
type EntryType string

// Entry types.
const (
	EntryFile      EntryType = "file"
	EntryDirectory EntryType = "directory"
)

// ListEntry is one file or directory, by its path relative to the root.
type ListEntry struct {
	Path      string    `json:"path"`
	EntryType EntryType `json:"entry_type"`
	// Scope is the label a Place gave the entry, if any.
	Scope string `json:"scope,omitempty"`
}

// ListResult is one page of a listing.
type ListResult struct {
	Path       string      `json:"path,omitempty"` // the path as requested
	Entries    []ListEntry `json:"entries"`
	NextCursor string      `json:"next_cursor,omitempty"`
	Truncated  bool        `json:"truncated"`
}

// List returns the immediate children of path (the root when empty),
// sorted by name, without hidden names, symlinks or special files; for a
// file it returns that file alone. cursor is the offset returned as
// NextCursor by the previous page; maxResults defaults to and is capped at
// 2,000.
func List(root, path, cursor string, maxResults int) (ListResult, error) {
	return ListPlaced(root, path, cursor, maxResults, nil)
}

// ListPlaced is List with the entries filtered and labelled by place (in
// name order still: a listing is for finding one's way).
func ListPlaced(root, path, cursor string, maxResults int, place Place) (ListResult, error) {
	maxResults = clamp(maxResults, DefaultListResults, 1, MaxListResults)
	abs, rel, err := resolve(root, path)
	if err != nil {
		return ListResult{}, err
	}
	start, err := parseCursor(cursor)
	if err != nil {
		return ListResult{}, err
	}
	info, err := lstatStart(abs, rel, path)
	if err != nil {
		return ListResult{}, err
	}
	entries := []ListEntry{}
	switch {
	case info.Mode().IsRegular():
		entries = append(entries, ListEntry{Path: rel, EntryType: EntryFile})
	case info.IsDir():
		dirents, err := os.ReadDir(abs) // sorted by name
		if err != nil {
			return ListResult{}, fmt.Errorf("memories: %w", err)
		}
		for _, d := range dirents {
			if d.Name()[0] == '.' {
				continue
			}
			switch t := d.Type(); {
			case t.IsDir():
				entries = append(entries, ListEntry{Path: joinRel(rel, d.Name()), EntryType: EntryDirectory})
			case t.IsRegular():
				entries = append(entries, ListEntry{Path: joinRel(rel, d.Name()), EntryType: EntryFile})
			default: // symlinks, sockets, devices: never shown
			}
		}
	}
	if place != nil {
		kept := entries[:0]
		for _, e := range entries {
			if _, label, keep := place(e.Path); keep {
				e.Scope = label
				kept = append(kept, e)
			}
		}
		entries = kept
	}
	return page(ListResult{Path: path}, entries, start, maxResults)
}

func page(res ListResult, all []ListEntry, start, limit int) (ListResult, error) {
	if start > len(all) {
		return ListResult{}, invalidCursor(strconv.Itoa(start), "exceeds result count")
	}
	end := min(start+limit, len(all))
	res.Entries = all[start:end]
	if end < len(all) {
		res.NextCursor = strconv.Itoa(end)
		res.Truncated = true
	}
	return res, nil
}
