package project

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
// checkouts both called "workspace"): picking one silently would put
// notes, summaries and searches on the wrong project.
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

// Resolution is a project argument resolved.
type Resolution struct {
	// Identity is the project: the folder's, the known project a key or
	// name names, or the argument itself (printable) when nothing knows it.
	Identity Identity
	// Entry is the project's entry in the memory folder's index, when it
	// has one.
	Entry IndexEntry
	// Known: memory knows the project (the index or the known list has
	// it).
	Known bool
	// Folder: the argument was a folder.
	Folder bool
}

// Resolve is the one reading of a project argument (memctl's --project, a
// note's project, an MCP tool's project) against the projects memory
// knows: those of the memory folder's index ix (nil for none) and known
// (the store's, and whatever else the caller counts as known). An
// absolute folder is the project whose identity it has (Index.Locate: the
// folders the index recorded, else the resolver); anything else is a key
// or a display name of a known project (Match), and a name several
// projects share is an *AmbiguousError listing their keys. A key or a
// name that nothing knows comes back as given, Known false: the caller
// decides whether that is an error and says so in its own words. A
// command line's relative folder is made absolute first (FolderArg).
func Resolve(arg string, ix *Index, known []Known, overrides []Override) (Resolution, error) {
	return ResolveWith(nil, arg, ix, known, overrides)
}

// ResolveWith is Resolve reading a folder with the caller's git-free
// resolver, NewResolver(overrides, WithoutGit()) (nil: a new one), so a
// folder the caller has already resolved with it is not read again.
func ResolveWith(fast *Resolver, arg string, ix *Index, known []Known, overrides []Override) (Resolution, error) {
	arg = strings.TrimSpace(arg)
	if isAbs(arg) {
		if fast == nil {
			fast = NewResolver(overrides, WithoutGit())
		}
		id, e, found := ix.locate(fast, arg, overrides)
		if !found {
			found = len(Named(id.Key, known)) > 0
		}
		return Resolution{Identity: id, Entry: e, Known: found, Folder: true}, nil
	}
	k, found, err := Match(arg, ix.Known(), known)
	if err != nil {
		return Resolution{}, err
	}
	if !found {
		if e, ok := ix.joinedFolder(arg); ok {
			return Resolution{Identity: Identity{Key: e.Key, Name: e.Name, Source: SourceConfig}, Entry: e, Known: true}, nil
		}
		return Resolution{Identity: Printable(Identity{Key: arg, Name: arg, Source: SourceConfig})}, nil
	}
	e, inIndex := ix.ByKey(k.Key)
	if inIndex {
		k.Name = e.Name
	}
	return Resolution{Identity: Identity{Key: k.Key, Name: k.Name, Source: SourceConfig}, Entry: e, Known: true}, nil
}

// joinedFolder is the project a folder's path key, no longer a project of
// its own, names now: the one project of the index whose sessions ran in
// that folder (a folder whose sessions joined the repository they recorded
// there, FolderKeys). A key written before that, in a note or a script,
// keeps naming the same memory.
func (ix *Index) joinedFolder(key string) (IndexEntry, bool) {
	dir, isPath := strings.CutPrefix(key, prefixPath)
	if !isPath || ix == nil {
		return IndexEntry{}, false
	}
	var found []IndexEntry
	for _, e := range ix.Projects {
		if slices.Contains(e.Roots, dir) {
			found = append(found, e)
		}
	}
	if len(found) != 1 {
		return IndexEntry{}, false
	}
	return found[0], true
}
