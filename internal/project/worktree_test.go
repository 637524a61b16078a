package project

import (
	"os"
	"path/filepath"
	"testing"
)

// Worktrees of one repository are one project whatever folder
// they live in, and a new worktree finds the memory its repository's
// other checkouts left (summary's Locate, which asks git only when it
// must), never "another project's".
func TestWorktreesAreOneProject(t *testing.T) {
	tmp := t.TempDir()
	// A repository without a remote and a worktree of it far away.
	app := filepath.Join(tmp, "src", "app")
	newRepo(t, app, "")
	wt := filepath.Join(tmp, "tmp", "app-fix")
	git(t, app, "worktree", "add", "-q", "-b", "fix", wt)
	root := git(t, app, "rev-list", "--max-parents=0", "HEAD")

	// The bare layout: the git folder is proj/.bare, every branch a
	// worktree beside it (proj/main, proj/feature).
	proj := filepath.Join(tmp, "src", "proj")
	seed := filepath.Join(tmp, "seed")
	newRepo(t, seed, "")
	git(t, tmp, "clone", "-q", "--bare", seed, filepath.Join(proj, ".bare"))
	git(t, filepath.Join(proj, ".bare"), "remote", "remove", "origin")
	if err := os.WriteFile(filepath.Join(proj, ".git"), []byte("gitdir: ./.bare\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mainWT, featWT := filepath.Join(proj, "main"), filepath.Join(tmp, "elsewhere", "proj-feature")
	git(t, proj, "worktree", "add", "-q", mainWT, "main")
	git(t, proj, "worktree", "add", "-q", "-b", "feature", featWT)

	for _, opts := range [][]Option{nil, {WithoutGit()}} {
		r := NewResolver(nil, opts...)
		if a, w := r.Resolve(app, ""), r.Resolve(wt, ""); a.Key != w.Key || w.Name != "app" || w.Root != wt {
			t.Errorf("git=%v: worktree %+v, checkout %+v: want one key, the name app, the worktree's root", opts == nil, w, a)
		}
		m, f := r.Resolve(mainWT, ""), r.Resolve(featWT, "")
		if m.Key != f.Key || m.Name != "proj" || f.Name != "proj" || f.Root != featWT {
			t.Errorf("git=%v: bare layout: %+v and %+v, want one key named proj", opts == nil, m, f)
		}
	}

	// Memory consolidated from the checkout, with git (a root-commit key)
	// or without (a path key): a new worktree finds it.
	for _, key := range []string{"git-root:" + root, "path:" + app} {
		ix := &Index{Version: IndexVersion, Projects: []IndexEntry{
			{Key: key, Name: "app", Dir: "app-00000000", Roots: []string{app}, Sessions: 2},
			{Key: "path:" + tmp, Name: "tmp", Dir: "tmp-00000001", Roots: []string{tmp}, Sessions: 1},
		}}
		if _, e, found := ix.Locate(wt, nil); !found || e.Key != key {
			t.Errorf("Locate(new worktree) with the checkout's memory under %s = %+v, %v", key, e, found)
		}
	}
	// The bare layout's memory, consolidated from one worktree without
	// git: the other worktree finds it.
	pathKey := NewResolver(nil, WithoutGit()).Resolve(mainWT, "").Key
	ix := &Index{Version: IndexVersion, Projects: []IndexEntry{{Key: pathKey, Name: "proj", Dir: "proj-00000000", Roots: []string{mainWT}}}}
	if _, e, found := ix.Locate(featWT, nil); !found || e.Key != pathKey {
		t.Errorf("Locate(another worktree of the bare layout) = %+v, %v; want %s", e, found, pathKey)
	}
}
