package project

import "strings"

// FolderKeys is what the sessions recorded in each working folder say of
// its repository: the keys other than a path (a remote, a root commit, a
// [[projects]] entry) that sessions run in the folder, or in a checkout
// whose top it is, were given.
//
// A repository's first sessions often predate its remote: a transcript
// records the remote of the folder it ran in, so they recorded none, and
// once the folder has left this machine (another machine's transcripts, a
// deleted checkout) nothing but its path keys them. Its later sessions
// recorded the remote. The folder is the same, so the sessions are one
// project: a path-keyed session whose folder is gone belongs to the one
// repository key learnt for that folder (Of). Only the same folder counts,
// never a folder above or below it, and two repository keys learnt for one
// folder (another repository cloned into it later) leave its path-keyed
// sessions where they are, since which one they belong to is not known.
type FolderKeys map[string]map[string]Identity

// Learn records that a session run in cwd was given id. A path key says
// nothing of a repository and is not recorded.
func (f FolderKeys) Learn(cwd string, id Identity) {
	if id.Key == "" || IsPathKey(id.Key) {
		return
	}
	for _, dir := range []string{cwd, id.Root} {
		if dir == "" {
			continue
		}
		if f[dir] == nil {
			f[dir] = map[string]Identity{}
		}
		if _, ok := f[dir][id.Key]; !ok {
			f[dir][id.Key] = Identity{Key: id.Key, Name: id.Name, Source: SourceRecorded}
		}
	}
}

// Of returns the repository a path-keyed session belongs to: the one
// repository key learnt for the path key's folder. ok is false when none
// or several were learnt there, or when key is no path key.
func (f FolderKeys) Of(key string) (id Identity, ok bool) {
	dir, isPath := strings.CutPrefix(key, prefixPath)
	if !isPath || len(f[dir]) != 1 {
		return Identity{}, false
	}
	for _, only := range f[dir] {
		return only, true
	}
	return Identity{}, false
}
