// Package setup wires memctl into an agent's own config files: the hooks
// that inject the summary and count citations, the MCP server entry, the
// permission to read the memory folder, and Codex's notify program.
// Edits merge with what the files hold, are idempotent (a second run
// changes nothing), are backed up before anything is written, and can be
// undone: a file nobody touched since is restored byte for byte, a file
// changed since loses only memctl's entries.
package setup

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/consolidate"
)

// Agents setup knows.
const (
	ClaudeCode = "claude-code"
	Codex      = "codex"
)

// Target says where an agent keeps its config and how its hooks run memctl.
type Target struct {
	Agent string
	// ClaudeDir holds settings.json ($CLAUDE_CONFIG_DIR, else ~/.claude).
	ClaudeDir string
	// ClaudeJSON is Claude Code's global state file, where user-scope MCP
	// servers live ($CLAUDE_CONFIG_DIR/.claude.json, else ~/.claude.json).
	ClaudeJSON string
	// CodexHome holds config.toml ($CODEX_HOME, else ~/.codex).
	CodexHome string
	// Memctl is the argv prefix that runs memctl from a hook: an absolute
	// path, plus --home/--config when they are not the defaults.
	Memctl []string
	// Summary is the argv prefix of the SessionStart hook's summary:
	// memctl-summary with the same flags when it is installed beside
	// memctl (it starts in a fraction of memctl's time); empty for
	// Memctl's "summary".
	Summary []string
	// MemoryRoots are the memory folders the agent may read.
	MemoryRoots []string
}

// File is one planned edit.
type File struct {
	Path    string
	Existed bool
	Before  []byte
	After   []byte
	// Added records what a JSON edit added, so an undo of a file changed
	// since can remove just that.
	Added *jsonAdded `json:",omitempty"`
}

// Plan computes the edits for t without writing anything. Files that
// would not change are left out, so an empty plan means "already set up".
func Plan(t Target) ([]File, error) {
	if len(t.Memctl) == 0 || !filepath.IsAbs(t.Memctl[0]) {
		return nil, errors.New("setup needs the absolute path of the memctl binary")
	}
	var files []File
	var err error
	switch t.Agent {
	case ClaudeCode:
		files, err = planClaude(t)
	case Codex:
		files, err = planCodex(t)
	default:
		return nil, fmt.Errorf("unknown agent %q (want claude-code or codex)", t.Agent)
	}
	if err != nil {
		return nil, err
	}
	var out []File
	for _, f := range files {
		if !f.Existed || !bytes.Equal(f.Before, f.After) {
			out = append(out, f)
		}
	}
	return out, nil
}

// Diff renders the plan as unified diffs, one per file. The files are
// named as git names absolute paths ("a/home/u/.claude/settings.json", not
// "a//home/…"), so patch -p1 and diff viewers read it as git's own.
func Diff(files []File) string {
	var b strings.Builder
	for _, f := range files {
		name := strings.TrimPrefix(filepath.ToSlash(f.Path), "/")
		b.WriteString(consolidate.UnifiedDiff(name, f.Before, f.Existed, f.After, true))
	}
	return b.String()
}

func readFile(path string) ([]byte, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return b, true, nil
}

// summaryHook is the command line of the SessionStart hook that prints
// the summary for agent.
func summaryHook(t Target, agent string) string {
	argv := append([]string{}, t.Summary...)
	if len(argv) == 0 {
		argv = append(append(argv, t.Memctl...), "summary")
	}
	return shellLine(append(argv, "--agent", agent)...)
}

// shellLine joins argv into a POSIX shell command line (hooks given as a
// string run through a shell).
func shellLine(argv ...string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@%+,") == "" {
			parts[i] = a
		} else {
			parts[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(parts, " ")
}

// Manifest records one setup run, beside the backups it took.
type Manifest struct {
	Agent   string         `json:"agent"`
	Time    time.Time      `json:"time"`
	Entries []ManifestFile `json:"files"`
}

// ManifestFile is one file a setup run wrote.
type ManifestFile struct {
	Path    string `json:"path"`
	Existed bool   `json:"existed"`
	// Backup is the saved original, relative to the manifest's folder.
	Backup string `json:"backup,omitempty"`
	// Written is the sha256 of what setup wrote: an undo restores the
	// backup only when the file still holds exactly that.
	Written string     `json:"written_sha256"`
	Added   *jsonAdded `json:"added,omitempty"`
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Apply backs up every file of the plan under backupRoot/<agent>/<time>/
// and then writes the new contents (each atomically). It returns the
// folder of the backup. An empty plan writes nothing.
func Apply(files []File, agent, backupRoot string, now time.Time) (string, error) {
	if len(files) == 0 {
		return "", nil
	}
	dir := filepath.Join(backupRoot, agent, now.UTC().Format("20060102T150405.000000000Z"))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	m := Manifest{Agent: agent, Time: now.UTC()}
	for i, f := range files {
		e := ManifestFile{Path: f.Path, Existed: f.Existed, Written: digest(f.After), Added: f.Added}
		if f.Existed {
			e.Backup = fmt.Sprintf("%02d-%s", i, filepath.Base(f.Path))
			if err := writeAtomic(filepath.Join(dir, e.Backup), f.Before, 0o600); err != nil {
				return "", err
			}
		}
		m.Entries = append(m.Entries, e)
	}
	mb, _ := json.MarshalIndent(m, "", "  ")
	if err := writeAtomic(filepath.Join(dir, "manifest.json"), append(mb, '\n'), 0o600); err != nil {
		return "", err
	}
	for _, f := range files {
		mode := fs.FileMode(0o600)
		if st, err := os.Stat(f.Path); err == nil {
			mode = st.Mode().Perm()
		}
		target, err := linkTarget(f.Path)
		if err != nil {
			return dir, err
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
			return dir, err
		}
		if err := writeAtomic(target, f.After, mode); err != nil {
			return dir, fmt.Errorf("write %s: %w (the originals are in %s)", f.Path, err, dir)
		}
	}
	return dir, nil
}

// UndoResult says what an undo did to one file.
type UndoResult struct {
	Path   string `json:"path"`
	Action string `json:"action"` // restored, removed, stripped (changed since: memctl's entries taken out)
}

// Undo reverts the newest setup of agent recorded under backupRoot and
// drops its backup, so a second undo reverts the setup before it. It
// returns nil results when there is nothing to undo.
func Undo(agent, backupRoot string) ([]UndoResult, error) {
	dir, err := latestBackup(filepath.Join(backupRoot, agent))
	if err != nil || dir == "" {
		return nil, err
	}
	mb, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(mb, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "manifest.json"), err)
	}
	var out []UndoResult
	for _, e := range m.Entries {
		cur, exists, err := readFile(e.Path)
		if err != nil {
			return out, err
		}
		// Written and restored through a link, never over it: the file
		// may live in a dotfiles repository.
		target, err := linkTarget(e.Path)
		if err != nil {
			return out, err
		}
		switch {
		case exists && digest(cur) == e.Written && e.Existed:
			orig, err := os.ReadFile(filepath.Join(dir, e.Backup))
			if err != nil {
				return out, err
			}
			if err := writeAtomic(target, orig, fileMode(e.Path)); err != nil {
				return out, err
			}
			out = append(out, UndoResult{e.Path, "restored"})
		case exists && digest(cur) == e.Written:
			if err := os.Remove(target); err != nil {
				return out, err
			}
			out = append(out, UndoResult{e.Path, "removed"})
		case exists:
			// Changed since setup (the agent rewrites its own files):
			// restoring the backup would lose those changes.
			stripped, err := strip(e, cur)
			if err != nil {
				return out, fmt.Errorf("%s changed since setup and memctl's entries could not be taken out: %w", e.Path, err)
			}
			if !e.Existed && len(bytes.TrimSpace(stripped)) == 0 {
				// Setup created it and nothing else is left in it.
				if err := os.Remove(target); err != nil {
					return out, err
				}
				out = append(out, UndoResult{e.Path, "removed"})
				continue
			}
			if err := writeAtomic(target, stripped, fileMode(e.Path)); err != nil {
				return out, err
			}
			out = append(out, UndoResult{e.Path, "stripped"})
		}
	}
	return out, os.RemoveAll(dir)
}

func fileMode(path string) fs.FileMode {
	if st, err := os.Stat(path); err == nil {
		return st.Mode().Perm()
	}
	return 0o600
}

func strip(e ManifestFile, cur []byte) ([]byte, error) {
	if strings.HasSuffix(e.Path, ".toml") {
		return stripTOMLBlocks(cur), nil
	}
	return stripJSON(cur, e.Added)
}

// latestBackup is the newest backup folder of an agent ("" when none).
func latestBackup(dir string) (string, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	var names []string
	for _, e := range ents {
		if e.IsDir() {
			if _, err := os.Stat(filepath.Join(dir, e.Name(), "manifest.json")); err == nil {
				names = append(names, e.Name())
			}
		}
	}
	if len(names) == 0 {
		return "", nil
	}
	sort.Strings(names)
	return filepath.Join(dir, names[len(names)-1]), nil
}

// maxLinkHops bounds the links linkTarget follows, as the kernel does.
const maxLinkHops = 40

// linkTarget returns the file a write to path must replace so that path
// shows the new content: path itself, or, when path is a symbolic link
// (an agent config kept in a dotfiles repository), the file at the end of
// its links, which need not exist yet. Replacing the link itself with a
// regular file would cut the config off from the repository.
func linkTarget(path string) (string, error) {
	p := path
	for range maxLinkHops {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		to, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(p), to)
		}
		p = to
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}

// writeAtomic writes through a temporary file and a rename, so an agent
// reading its config never sees half a file.
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".memctl-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(name, mode)
	}
	if werr == nil {
		werr = os.Rename(name, path)
	}
	if werr != nil {
		os.Remove(name)
	}
	return werr
}
