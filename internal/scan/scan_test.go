package scan

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/store"
)

func TestIncrementalScan(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.MkdirAll(src, 0o700)
	write := func(name, body string) string {
		p := filepath.Join(src, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a.jsonl", `{"type":"session","id":"a","cwd":"/w","timestamp":"2026-01-01T10:00:00Z"}
{"type":"message","role":"user","text":"use token=abcdefgh12345678 please","timestamp":"2026-01-01T10:05:00Z"}
`)
	write("broken.jsonl", "{\"type\":\"session\",\"id\":\"b\"}\n{not json\n")
	st, err := store.Open(ctx, filepath.Join(dir, "m.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	opts := Options{Sources: []sessions.Source{{Kind: sessions.KindJSONL, Path: src}}, Policy: store.UpsertPolicy{GenerateMemories: true},
		Redact: func(s string) string {
			if s == "use token=abcdefgh12345678 please" {
				return "use token=[REDACTED_SECRET] please"
			}
			return s
		}}
	res, err := Run(ctx, st, opts)
	if err != nil || res.Scanned != 2 || res.Added != 2 || len(res.Errors) != 1 || res.Errors[0].Line != 2 {
		t.Fatalf("first scan %+v %v", res, err)
	}
	th, _ := st.Thread(ctx, "a")
	if th.Preview != "use token=[REDACTED_SECRET] please" {
		t.Errorf("preview not redacted: %q", th.Preview)
	}
	if want := time.Date(2026, 1, 1, 10, 5, 0, 0, time.UTC); !th.UpdatedAt.Equal(want) {
		t.Errorf("updated at %v, want the newest timestamp inside, %v", th.UpdatedAt, want)
	}
	// Unchanged: nothing is read again.
	res, _ = Run(ctx, st, opts)
	if res.Unchanged != 2 || res.Updated != 0 {
		t.Errorf("rescan %+v", res)
	}
	// Touched but identical (a copy, a touch): still unchanged.
	later := time.Now().Add(time.Hour)
	os.Chtimes(a, later, later)
	res, _ = Run(ctx, st, opts)
	if res.Unchanged != 2 || res.Updated != 0 {
		t.Errorf("after touch %+v", res)
	}
	th2, _ := st.Thread(ctx, "a")
	if !th2.UpdatedAt.Equal(th.UpdatedAt) {
		t.Error("touching a file made the thread look new")
	}
	// Appended: read again, updated time from the new content.
	f, _ := os.OpenFile(a, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"message","role":"assistant","text":"done","timestamp":"2026-01-02T09:00:00Z"}` + "\n")
	f.Close()
	res, _ = Run(ctx, st, opts)
	if res.Updated != 1 {
		t.Errorf("after append %+v", res)
	}
	th3, _ := st.Thread(ctx, "a")
	if !th3.UpdatedAt.Equal(time.Date(2026, 1, 2, 9, 0, 0, 0, time.UTC)) {
		t.Errorf("updated at %v after append", th3.UpdatedAt)
	}
}

// A [[sources]] path with a typo gave "scanned 0 transcripts …
// 0 problems" and exit 0. The unreadable source is in the errors and the
// per-source results, the readable one is still scanned, and Err says so.
func TestUnreadableSourceIsReported(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	os.MkdirAll(good, 0o700)
	os.WriteFile(filepath.Join(good, "a.jsonl"), []byte(`{"type":"session","id":"a","cwd":"/w","timestamp":"2026-01-01T10:00:00Z"}`+"\n"), 0o600)
	typo := filepath.Join(dir, "projectz")
	st, err := store.Open(ctx, filepath.Join(dir, "m.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	res, err := Run(ctx, st, Options{Sources: []sessions.Source{
		{Kind: sessions.KindClaudeCode, Path: typo}, {Kind: sessions.KindJSONL, Path: good}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Scanned != 1 || res.Added != 1 {
		t.Errorf("the readable source was not scanned: %+v", res)
	}
	want := []SourceResult{{Kind: "claude-code", Path: typo, Error: "no such folder"}, {Kind: "jsonl", Path: good, Transcripts: 1}}
	if len(res.Sources) != 2 || res.Sources[0] != want[0] || res.Sources[1] != want[1] {
		t.Errorf("sources %+v, want %+v", res.Sources, want)
	}
	if len(res.Errors) != 1 || res.Errors[0].Path != typo || res.Errors[0].Error != "cannot read this claude-code source: no such folder" {
		t.Errorf("errors %+v", res.Errors)
	}
	var se *SourcesError
	if err := res.Err(); !errors.As(err, &se) || err.Error() != "cannot read the claude-code source "+typo+": no such folder" {
		t.Errorf("Err() = %v", err)
	}
}

// gitIn runs git in dir with a fixed identity and no user config.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// keyScan is a temporary folder with a JSON Lines source (src) and a
// store, for tests that follow a project's key as its repository changes:
// session writes a session run in cwd, scanKeys scans and returns each
// thread's project key. It needs git on PATH.
func keyScan(t *testing.T) (dir string, session func(id, cwd string), scanKeys func() map[string]string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("this test needs git on PATH")
	}
	dir, withRemote, scanKeys, _ := remoteKeyScan(t)
	return dir, func(id, cwd string) { t.Helper(); withRemote(id, cwd, "") }, scanKeys
}

// remoteKeyScan is keyScan whose sessions record the remote they give
// ("" for none), as a transcript of another machine does, with its store.
func remoteKeyScan(t *testing.T) (dir string, session func(id, cwd, remote string), scanKeys func() map[string]string, st *store.Store) {
	t.Helper()
	ctx := context.Background()
	dir = t.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(src, 0o700); err != nil {
		t.Fatal(err)
	}
	session = func(id, cwd, remote string) {
		t.Helper()
		body := `{"type":"session","id":"` + id + `","cwd":"` + cwd + `","git_remote":"` + remote + `","timestamp":"2026-01-01T10:00:00Z"}` + "\n"
		if err := os.WriteFile(filepath.Join(src, id+".jsonl"), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	st, err := store.Open(ctx, filepath.Join(dir, "m.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	opts := Options{Sources: []sessions.Source{{Kind: sessions.KindJSONL, Path: src}}, Policy: store.UpsertPolicy{GenerateMemories: true}}
	scanKeys = func() map[string]string {
		t.Helper()
		if _, err := Run(ctx, st, opts); err != nil {
			t.Fatal(err)
		}
		ps, err := st.ThreadProjects(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, p := range ps {
			out[p.ID] = p.Key
		}
		return out
	}
	return dir, session, scanKeys, st
}

// A project's key must follow its folder when the
// folder later says more about it. The usual life of a repository is
// `git init`, sessions, a first commit, sessions, a push to a new remote:
// keyed once and for all, its first sessions stayed under the path key
// and the next under the root commit, and once it had a remote its summary
// said "no memory of this project" and listed its own older sessions as
// another project's. A remote key is kept: a changed remote may be
// another repository cloned into the same folder.
func TestProjectKeysFollowTheRepositoryAsItGrows(t *testing.T) {
	dir, session, scanKeys := keyScan(t)
	repo := filepath.Join(dir, "work", "app")
	reused := filepath.Join(dir, "work", "scratch")
	for _, d := range []string{repo, reused} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		gitIn(t, d, "init", "-q", "-b", "main")
	}
	commit := func(d string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(d, "README"), []byte(d), 0o644); err != nil {
			t.Fatal(err)
		}
		gitIn(t, d, "add", "README")
		gitIn(t, d, "commit", "-q", "-m", "start")
	}

	session("before-commit", repo)
	if k := scanKeys()["before-commit"]; k != "path:"+repo {
		t.Fatalf("a repository without commits: %s", k)
	}
	commit(repo)
	root := "git-root:" + gitIn(t, repo, "rev-list", "--max-parents=0", "HEAD")
	session("after-commit", repo)
	keys := scanKeys()
	if keys["before-commit"] != root || keys["after-commit"] != root {
		t.Fatalf("after the first commit: %v, want both %s", keys, root)
	}
	gitIn(t, repo, "remote", "add", "origin", "git@github.com:acme/app.git")
	keys = scanKeys() // no new session: the folder alone changed
	if keys["before-commit"] != "git:github.com/acme/app" || keys["after-commit"] != "git:github.com/acme/app" {
		t.Fatalf("after the remote was added: %v, want both git:github.com/acme/app", keys)
	}

	// A folder reused by another repository keeps its old sessions apart.
	commit(reused)
	session("old-tool", reused)
	oldRoot := scanKeys()["old-tool"]
	if err := os.RemoveAll(reused); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(reused, 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn(t, reused, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(reused, "other"), []byte("another history"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, reused, "add", "other")
	gitIn(t, reused, "commit", "-q", "-m", "other")
	gitIn(t, reused, "remote", "add", "origin", "https://github.com/someone/else")
	if k := scanKeys()["old-tool"]; k != oldRoot {
		t.Errorf("another repository in the same folder took over its sessions: %s, was %s", k, oldRoot)
	}
}

// A repository without a remote that was moved (or
// renamed) and then pushed to a remote split in two. The sessions of its
// new folder took the remote's key, but those recorded in the folder it
// left kept the root-commit key (their folder is gone, so the scan could
// not look), and their memory fell out of the project's summary. They
// share the history, so they follow.
func TestMovedRepositoryKeepsItsSessionsWhenItGetsARemote(t *testing.T) {
	dir, session, scanKeys := keyScan(t)
	newRepo := func(d, file string) {
		t.Helper()
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		gitIn(t, d, "init", "-q", "-b", "main")
		if err := os.WriteFile(filepath.Join(d, file), []byte(d), 0o644); err != nil {
			t.Fatal(err)
		}
		gitIn(t, d, "add", file)
		gitIn(t, d, "commit", "-q", "-m", "start")
	}

	old := filepath.Join(dir, "work", "webapp")
	newRepo(old, "README")
	session("in-old-folder", old)
	root := scanKeys()["in-old-folder"]
	moved := filepath.Join(dir, "work", "webapp-renamed")
	if err := os.Rename(old, moved); err != nil {
		t.Fatal(err)
	}
	session("in-new-folder", moved)
	if keys := scanKeys(); keys["in-new-folder"] != root || keys["in-old-folder"] != root {
		t.Fatalf("after the move: %v, want both %s", keys, root)
	}
	gitIn(t, moved, "remote", "add", "origin", "git@github.com:acme/webapp.git")
	if keys := scanKeys(); keys["in-new-folder"] != "git:github.com/acme/webapp" || keys["in-old-folder"] != "git:github.com/acme/webapp" {
		t.Errorf("after the push: %v, want both under git:github.com/acme/webapp", keys)
	}

	// When a copy of the history with sessions of its own is still there
	// without a remote, the folder that was left may have been either:
	// its sessions stay where they were.
	tool := filepath.Join(dir, "work", "tool")
	newRepo(tool, "main.go")
	copied := filepath.Join(dir, "copy", "tool")
	if err := os.MkdirAll(filepath.Dir(copied), 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn(t, filepath.Dir(copied), "clone", "-q", tool, copied)
	gitIn(t, copied, "remote", "remove", "origin")
	session("tool-old-folder", tool)
	session("tool-copy", copied)
	toolRoot := scanKeys()["tool-old-folder"]
	toolMoved := filepath.Join(dir, "work", "tool-renamed")
	if err := os.Rename(tool, toolMoved); err != nil {
		t.Fatal(err)
	}
	session("tool-new-folder", toolMoved)
	gitIn(t, toolMoved, "remote", "add", "origin", "git@github.com:acme/tool.git")
	keys := scanKeys()
	if keys["tool-new-folder"] != "git:github.com/acme/tool" || keys["tool-old-folder"] != toolRoot || keys["tool-copy"] != toolRoot {
		t.Errorf("with a copy still there: %v, want tool-old-folder and tool-copy under %s", keys, toolRoot)
	}
}

// A repository's first sessions often predate its remote. With its folder
// gone from this machine (another machine's transcripts), those recorded
// no remote and were keyed by the folder's path, the later ones by the
// remote they recorded: one repository became two projects. The folder is
// the same, so they are one, whether the sessions are scanned together or
// the remote's session arrives later. Two repositories that share a
// folder's name but not its path stay two, and so does a folder whose
// sessions recorded two different remotes.
func TestGoneFolderKeyedByPathJoinsTheRemoteItsSessionsRecorded(t *testing.T) {
	ctx := context.Background()
	dir, session, scanKeys, st := remoteKeyScan(t)
	gone := filepath.Join(dir, "elsewhere") // never created
	repo := filepath.Join(gone, "x", "repo")
	const remoteKey = "git:host/o/repo"

	session("before-remote", repo, "")
	session("with-remote", repo, "git@host:o/repo.git")
	session("same-name", filepath.Join(gone, "y", "repo"), "")
	session("other-clone", filepath.Join(gone, "z", "repo"), "git@host:p/repo.git")
	keys := scanKeys()
	if keys["before-remote"] != remoteKey || keys["with-remote"] != remoteKey {
		t.Errorf("one folder, scanned together: %v, want both %s", keys, remoteKey)
	}
	if k := keys["same-name"]; k != "path:"+filepath.Join(gone, "y", "repo") {
		t.Errorf("a folder of the same name elsewhere joined a repository: %s", k)
	}

	// The remote's first session arrives after the folder's others were keyed.
	later := filepath.Join(gone, "later")
	session("later-early", later, "")
	if k := scanKeys()["later-early"]; k != "path:"+later {
		t.Fatalf("no remote recorded yet: %s", k)
	}
	session("later-pushed", later, "https://host/o/later.git")
	if keys := scanKeys(); keys["later-early"] != "git:host/o/later" {
		t.Errorf("after the remote's session: %v, want later-early under git:host/o/later", keys)
	}

	// A home keyed before this rule holds the split under the older rules'
	// fingerprint: the next scan keys every thread again and joins them.
	old := []store.ThreadProject{
		{ID: "before-remote", Cwd: repo, Key: "path:" + repo, Name: "repo", Rules: "p4:old"},
		{ID: "with-remote", Cwd: repo, GitOriginURL: "git@host:o/repo.git", Key: remoteKey, Name: "o/repo", Rules: "p4:old"},
	}
	if err := st.SetThreadProjects(ctx, old); err != nil {
		t.Fatal(err)
	}
	if keys := scanKeys(); keys["before-remote"] != remoteKey || keys["with-remote"] != remoteKey {
		t.Errorf("a home keyed before the rule: %v, want both %s", keys, remoteKey)
	}

	// Two remotes recorded in one folder: which one the early session
	// belonged to is not known.
	reused := filepath.Join(gone, "reused")
	session("reused-early", reused, "")
	session("reused-a", reused, "git@host:a/one.git")
	session("reused-b", reused, "git@host:b/two.git")
	if k := scanKeys()["reused-early"]; k != "path:"+reused {
		t.Errorf("a folder two repositories used gave its early session to one: %s", k)
	}
}

// A transcript of memctl's own call through an agent CLI (run in its
// scratch folder: the CLIs are told to save none, but one saved anyway
// must not become memory) is counted and never indexed.
func TestOwnExtractionSessionsAreNotIndexed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.MkdirAll(src, 0o700)
	os.WriteFile(filepath.Join(src, "user.jsonl"), []byte(`{"type":"session","id":"user-session","cwd":"/home/dev/src/calc","timestamp":"2026-01-01T10:00:00Z"}
{"type":"message","role":"user","text":"fix calc.sh","timestamp":"2026-01-01T10:05:00Z"}
`), 0o600)
	os.WriteFile(filepath.Join(src, "own.jsonl"), []byte(`{"type":"session","id":"own-session","cwd":"/tmp/memctl-agent-2746158317","timestamp":"2026-01-01T11:00:00Z"}
{"type":"message","role":"user","text":"# Rollout to summarise\nUser: fix calc.sh","timestamp":"2026-01-01T11:00:01Z"}
`), 0o600)
	st, err := store.Open(ctx, filepath.Join(dir, "m.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	res, err := Run(ctx, st, Options{Sources: []sessions.Source{{Kind: sessions.KindJSONL, Path: src}}, Policy: store.UpsertPolicy{GenerateMemories: true}})
	if err != nil || res.Added != 1 || res.Own != 1 || len(res.Errors) != 0 {
		t.Fatalf("scan %+v %v", res, err)
	}
	if _, err := st.Thread(ctx, "own-session"); err == nil {
		t.Error("memctl's own extraction session was indexed")
	}
}
