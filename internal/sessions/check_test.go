package sessions

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A [[sources]] path with a typo, or a folder that cannot be
// read, gave "scanned 0 transcripts … 0 problems"; CheckSource says which
// and why. Root reads any folder whatever its mode, so the cases that must
// fail for everyone are a file, a dangling link and a link loop; the
// permission case is checked as the user running the test can see it.
func TestCheckSource(t *testing.T) {
	dir := t.TempDir()
	mk := func(p string) string {
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
		return p
	}
	file := filepath.Join(dir, "projects-file")
	os.WriteFile(file, []byte("x"), 0o600)
	dangling := filepath.Join(dir, "dangling")
	os.Symlink(filepath.Join(dir, "nowhere"), dangling)
	loop := filepath.Join(dir, "loop")
	os.Symlink(loop, loop)
	codexHome := filepath.Join(dir, "codex")
	mk(filepath.Join(codexHome, "archived_sessions"))

	for _, tt := range []struct {
		name   string
		src    Source
		reason string // "" = readable
	}{
		{"readable folder", Source{Kind: KindJSONL, Path: mk(filepath.Join(dir, "ok"))}, ""},
		{"typo", Source{Kind: KindClaudeCode, Path: filepath.Join(dir, "projectz")}, "no such folder"},
		{"a file", Source{Kind: KindClaudeCode, Path: file}, "not a folder"},
		{"under a file", Source{Kind: KindJSONL, Path: filepath.Join(file, "sub")}, "not a directory"},
		{"dangling link", Source{Kind: KindJSONL, Path: dangling}, "a symbolic link to nothing"},
		{"link loop", Source{Kind: KindJSONL, Path: loop}, "too many levels of symbolic links"},
		{"codex: only the archive", Source{Kind: KindCodex, Path: filepath.Join(codexHome, "sessions")}, ""},
		{"codex: nothing", Source{Kind: KindCodex, Path: filepath.Join(dir, "nocodex", "sessions")}, "no such folder"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckSource(tt.src)
			if tt.reason == "" {
				if err != nil {
					t.Fatalf("CheckSource = %v, want nil", err)
				}
				return
			}
			var se *SourceError
			if !errors.As(err, &se) || se.Reason != tt.reason || se.Source != tt.src {
				t.Fatalf("CheckSource = %#v, want a SourceError for %v with reason %q", err, tt.src, tt.reason)
			}
			if want := string(tt.src.Kind) + " source " + tt.src.Path + ": " + tt.reason; err.Error() != want {
				t.Errorf("message %q, want %q", err, want)
			}
		})
	}

	t.Run("no permission", func(t *testing.T) {
		locked := mk(filepath.Join(dir, "locked"))
		if err := os.Chmod(locked, 0); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(locked, 0o700)
		err := CheckSource(Source{Kind: KindJSONL, Path: locked})
		if _, rerr := os.ReadDir(locked); rerr == nil {
			// Root (as in CI containers) reads it anyway, and so may scan.
			if err != nil {
				t.Fatalf("readable for this user, but CheckSource = %v", err)
			}
			t.Logf("running as uid %d, which can read a mode-000 folder; the unreadable cases above cover the failure", os.Geteuid())
			return
		}
		var se *SourceError
		if !errors.As(err, &se) || se.Reason != "permission denied" {
			t.Fatalf("CheckSource = %v, want permission denied", err)
		}
	})
}

// With no config, an unreadable ~/.claude/projects was skipped
// without a word; a default folder that exists in any form is a source,
// so that the scan reports what is wrong with it.
func TestDefaultSourcesKeepUnreadableFolders(t *testing.T) {
	home := t.TempDir()
	getenv := func(string) string { return "" }
	os.MkdirAll(filepath.Join(home, ".claude"), 0o700)
	os.WriteFile(filepath.Join(home, ".claude", "projects"), []byte("not a folder"), 0o600)
	os.MkdirAll(filepath.Join(home, ".codex"), 0o700)
	os.Symlink(filepath.Join(home, "gone"), filepath.Join(home, ".codex", "sessions"))
	got := DefaultSources(getenv, home)
	if len(got) != 2 || got[0].Kind != KindCodex || got[1].Kind != KindClaudeCode {
		t.Fatalf("DefaultSources = %v, want both agents' folders", got)
	}
	for _, src := range got {
		if err := CheckSource(src); err == nil {
			t.Errorf("CheckSource(%v) = nil", src)
		}
	}
	if _, ok := DefaultSource(KindJSONL, getenv, home); ok {
		t.Error("jsonl has a default folder")
	}
}
