package sessions

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
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

// File is one thread candidate found on disk.
type File struct {
	Kind     Kind
	Path     string    // main transcript
	Related  []string  // files that belong to the same thread (Claude Code sidechain/sub-agent files)
	Size     int64     // sum over Path and Related
	ModTime  time.Time // newest over Path and Related
	Archived bool      // under Codex archived_sessions/
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
	switch src.Kind {
	case KindCodex:
		if err := walkFiles(ctx, root, isCodexName, codexPick, src.Kind, strings.Contains(filepath.ToSlash(root), "/archived_sessions"), fn); err != nil {
			return err
		}
		if filepath.Base(filepath.Clean(src.Path)) == "sessions" {
			arch := filepath.Join(filepath.Dir(filepath.Clean(src.Path)), "archived_sessions")
			if r, err := filepath.EvalSymlinks(arch); err == nil && r != root {
				return walkFiles(ctx, r, isCodexName, codexPick, src.Kind, true, fn)
			}
		}
		return nil
	case KindJSONL:
		return walkFiles(ctx, root, func(n string) bool { return strings.HasSuffix(n, ".jsonl") }, nil, src.Kind, false, fn)
	case KindClaudeCode:
		return discoverClaude(ctx, root, fn)
	default:
		return fmt.Errorf("unknown source kind %q", src.Kind)
	}
}

func isCodexName(n string) bool {
	return strings.HasPrefix(n, "rollout-") &&
		(strings.HasSuffix(n, ".jsonl") || strings.HasSuffix(n, ".jsonl.zst") || strings.HasSuffix(n, ".json"))
}

// codexPick drops a compressed rollout when its plain twin sits beside it.
func codexPick(name string, names map[string]bool) bool {
	if plain, ok := strings.CutSuffix(name, ".zst"); ok {
		return !names[plain]
	}
	return true
}

// walkFiles visits dir recursively with one ReadDir per directory (no
// per-file stat beyond the matching regular files).
func walkFiles(ctx context.Context, dir string, match func(string) bool, pick func(string, map[string]bool) bool, kind Kind, archived bool, fn func(File) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil // unreadable or missing directory: skipped
	}
	var names map[string]bool
	if pick != nil {
		names = make(map[string]bool, len(ents))
		for _, e := range ents {
			names[e.Name()] = true
		}
	}
	for _, e := range ents {
		name := e.Name()
		p := filepath.Join(dir, name)
		if e.IsDir() {
			arch := archived || name == "archived_sessions"
			if err := walkFiles(ctx, p, match, pick, kind, arch, fn); err != nil {
				return err
			}
			continue
		}
		if !match(name) || (pick != nil && !pick(name, names)) {
			continue
		}
		info, ok := regularInfo(e, p)
		if !ok {
			continue
		}
		if err := fn(File{Kind: kind, Path: p, Size: info.Size(), ModTime: info.ModTime(), Archived: archived}); err != nil {
			return err
		}
	}
	return nil
}

// regularInfo stats a directory entry, following a symlink to a regular
// file; anything else (directories, devices, dangling links) is refused.
func regularInfo(e fs.DirEntry, p string) (fs.FileInfo, bool) {
	var info fs.FileInfo
	var err error
	if e.Type()&fs.ModeSymlink != 0 {
		info, err = os.Stat(p)
	} else {
		info, err = e.Info()
	}
	if err != nil || !info.Mode().IsRegular() {
		return nil, false
	}
	return info, true
}

func discoverClaude(ctx context.Context, root string, fn func(File) error) error {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	rootIsProject := false
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".jsonl") {
			rootIsProject = true
			continue
		}
		if e.IsDir() {
			if err := claudeProject(ctx, filepath.Join(root, e.Name()), fn); err != nil {
				return err
			}
		}
	}
	if rootIsProject {
		return claudeProject(ctx, root, fn)
	}
	return nil
}

// claudeProject yields the sessions of one project folder with their
// sub-agent files attached.
func claudeProject(ctx context.Context, dir string, fn func(File) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	sessions := map[string]*File{}
	var order []string
	var agents []string
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".jsonl") {
			continue
		}
		p := filepath.Join(dir, name)
		// Only regular files are opened: a FIFO named like a transcript
		// would block the scan forever.
		info, ok := regularInfo(e, p)
		if !ok {
			continue
		}
		if strings.HasPrefix(name, "agent-") {
			agents = append(agents, p)
			continue
		}
		stem := strings.TrimSuffix(name, ".jsonl")
		sessions[stem] = &File{Kind: KindClaudeCode, Path: p, Size: info.Size(), ModTime: info.ModTime()}
		order = append(order, stem)
	}
	attach := func(f *File, p string) {
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() {
			return
		}
		f.Related = append(f.Related, p)
		f.Size += st.Size()
		if st.ModTime().After(f.ModTime) {
			f.ModTime = st.ModTime()
		}
	}
	for _, p := range agents {
		if f := sessions[firstLineSessionID(p)]; f != nil {
			attach(f, p)
		}
	}
	for _, stem := range order {
		sub := filepath.Join(dir, stem, "subagents")
		subs, err := os.ReadDir(sub)
		if err != nil {
			continue
		}
		for _, e := range subs {
			if n := e.Name(); !e.IsDir() && strings.HasPrefix(n, "agent-") && strings.HasSuffix(n, ".jsonl") {
				attach(sessions[stem], filepath.Join(sub, n))
			}
		}
	}
	for _, stem := range order {
		if err := fn(*sessions[stem]); err != nil {
			return err
		}
	}
	return nil
}

// firstLineSessionID reads the sessionId of an old-layout agent file from
// its first line. Only the first 256 KiB are read: the envelope fields come
// before the message, and eachField reports complete fields even when the
// object is cut short.
func firstLineSessionID(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 256<<10)
	n, _ := io.ReadFull(f, buf)
	buf = buf[:n]
	if i := bytes.IndexByte(buf, '\n'); i >= 0 {
		buf = buf[:i]
	}
	return fieldString(buf, "sessionId")
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
