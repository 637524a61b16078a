package sessions

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/internal/sessions/codex"
	"github.com/memctl/memctl/internal/sessions/internal/transcript"
)

// Source is one transcript location: a [[sources]] entry of the config,
// or an agent's default folder.
type Source struct {
	Kind Kind
	Path string
	// Default is set on an agent's default folder (DefaultSource), which
	// memctl reads when the config has no [[sources]], or for an entry
	// that names a kind without a path.
	Default bool
}

// DefaultSource is the default transcript folder of an agent: Codex's
// $CODEX_HOME/sessions (default ~/.codex/sessions; Discover adds the
// sibling archived_sessions itself), Claude Code's
// $CLAUDE_CONFIG_DIR/projects (default ~/.claude/projects). ok is false
// for a kind without a default folder (jsonl) or when neither the
// variable nor homeDir is set.
func DefaultSource(kind Kind, getenv func(string) string, homeDir string) (Source, bool) {
	var dir, envName, base, sub string
	switch kind {
	case KindCodex:
		envName, base, sub = "CODEX_HOME", ".codex", "sessions"
	case KindClaudeCode:
		envName, base, sub = "CLAUDE_CONFIG_DIR", ".claude", "projects"
	default:
		return Source{}, false
	}
	dir = getenv(envName)
	if dir == "" && homeDir != "" {
		dir = filepath.Join(homeDir, base)
	}
	if dir == "" {
		return Source{}, false
	}
	return Source{Kind: kind, Path: filepath.Join(dir, sub), Default: true}, true
}

// DefaultSources returns the default folders (DefaultSource) of the
// agents whose folder exists on this machine. A folder that exists but
// cannot be read (no permission, not a folder, a broken link) is
// included, so that CheckSource reports it instead of it being skipped
// without a word. homeDir is the user's home.
func DefaultSources(getenv func(string) string, homeDir string) []Source {
	var out []Source
	for _, k := range []Kind{KindCodex, KindClaudeCode} {
		src, ok := DefaultSource(k, getenv, homeDir)
		if !ok {
			continue
		}
		present := exists(src.Path)
		if k == KindCodex {
			present = present || exists(filepath.Join(filepath.Dir(src.Path), "archived_sessions"))
		}
		if present {
			out = append(out, src)
		}
	}
	return out
}

// isDir reports whether p is a folder, or a link to one.
func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// exists reports whether anything is at p, even something that cannot be
// read: only "no such file" counts as absent.
func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil || !errors.Is(err, fs.ErrNotExist)
}

// SourceError is a source folder that cannot be read: it does not exist,
// is not a folder, or cannot be listed. CheckSource returns it.
type SourceError struct {
	Source Source
	// Reason says why, without the path: "no such folder", "not a
	// folder", "permission denied", …
	Reason string
	Err    error
}

func (e *SourceError) Error() string {
	return fmt.Sprintf("%s source %s: %s", e.Source.Kind, e.Source.Path, e.Reason)
}

func (e *SourceError) Unwrap() error { return e.Err }

// CheckSource reports, as a *SourceError, a source whose folder cannot be
// read. A Codex sessions folder that is missing while the archived_sessions
// folder beside it exists is fine (Discover reads the archive). Root can
// read folders whatever their permissions; a path that is a file, a
// dangling link or a link loop fails for everyone.
func CheckSource(src Source) error {
	fail := func(reason string, err error) error {
		return &SourceError{Source: src, Reason: reason, Err: err}
	}
	fi, err := os.Stat(src.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if src.Kind == KindCodex && filepath.Base(filepath.Clean(src.Path)) == "sessions" {
			if arch := filepath.Join(filepath.Dir(filepath.Clean(src.Path)), "archived_sessions"); exists(arch) {
				return CheckSource(Source{Kind: src.Kind, Path: arch, Default: src.Default})
			}
		}
		if _, lerr := os.Lstat(src.Path); lerr == nil {
			return fail("a symbolic link to nothing", err)
		}
		return fail("no such folder", err)
	case err != nil:
		return fail(reasonOf(err), err)
	case !fi.IsDir():
		return fail("not a folder", nil)
	}
	f, err := os.Open(src.Path)
	if err == nil {
		_, err = f.ReadDir(1)
		f.Close()
		if errors.Is(err, io.EOF) {
			err = nil
		}
	}
	if err != nil {
		return fail(reasonOf(err), err)
	}
	return nil
}

// reasonOf is the reason of a file system error without its path.
func reasonOf(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Discover walks a source and calls fn for every thread candidate.
//
// Codex: rollout-*.jsonl, rollout-*.jsonl.zst (the plain file wins when
// both exist) and rollout-*.json, recursively, plus <codex home>/archived_sessions
// when src.Path is <codex home>/sessions. Claude Code: <projects>/*/*.jsonl
// sessions, with sub-agent files (old layout <project>/agent-*.jsonl, new
// layout <project>/<session>/subagents/agent-*.jsonl) attached as Related and
// never yielded on their own. jsonl: every *.jsonl file, recursively.
//
// Symbolic links to directories are not followed (no loops); directories
// that merely look like transcripts are skipped. A transcript that is a
// link is followed only when it resolves inside the source folder; one
// that leads out is passed to fn as a File with Skipped set
// (ErrLinkOutside), never opened. A folder below the source
// that cannot be listed is passed to fn as a File with Unreadable set.
// Only old-layout Claude agent files are opened (their first line names the
// parent session). A missing source folder yields nothing and no error.
// The error is ctx's, fn's, or an unknown kind.
func Discover(ctx context.Context, src Source, fn func(File) error) error {
	root := src.Path
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	} else if os.IsNotExist(err) {
		if src.Kind != KindCodex {
			return nil
		}
	}
	format, err := formatOf(src.Kind)
	if err != nil {
		return fmt.Errorf("unknown source kind %q", src.Kind)
	}
	return format.Discover(ctx, src, root, fn)
}

// discoverCodex walks a Codex sessions folder and, when src.Path is
// <codex home>/sessions, the archived_sessions folder beside it.
func discoverCodex(ctx context.Context, src Source, root string, fn func(File) error) error {
	if filepath.Base(filepath.Clean(src.Path)) != "sessions" && isDir(filepath.Join(root, "sessions")) {
		// The source is Codex's home (~/.codex, what CODEX_HOME names):
		// read it as its sessions folder, the archive beside it included
		// and marked archived.
		home := Source{Kind: src.Kind, Path: filepath.Join(root, "sessions"), Default: src.Default}
		return discoverCodex(ctx, home, home.Path, fn)
	}
	if err := transcript.WalkFiles(ctx, root, codex.IsRolloutName, codex.PickPlain, src.Kind, strings.Contains(filepath.ToSlash(root), "/archived_sessions"), fn); err != nil {
		return err
	}
	if filepath.Base(filepath.Clean(src.Path)) == "sessions" {
		arch := filepath.Join(filepath.Dir(filepath.Clean(src.Path)), "archived_sessions")
		if r, err := filepath.EvalSymlinks(arch); err == nil && r != root {
			return transcript.WalkFiles(ctx, r, codex.IsRolloutName, codex.PickPlain, src.Kind, true, fn)
		}
	}
	return nil
}

// ErrLinkOutside is the reason a transcript reached through a symbolic
// link out of its source folder is skipped (Discover) or refused
// (CheckLinks); its content is never read.
var ErrLinkOutside = transcript.ErrLinkOutside

// SourceRoots are the folders of srcs, links resolved, inside which a
// transcript may be reached through a symbolic link: each source's folder
// and, for a Codex sessions folder, the archived_sessions beside it.
func SourceRoots(srcs []Source) []string {
	var roots []string
	for _, src := range srcs {
		roots = append(roots, transcript.RealRoot(src.Path))
		if src.Kind == KindCodex && filepath.Base(filepath.Clean(src.Path)) == "sessions" {
			roots = append(roots, transcript.RealRoot(filepath.Join(filepath.Dir(filepath.Clean(src.Path)), "archived_sessions")))
		}
	}
	return roots
}

// CheckLinks is Discover's link rule at the time a transcript is read, for
// a file swapped for a link after the scan that indexed it: a file of f
// (its transcript and related files) whose path goes through a symbolic
// link must resolve inside one of roots (SourceRoots), or the error wraps
// ErrLinkOutside and names it. A path with no link in it is not checked.
func CheckLinks(f File, roots []string) error {
	for _, p := range append([]string{f.Path}, f.Related...) {
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil || real == abs {
			continue // missing (reading says so) or no link on the way
		}
		inside := false
		for _, r := range roots {
			if transcript.Within(r, real) {
				inside = true
				break
			}
		}
		if !inside {
			return fmt.Errorf("%s: %w", p, ErrLinkOutside)
		}
	}
	return nil
}

// Fingerprint is a cheap content fingerprint of path: its size plus a
// SHA-256 of the first and last 4 KiB. It changes when a transcript is
// appended to or rewritten, without reading the whole file.
func Fingerprint(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	buf := make([]byte, 4096)
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return "", err
	}
	h.Write(buf[:n])
	if size := st.Size(); size > 4096 {
		off := max(size-4096, 4096)
		n, err := f.ReadAt(buf[:size-off], off)
		if err != nil && err != io.EOF {
			return "", err
		}
		h.Write(buf[:n])
	}
	return fmt.Sprintf("%d-%s", st.Size(), hex.EncodeToString(h.Sum(nil)[:16])), nil
}
