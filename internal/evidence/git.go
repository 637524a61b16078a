package evidence

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// maxUp bounds the walk from a folder to its repository's top.
const maxUp = 64

// RepoTop returns the folder holding dir's .git (a folder, or the file a
// worktree or submodule has), "" when dir is in no repository.
func RepoTop(dir string) string {
	d := filepath.Clean(dir)
	for i := 0; i < maxUp; i++ {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
	return ""
}

// HeadCommit returns the commit checked out in the repository holding dir,
// read from the .git files (no git binary): "" when there is none or it
// cannot be read.
func HeadCommit(dir string) string {
	top := RepoTop(dir)
	if top == "" {
		return ""
	}
	gitDir := filepath.Join(top, ".git")
	if fi, err := os.Stat(gitDir); err == nil && !fi.IsDir() {
		// A worktree or submodule: ".git" says where the real one is.
		b, err := os.ReadFile(gitDir)
		if err != nil {
			return ""
		}
		ref, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
		if !ok {
			return ""
		}
		ref = strings.TrimSpace(ref)
		if !filepath.IsAbs(ref) {
			ref = filepath.Join(top, ref)
		}
		gitDir = ref
	}
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	h := strings.TrimSpace(string(head))
	ref, isRef := strings.CutPrefix(h, "ref:")
	if !isRef {
		return commitOrEmpty(h)
	}
	ref = strings.TrimSpace(ref)
	if strings.Contains(ref, "..") {
		return ""
	}
	// A worktree keeps its HEAD; refs live in the common folder.
	dirs := []string{gitDir}
	if c, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common := strings.TrimSpace(string(c))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		dirs = append(dirs, common)
	}
	for _, d := range dirs {
		if b, err := os.ReadFile(filepath.Join(d, filepath.FromSlash(ref))); err == nil {
			return commitOrEmpty(strings.TrimSpace(string(b)))
		}
	}
	for _, d := range dirs {
		if c := packedRef(filepath.Join(d, "packed-refs"), ref); c != "" {
			return c
		}
	}
	return ""
}

func packedRef(path, ref string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		if sha, name, ok := strings.Cut(line, " "); ok && name == ref {
			return commitOrEmpty(sha)
		}
	}
	return ""
}

func commitOrEmpty(s string) string {
	if len(s) != 40 && len(s) != 64 {
		return ""
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return ""
		}
	}
	return s
}
