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

func TestLocateArgRefusesASharedName(t *testing.T) {
	ix := twoWorkspaces()
	if _, _, found, err := ix.LocateArg("workspace", nil); found || err == nil {
		t.Errorf("a shared name: found %v, err %v", found, err)
	}
	id, e, found, err := ix.LocateArg("api", nil)
	if err != nil || !found || e.Dir != "api" || id.Key != e.Key {
		t.Errorf("a name of one project: %+v %+v %v %v", id, e, found, err)
	}
	id, _, found, err = ix.LocateArg("git:example.com/new/one", nil)
	if err != nil || found || id.Key != "git:example.com/new/one" {
		t.Errorf("a key not in memory: %+v %v %v", id, found, err)
	}
	dir := t.TempDir()
	if id, _, found, err := ix.LocateArg(dir, nil); err != nil || found || id.Root != dir {
		t.Errorf("a folder: %+v %v %v", id, found, err)
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
