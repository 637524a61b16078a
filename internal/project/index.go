package project

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/memctl/memctl/internal/plainfile"
)

// IndexVersion is the format version of the memory folder's project index.
const IndexVersion = 1

// Index lists the projects of a memory folder's project layer, as the
// last consolidation wrote it (projects/index.json). `memctl summary`
// reads it on every agent turn to find the current project's summary
// without opening the database.
type Index struct {
	Version  int          `json:"version"`
	Projects []IndexEntry `json:"projects"`
	// Empty is true when the consolidation that wrote the index had
	// nothing to consolidate: no current memory and no note. The read
	// path then injects nothing (instructions about an empty folder cost
	// a session some 1,400 tokens for nothing). An index written
	// before the field existed reads as not empty.
	Empty bool `json:"empty,omitempty"`
}

// HasMemory reports whether the index says its folder holds consolidated
// memory; a nil index (no project layer yet) says nothing either way and
// counts as holding some.
func (ix *Index) HasMemory() bool { return ix == nil || !ix.Empty }

// IndexEntry is one project of the index.
type IndexEntry struct {
	Key  string `json:"key"`
	Name string `json:"name"`
	// Dir is the project's folder under projects/ (DirName).
	Dir string `json:"dir"`
	// Roots are the checkout folders its sessions ran in.
	Roots    []string `json:"roots"`
	Sessions int      `json:"sessions"`
	// Latest is the day of its newest session (YYYY-MM-DD).
	Latest string `json:"latest"`
	// Files are its rollout summaries, relative to the memory folder.
	Files []string `json:"files"`
}

// Owner returns the entry a memory folder file belongs to: a project's
// folder under projects/, or one of its rollout summaries. Files of no
// single project (MEMORY.md, the personal layer, skills, notes) have none.
func (ix *Index) Owner(path string) (IndexEntry, bool) {
	if ix == nil {
		return IndexEntry{}, false
	}
	for _, e := range ix.Projects {
		if strings.HasPrefix(path, "projects/"+e.Dir+"/") || path == "projects/"+e.Dir {
			return e, true
		}
		for _, f := range e.Files {
			if f == path {
				return e, true
			}
		}
	}
	return IndexEntry{}, false
}

// LoadIndex reads an index file. A missing file is (nil, nil): a folder
// consolidated before projects existed has none.
func LoadIndex(path string) (*Index, error) {
	b, err := plainfile.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	ix, ok := readIndex(b)
	if !ok {
		ix = Index{}
		if err := json.Unmarshal(b, &ix); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if ix.Version != IndexVersion {
		return nil, fmt.Errorf("%s: index version %d, this memctl reads %d", path, ix.Version, IndexVersion)
	}
	return &ix, nil
}

// ByKey returns the entry of a key.
func (ix *Index) ByKey(key string) (IndexEntry, bool) {
	if ix == nil || key == "" {
		return IndexEntry{}, false
	}
	for _, e := range ix.Projects {
		if e.Key == key {
			return e, true
		}
	}
	return IndexEntry{}, false
}

// byRoot returns the entry whose sessions ran in the checkout (or plain
// folder) root. Only the folder itself counts, not a folder above it: the
// memory of sessions started in the home folder belongs to the home
// folder, not to every repository or folder below it (the scan keys those
// apart too).
func (ix *Index) byRoot(root string) (IndexEntry, bool) {
	if ix == nil {
		return IndexEntry{}, false
	}
	for _, e := range ix.Projects {
		for _, r := range e.Roots {
			if r == root {
				return e, true
			}
		}
	}
	return IndexEntry{}, false
}

// Locate finds the project of a working directory (absolute; a project
// argument that may be a key or a name goes through LocateArg) without
// the git binary where it can:
// a remote or a [[projects]] entry names the key at once; a repository
// without a remote or a plain folder is matched against the roots the
// index recorded; only a repository met at a new place (moved, cloned)
// asks git for its root commit. The identity is returned even when the
// index holds no memory of it (found is then false).
func (ix *Index) Locate(cwd string, overrides []Override) (id Identity, entry IndexEntry, found bool) {
	return ix.locate(NewResolver(overrides, WithoutGit()), cwd, overrides)
}

// locate is Locate with the git-free resolver (WithoutGit, the same
// overrides) that reads the folder.
func (ix *Index) locate(fast *Resolver, cwd string, overrides []Override) (id Identity, entry IndexEntry, found bool) {
	id = fast.Resolve(cwd, "")
	if e, ok := ix.ByKey(id.Key); ok {
		return id, e, true
	}
	if id.Source != SourcePath {
		// A repository that got a remote since its memory was last
		// consolidated: its entry is still under the root-commit or path
		// key the next scan upgrades (Resolver.Upgrade asks git whether
		// the history is the recorded one).
		if e, ok := ix.byRoot(id.Root); ok && id.Source == SourceRemote {
			if up, ok := NewResolver(overrides).Upgrade(cwd, "", e.Key); ok && up.Key == id.Key {
				return id, e, true
			}
		}
		// The same, moved before it got its remote and with no session in
		// its new folder yet: no recorded folder is this one, but its
		// history starts at a recorded root commit. git is asked only
		// when a repository keyed so has left every folder recorded.
		if id.Source == SourceRemote && ix.hasMovedRootKeys() {
			if sha := gitRootCommit(id.Root); sha != "" {
				if e, ok := ix.ByKey(prefixRoot + sha); ok {
					return id, e, true
				}
			}
		}
		return id, IndexEntry{}, false
	}
	if ix != nil {
		// A folder no longer on this machine is matched by its path, as
		// the index recorded the folders its sessions ran in.
		root := id.Root
		if root == "" {
			root = strings.TrimPrefix(id.Key, prefixPath)
		}
		if e, ok := ix.byRoot(root); ok {
			return Identity{Key: e.Key, Name: e.Name, Root: id.Root, Source: id.Source}, e, true
		}
	}
	full := NewResolver(overrides).Resolve(cwd, "")
	e, ok := ix.ByKey(full.Key)
	return full, e, ok
}

// hasMovedRootKeys reports whether a project of the index keyed by its
// root commit is in none of the folders recorded for it.
func (ix *Index) hasMovedRootKeys() bool {
	if ix == nil {
		return false
	}
	for _, e := range ix.Projects {
		if !IsRootKey(e.Key) {
			continue
		}
		gone := true
		for _, r := range e.Roots {
			if _, err := os.Stat(r); err == nil {
				gone = false
				break
			}
		}
		if gone {
			return true
		}
	}
	return false
}

func isAbs(p string) bool {
	return len(p) > 0 && (p[0] == '/' || len(p) > 2 && p[1] == ':' && (p[2] == '\\' || p[2] == '/'))
}

// Where a piece of memory sits relative to the project a reader works in.
const (
	ScopeProject = "project" // learnt in this project
	ScopeShared  = "shared"  // the personal layer and the folder-wide files
	ScopeOther   = "other"   // learnt in another project
)

// ScopeRank orders scopes for a reader: the project's own, then shared,
// then other projects'.
func ScopeRank(scope string) int {
	switch scope {
	case ScopeProject:
		return 0
	case ScopeShared, "":
		return 1
	default:
		return 2
	}
}

// ScopeOf places a search hit or a file for a reader in project key: by
// the project of its thread (ownerKey, for stored raw memories) or, for a
// memory folder file, by the project that owns the file. It returns the
// scope and the owning project's name.
func (ix *Index) ScopeOf(key, path, ownerKey, ownerName string) (scope, project string) {
	if ownerKey != "" {
		if ownerKey == key {
			return ScopeProject, ownerName
		}
		return ScopeOther, ownerName
	}
	if e, ok := ix.Owner(path); ok {
		if e.Key == key {
			return ScopeProject, e.Name
		}
		return ScopeOther, e.Name
	}
	return ScopeShared, ""
}
