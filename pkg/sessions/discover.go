package sessions

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/pkg/sessions/codex"
	"github.com/memctl/memctl/pkg/sessions/internal/transcript"
)

// Source is one configured transcript location ([[sources]] in the config).
type Source struct {
	Kind Kind
	Path string
}

// DefaultSources returns the transcript folders of the agents installed on
// this machine: Codex ($CODEX_HOME/sessions, default ~/.codex/sessions;
// Discover adds the sibling archived_sessions itself) and Claude Code
// ($CLAUDE_CONFIG_DIR/projects, default ~/.claude/projects). Folders that
// do not exist are left out. homeDir is the user's home.
func DefaultSources(getenv func(string) string, homeDir string) []Source {
	var out []Source
	codexHome := getenv("CODEX_HOME")
	if codexHome == "" && homeDir != "" {
		codexHome = filepath.Join(homeDir, ".codex")
	}
	if codexHome != "" && (isDir(filepath.Join(codexHome, "sessions")) || isDir(filepath.Join(codexHome, "archived_sessions"))) {
		out = append(out, Source{Kind: KindCodex, Path: filepath.Join(codexHome, "sessions")})
	}
	claudeHome := getenv("CLAUDE_CONFIG_DIR")
	if claudeHome == "" && homeDir != "" {
		claudeHome = filepath.Join(homeDir, ".claude")
	}
	if claudeHome != "" && isDir(filepath.Join(claudeHome, "projects")) {
		out = append(out, Source{Kind: KindClaudeCode, Path: filepath.Join(claudeHome, "projects")})
	}
	return out
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
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
// Symbolic links to directories are not followed (no loops); unreadable
// entries and directories that merely look like transcripts are skipped.
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
