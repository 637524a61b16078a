package project

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A project argument (memctl's --project, a note's project, an MCP tool's
// project) is a folder, a project key or a display name. This file is
// the one place that tells them apart and resolves them, so every caller
// refuses an ambiguous name the same way.

// FolderArg tells a folder from a project key or name, as written on a
// command line, and returns the folder made absolute. Keys have a scheme
// ("git:", "path:") and names have no leading ".", "/" or "~". A relative
// folder written without "./" (src/app, as a shell completes it) is a
// folder too when it is there and is no key: the flag says PATH.
func FolderArg(arg string) (string, bool) {
	arg = strings.TrimSpace(arg)
	if arg == "" || !looksLikeFolder(arg) {
		return "", false
	}
	abs, err := filepath.Abs(arg)
	if err != nil {
		return arg, true
	}
	return abs, true
}

func looksLikeFolder(s string) bool {
	if filepath.IsAbs(s) || s == "." || s == ".." || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") {
		return true
	}
	if strings.Contains(s, ":") {
		return false
	}
	fi, err := os.Stat(s)
	return err == nil && fi.IsDir()
}

// AmbiguousError refuses a display name several projects share (two
// checkouts both called "workspace"): picking one silently put notes,
// summaries and searches on the wrong project (issue 26).
type AmbiguousError struct {
	Name string
	Keys []string
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%d projects are named %q", len(e.Keys), e.Name)
}

// Hint is what to give instead: one of the keys.
func (e *AmbiguousError) Hint() string {
	return "give one of their keys: " + strings.Join(e.Keys, ", ")
}

// Match resolves a project key or display name against the known
// projects of every source given (see Named): the one project it names,
// found false when none, or an *AmbiguousError when several share the
// name.
func Match(arg string, sources ...[]Known) (k Known, found bool, err error) {
	switch named := Named(arg, sources...); len(named) {
	case 0:
		return Known{}, false, nil
	case 1:
		return named[0], true, nil
	default:
		keys := make([]string, len(named))
		for i, n := range named {
			keys[i] = n.Key
		}
		return Known{}, false, &AmbiguousError{Name: arg, Keys: keys}
	}
}

// LocateArg resolves a project argument against the index: an absolute
// folder as Locate does, anything else as a key or display name (Match).
// The identity is returned even when the index holds no memory of it
// (found is then false); an ambiguous name is an *AmbiguousError.
func (ix *Index) LocateArg(arg string, overrides []Override) (id Identity, entry IndexEntry, found bool, err error) {
	if isAbs(arg) {
		id, entry, found = ix.Locate(arg, overrides)
		return id, entry, found, nil
	}
	k, ok, err := Match(arg, ix.Known())
	if err != nil {
		return Identity{}, IndexEntry{}, false, err
	}
	if !ok {
		return Printable(Identity{Key: arg, Name: arg, Source: SourceConfig}), IndexEntry{}, false, nil
	}
	e, _ := ix.ByKey(k.Key)
	return Identity{Key: e.Key, Name: e.Name, Source: SourceConfig}, e, true, nil
}
