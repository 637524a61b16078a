package project

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// twoWorkspaces is an index with two checkouts both called "workspace".
func twoWorkspaces() *Index {
	return &Index{Version: IndexVersion, Projects: []IndexEntry{
		{Key: "git:example.com/a/workspace", Name: "workspace", Dir: "workspace-a"},
		{Key: "git:example.com/b/workspace", Name: "workspace", Dir: "workspace-b"},
		{Key: "git:example.com/acme/api", Name: "api", Dir: "api"},
	}}
}

func TestMatchRefusesASharedNameListingEveryKey(t *testing.T) {
	ix := twoWorkspaces()
	k, found, err := Match("api", ix.Known())
	if err != nil || !found || k.Key != "git:example.com/acme/api" {
		t.Errorf("Match(api) = %+v %v %v", k, found, err)
	}
	if k, found, err := Match("git:example.com/b/workspace", ix.Known()); err != nil || !found || k.Name != "workspace" {
		t.Errorf("a key of a shared name = %+v %v %v", k, found, err)
	}
	if _, found, err := Match("nothing", ix.Known()); err != nil || found {
		t.Errorf("Match(nothing) = %v %v", found, err)
	}
	_, found, err = Match("workspace", ix.Known())
	var amb *AmbiguousError
	if found || !errors.As(err, &amb) {
		t.Fatalf("Match(workspace) = %v %v, want an AmbiguousError", found, err)
	}
	if want := []string{"git:example.com/a/workspace", "git:example.com/b/workspace"}; !reflect.DeepEqual(amb.Keys, want) {
		t.Errorf("keys %v, want %v", amb.Keys, want)
	}
	if got, want := err.Error()+"; "+amb.Hint(), `2 projects are named "workspace"; give one of their keys: git:example.com/a/workspace, git:example.com/b/workspace`; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
}

// TestResolveReadsEveryArgumentOneWay: a name several projects share is
// refused, a name or key of one project is that project, wherever memory
// knows it from (the index or the store's list), a key nothing knows is
// kept as given, and a folder is its own project.
func TestResolveReadsEveryArgumentOneWay(t *testing.T) {
	ix := twoWorkspaces()
	storeOnly := []Known{{Key: "git:example.com/acme/web", Name: "web"}, {Key: "git:example.com/c/workspace", Name: "workspace"}}
	if _, err := Resolve("workspace", ix, nil, nil); err == nil {
		t.Error("a shared name was not refused")
	}
	if r, err := Resolve("api", ix, storeOnly, nil); err != nil || !r.Known || r.Entry.Dir != "api" || r.Identity.Key != r.Entry.Key {
		t.Errorf("a name of one project in the index: %+v %v", r, err)
	}
	if r, err := Resolve("web", ix, storeOnly, nil); err != nil || !r.Known || r.Identity.Key != "git:example.com/acme/web" || r.Entry.Key != "" {
		t.Errorf("a name only the store knows: %+v %v", r, err)
	}
	var amb *AmbiguousError
	if _, err := Resolve("workspace", nil, storeOnly, nil); err != nil {
		t.Errorf("a name one list holds once: %v", err)
	}
	if _, err := Resolve("workspace", ix, storeOnly, nil); !errors.As(err, &amb) || len(amb.Keys) != 3 {
		t.Errorf("a name shared across the index and the store: %v", err)
	}
	if r, err := Resolve("git:example.com/new/one", ix, storeOnly, nil); err != nil || r.Known || r.Identity.Key != "git:example.com/new/one" {
		t.Errorf("a key not in memory: %+v %v", r, err)
	}
	dir := t.TempDir()
	if r, err := Resolve(dir, ix, storeOnly, nil); err != nil || r.Known || !r.Folder || r.Identity.Root != dir {
		t.Errorf("a folder: %+v %v", r, err)
	}
	own, _ := Resolve(dir, nil, nil, nil)
	if r, err := Resolve(dir, nil, []Known{{Key: own.Identity.Key, Name: "x"}}, nil); err != nil || !r.Known {
		t.Errorf("a folder whose project the store knows: %+v %v", r, err)
	}
}

func TestFolderArg(t *testing.T) {
	base := t.TempDir()
	if err := os.MkdirAll(filepath.Join(base, "src", "app"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Chdir(base)
	for _, tc := range []struct {
		arg    string
		folder string
	}{
		{".", base},
		{"./src", filepath.Join(base, "src")},
		{"src/app", filepath.Join(base, "src", "app")}, // as a shell completes it
		{base, base},
		{"workspace", ""},                // a name: no such folder here
		{"git:example.com/acme/api", ""}, // a key
		{"path:/home/u/notes", ""},       // a key, even though it holds a path
		{"  ", ""},
	} {
		got, ok := FolderArg(tc.arg)
		if ok != (tc.folder != "") || got != tc.folder {
			t.Errorf("FolderArg(%q) = %q %v, want %q", tc.arg, got, ok, tc.folder)
		}
	}
}

// ResolveWith reads a folder with the caller's resolver: one the caller
// has resolved already is not read again (summary resolves the session's
// folder for the team folder, then for the project layer).
func TestResolveWithReadsAFolderOnce(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	setRemote := func(url string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[remote \"origin\"]\n\turl = "+url+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	setRemote("git@github.com:acme/first.git")
	fast := NewResolver(nil, WithoutGit())
	if id := fast.Resolve(dir, ""); id.Key != "git:github.com/acme/first" {
		t.Fatalf("the resolver read %q", id.Key)
	}
	setRemote("git@github.com:acme/second.git")
	r, err := ResolveWith(fast, dir, nil, nil, nil)
	if err != nil || r.Identity.Key != "git:github.com/acme/first" {
		t.Errorf("ResolveWith read the folder again: %q, %v", r.Identity.Key, err)
	}
	if r, _ := Resolve(dir, nil, nil, nil); r.Identity.Key != "git:github.com/acme/second" {
		t.Errorf("Resolve, with a resolver of its own, gave %q", r.Identity.Key)
	}
}

// A folder's path key that joined the repository its sessions recorded
// there (FolderKeys) still names that memory: a note or a script that
// wrote the old key reaches the repository's project. A path key whose
// folder two projects ran in names neither.
func TestResolveFindsThePathKeyOfAJoinedFolder(t *testing.T) {
	ix := &Index{Version: IndexVersion, Projects: []IndexEntry{
		{Key: "git:host/o/repo", Name: "o/repo", Dir: "repo", Roots: []string{"/x/repo"}},
		{Key: "git:host/a/one", Name: "a/one", Dir: "one", Roots: []string{"/shared"}},
		{Key: "git:host/b/two", Name: "b/two", Dir: "two", Roots: []string{"/shared"}},
	}}
	r, err := Resolve("path:/x/repo", ix, nil, nil)
	if err != nil || !r.Known || r.Identity.Key != "git:host/o/repo" || r.Entry.Dir != "repo" {
		t.Errorf("the old key of a joined folder: %+v %v", r, err)
	}
	if r, err := Resolve("path:/shared", ix, nil, nil); err != nil || r.Known || r.Identity.Key != "path:/shared" {
		t.Errorf("a folder two projects ran in: %+v %v", r, err)
	}
	if r, err := Resolve("path:/y/repo", ix, nil, nil); err != nil || r.Known {
		t.Errorf("a folder of the same name elsewhere: %+v %v", r, err)
	}
}
