package evidence

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestRefs(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string // Ref.Kind + " " + Ref.Text()
	}{
		{"heuristic references", "- internal/retain/prune.go (update)\n- Check: `go test ./internal/retain/...` passed after the changes to internal/retain/prune.go.",
			[]string{"file internal/retain/prune.go"}},
		{"line ranges", "see `internal/store/jobs.go:140-180` and cmd/root.go:12, also src/a.ts#L3-L9 and docs/x.md lines 4-7",
			[]string{"file internal/store/jobs.go:140-180", "file cmd/root.go:12", "file src/a.ts:3-9", "file docs/x.md:4-7"}},
		{"commands", "Run `make lint` then `npm run build`, `npm test`, `pnpm run e2e`, `just fmt`; `npm install` is npm's own",
			[]string{"command make lint", "command npm run build", "command npm run test", "command pnpm run e2e", "command just fmt"}},
		{"urls and versions are not files", "fetched https://example.com/a/b.js with v1.2.3 and 2.0.1",
			nil},
		{"extensionless project files", "the Makefile and the Dockerfile, not README",
			[]string{"file Makefile", "file Dockerfile"}},
		{"dot files and folders", "edited .github/workflows/ci.yml and .env",
			[]string{"file .github/workflows/ci.yml", "file .env"}},
		{"make with another folder is skipped", "make -C sub test", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, r := range Refs(tt.text) {
				got = append(got, r.Kind+" "+r.Text())
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Refs(%q)\n got %q\nwant %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestRefsAreBounded(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&b, "src/f%d.go make t%d\n", i, i)
	}
	files, cmds := 0, 0
	for _, r := range Refs(b.String()) {
		if r.Kind == KindFile {
			files++
		} else {
			cmds++
		}
	}
	if files != MaxFilesPerMemory || cmds != MaxCommandsPerMemory {
		t.Fatalf("files=%d commands=%d, want %d and %d", files, cmds, MaxFilesPerMemory, MaxCommandsPerMemory)
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// later moves a file's mtime so a check cannot take the stat fast path.
func later(t *testing.T, path string) {
	t.Helper()
	at := time.Now().Add(time.Hour)
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

func numbered(n int, prefix string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s line %d\n", prefix, i)
	}
	return b.String()
}

func TestCaptureKeepsOnlyWhatExists(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "src/a.go"), numbered(20, "a"))
	write(t, filepath.Join(root, "Makefile"), "lint:\n\tgo vet ./...\n")
	outside := filepath.Join(t.TempDir(), "secret.txt")
	write(t, outside, "x\n")
	refs := Refs("src/a.go:3-5 src/missing.go make lint make nope " + outside)
	items := Capture(root, refs, CaptureOptions{})
	var got []string
	for _, it := range items {
		got = append(got, it.Kind+" "+it.Text())
	}
	want := []string{"command make lint", "file src/a.go:3-5"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("captured %q, want %q", got, want)
	}
	if items[1].Hash == "" || items[1].Sketch == "" || items[1].RangeHash == "" {
		t.Fatalf("file item lacks hash, sketch or range: %+v", items[1])
	}
	if Capture("relative", refs, CaptureOptions{}) != nil || Capture(filepath.Join(root, "nope"), refs, CaptureOptions{}) != nil {
		t.Fatal("a relative or missing root must capture nothing")
	}
}

// Evidence is the project's. A folder of the project that is a
// symbolic link to elsewhere (vendor -> ~/.ssh) must not lead the capture
// outside: the file is neither read nor hashed. A link inside the project
// to another folder of it is fine, and so is a project reached through a
// link.
func TestCaptureStaysInsideTheProjectThroughLinks(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "proj")
	write(t, filepath.Join(root, "src/a.go"), numbered(5, "a"))
	write(t, filepath.Join(base, "outside/secret.txt"), "secret\n")
	if err := os.Symlink(filepath.Join(base, "outside"), filepath.Join(root, "vendorlink")); err != nil {
		t.Skip(err)
	}
	if err := os.Symlink(filepath.Join(root, "src"), filepath.Join(root, "srclink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(root, filepath.Join(base, "projlink")); err != nil {
		t.Fatal(err)
	}
	refs := Refs("vendorlink/secret.txt srclink/a.go src/a.go")
	for _, r := range []string{root, filepath.Join(base, "projlink")} {
		var got []string
		for _, it := range Capture(r, refs, CaptureOptions{}) {
			got = append(got, it.Text())
		}
		if want := []string{"srclink/a.go", "src/a.go"}; !reflect.DeepEqual(got, want) {
			t.Errorf("Capture(%s) = %q, want %q", r, got, want)
		}
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name   string
		ref    string
		change func(t *testing.T, root string)
		state  string
		reason string
	}{
		{"untouched", "src/a.go", func(*testing.T, string) {}, StateOK, ""},
		{"touched, same content", "src/a.go", func(t *testing.T, root string) { later(t, filepath.Join(root, "src/a.go")) }, StateOK, ""},
		{"small edit", "src/a.go", func(t *testing.T, root string) {
			p := filepath.Join(root, "src/a.go")
			write(t, p, strings.Replace(numbered(40, "a"), "a line 7\n", "a line seven\n", 1))
			later(t, p)
		}, StateOK, ""},
		{"deleted", "src/a.go", func(t *testing.T, root string) { os.Remove(filepath.Join(root, "src/a.go")) }, StateGone, ReasonDeleted},
		{"replaced by a folder", "src/a.go", func(t *testing.T, root string) {
			p := filepath.Join(root, "src/a.go")
			os.Remove(p)
			os.Mkdir(p, 0o755)
		}, StateGone, ReasonDeleted},
		{"rewritten", "src/a.go", func(t *testing.T, root string) {
			p := filepath.Join(root, "src/a.go")
			write(t, p, numbered(30, "b")+numbered(10, "a"))
			later(t, p)
		}, StateChanged, ReasonRewritten},
		{"grown, nothing removed", "src/a.go", func(t *testing.T, root string) {
			p := filepath.Join(root, "src/a.go")
			write(t, p, numbered(40, "a")+numbered(200, "c"))
			later(t, p)
		}, StateOK, ""},
		{"cited lines moved", "src/a.go:3-5", func(t *testing.T, root string) {
			p := filepath.Join(root, "src/a.go")
			write(t, p, "// header\n// more\n"+numbered(40, "a"))
			later(t, p)
		}, StateOK, ""},
		{"cited lines changed", "src/a.go:3-5", func(t *testing.T, root string) {
			p := filepath.Join(root, "src/a.go")
			write(t, p, strings.Replace(numbered(40, "a"), "a line 4\n", "a line four\n", 1))
			later(t, p)
		}, StateChanged, ReasonLinesChanged},
		{"make target still there", "make lint", func(t *testing.T, root string) {
			p := filepath.Join(root, "Makefile")
			write(t, p, "# tools\nlint: vet\n\tgolangci-lint run\n")
			later(t, p)
		}, StateOK, ""},
		{"make target removed", "make lint", func(t *testing.T, root string) {
			p := filepath.Join(root, "Makefile")
			write(t, p, "test:\n\tgo test ./...\n")
			later(t, p)
		}, StateGone, ReasonTargetRemoved},
		{"make target maybe in an include", "make lint", func(t *testing.T, root string) {
			p := filepath.Join(root, "Makefile")
			write(t, p, "include tools.mk\ntest:\n\tgo test ./...\n")
			later(t, p)
		}, StateUnknown, ""},
		{"Makefile deleted", "make lint", func(t *testing.T, root string) { os.Remove(filepath.Join(root, "Makefile")) }, StateGone, ReasonScriptDeleted},
		{"npm script removed", "npm run build", func(t *testing.T, root string) {
			p := filepath.Join(root, "package.json")
			write(t, p, `{"scripts": {"test": "jest"}}`)
			later(t, p)
		}, StateGone, ReasonTargetRemoved},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			write(t, filepath.Join(root, "src/a.go"), numbered(40, "a"))
			write(t, filepath.Join(root, "Makefile"), "lint:\n\tgo vet ./...\n")
			write(t, filepath.Join(root, "package.json"), `{"scripts": {"build": "tsc", "test": "jest"}}`)
			items := Capture(root, Refs(tt.ref), CaptureOptions{})
			if len(items) != 1 {
				t.Fatalf("captured %d items of %q", len(items), tt.ref)
			}
			tt.change(t, root)
			c := &Checker{}
			v := c.Check(items[0])
			if v.State != tt.state || v.Reason != tt.reason {
				t.Fatalf("verdict %+v, want %s/%s", v, tt.state, tt.reason)
			}
		})
	}
}

func TestCheckerBudget(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "a.go"), "x\n")
	items := Capture(root, Refs("a.go"), CaptureOptions{})
	now := time.Unix(1000, 0)
	c := &Checker{Deadline: now, Now: func() time.Time { return now }}
	if v := c.Check(items[0]); v.State != StateUnknown || c.Unchecked != 1 {
		t.Fatalf("a spent budget must leave the item unchecked: %+v", v)
	}
	a := c.Assess(Record{ThreadID: "t", Items: items})
	if a.Stale() || a.Unchecked != 1 {
		t.Fatalf("an unchecked item is not a problem: %+v", a)
	}
}

func TestAssessGone(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "a.go"), numbered(5, "a"))
	write(t, filepath.Join(root, "b.go"), numbered(5, "b"))
	items := Capture(root, Refs("a.go b.go"), CaptureOptions{})
	os.Remove(filepath.Join(root, "a.go"))
	a := (&Checker{}).Assess(Record{Items: items})
	if !a.Stale() || a.Gone {
		t.Fatalf("one of two files deleted: stale, not gone: %+v", a)
	}
	if got := a.Problems[0].Message(); got != "a.go was deleted" {
		t.Fatalf("message %q", got)
	}
	os.Remove(filepath.Join(root, "b.go"))
	if a := (&Checker{}).Assess(Record{Items: items}); !a.Gone {
		t.Fatalf("both deleted: gone: %+v", a)
	}
}

func TestIndexRoundTrip(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "src/a.go"), numbered(20, "a"))
	write(t, filepath.Join(root, "Makefile"), "lint:\n\ttrue\n")
	recs := []Record{
		{ThreadID: "t1", Scope: "git:example.com/x", Cwd: root, RolloutFile: "rollout_summaries/a.md", Commit: "c0ffee", Handled: HandledDemoted,
			RecordedAt: 42, Description: "fix\tthe\nparser", Items: Capture(root, Refs("src/a.go:2-4 make lint"), CaptureOptions{})},
		{ThreadID: "t2", Cwd: root},
	}
	path := filepath.Join(t.TempDir(), ".evidence.tsv")
	if err := WriteIndex(path, recs); err != nil {
		t.Fatal(err)
	}
	got, err := ReadIndex(path)
	if err != nil {
		t.Fatal(err)
	}
	recs[0].Description = "fix the parser"
	if !reflect.DeepEqual(got, recs) {
		t.Fatalf("round trip\n got %+v\nwant %+v", got, recs)
	}
	// Two memories resting on the same file store it once; a scoped read
	// returns that scope's records only.
	if n := strings.Count(string(EncodeIndex(append(recs, Record{ThreadID: "t3", Scope: "other", Items: recs[0].Items}))), "\nf\t"); n != 2 {
		t.Fatalf("%d file lines for 2 files", n)
	}
	if got, err := readIndex(path, "git:example.com/x"); err != nil || len(got) != 1 || got[0].ThreadID != "t1" || len(got[0].Items) != 2 {
		t.Fatalf("scoped read: %+v %v", got, err)
	}
	if _, err := DecodeIndex([]byte("something else\n")); err != ErrBadIndex {
		t.Fatalf("a foreign file: %v", err)
	}
	if got, err := DecodeIndex([]byte(indexHeader + "\ni\tfile\torphan\nm\tshort\nf\tbroken\n")); err != nil || len(got) != 0 {
		t.Fatalf("damaged lines are skipped: %+v %v", got, err)
	}
}

func TestHeadCommit(t *testing.T) {
	const sha = "0123456789abcdef0123456789abcdef01234567"
	t.Run("loose ref", func(t *testing.T) {
		root := t.TempDir()
		write(t, filepath.Join(root, ".git/HEAD"), "ref: refs/heads/main\n")
		write(t, filepath.Join(root, ".git/refs/heads/main"), sha+"\n")
		os.MkdirAll(filepath.Join(root, "sub/dir"), 0o755)
		if got := HeadCommit(filepath.Join(root, "sub/dir")); got != sha {
			t.Fatalf("got %q", got)
		}
	})
	t.Run("packed ref", func(t *testing.T) {
		root := t.TempDir()
		write(t, filepath.Join(root, ".git/HEAD"), "ref: refs/heads/main\n")
		write(t, filepath.Join(root, ".git/packed-refs"), "# pack-refs with: peeled\n"+sha+" refs/heads/main\n")
		if got := HeadCommit(root); got != sha {
			t.Fatalf("got %q", got)
		}
	})
	t.Run("detached", func(t *testing.T) {
		root := t.TempDir()
		write(t, filepath.Join(root, ".git/HEAD"), sha+"\n")
		if got := HeadCommit(root); got != sha {
			t.Fatalf("got %q", got)
		}
	})
	t.Run("worktree", func(t *testing.T) {
		main := t.TempDir()
		write(t, filepath.Join(main, ".git/refs/heads/feature"), sha+"\n")
		wtGit := filepath.Join(main, ".git/worktrees/wt")
		write(t, filepath.Join(wtGit, "HEAD"), "ref: refs/heads/feature\n")
		write(t, filepath.Join(wtGit, "commondir"), "../..\n")
		wt := t.TempDir()
		write(t, filepath.Join(wt, ".git"), "gitdir: "+wtGit+"\n")
		if got := HeadCommit(wt); got != sha {
			t.Fatalf("got %q", got)
		}
	})
	t.Run("no repository", func(t *testing.T) {
		if got := HeadCommit(t.TempDir()); got != "" {
			t.Fatalf("got %q", got)
		}
	})
}
