package transcript

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrLinkOutside is the reason a transcript is skipped when it is a
// symbolic link to something outside its source folder. An agent, or whatever runs in its sandbox, can write its own session
// folder; a link there must not make memctl read, index and send to a
// model a file the agent could not read (/etc/shadow, an SSH key).
var ErrLinkOutside = errors.New("a symbolic link to a file outside the source folder: not followed")

// Within reports whether path lies in dir (both cleaned, links resolved).
func Within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// RealRoot is dir with its symbolic links resolved, or dir as it is when
// it cannot be resolved.
func RealRoot(dir string) string {
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		return r
	}
	return filepath.Clean(dir)
}

// WalkFiles visits dir recursively with one ReadDir per directory (no
// per-file stat beyond the matching regular files). Links to folders are
// not followed; a link to a file is followed only inside dir, and one
// leading out is passed to fn as a File with Skipped set.
func WalkFiles(ctx context.Context, dir string, match func(string) bool, pick func(string, map[string]bool) bool, kind Kind, archived bool, fn func(File) error) error {
	return walkFiles(ctx, dir, RealRoot(dir), match, pick, kind, archived, fn)
}

func walkFiles(ctx context.Context, dir, root string, match func(string) bool, pick func(string, map[string]bool) bool, kind Kind, archived bool, fn func(File) error) error {
	ents, err := ReadSourceDir(ctx, dir, kind, fn)
	if err != nil {
		return err
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
			if err := walkFiles(ctx, p, root, match, pick, kind, arch, fn); err != nil {
				return err
			}
			continue
		}
		if !match(name) || (pick != nil && !pick(name, names)) {
			continue
		}
		info, err := RegularInfo(e, p, root)
		if errors.Is(err, ErrLinkOutside) {
			if err := fn(File{Kind: kind, Path: p, Skipped: err}); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			continue
		}
		if err := fn(File{Kind: kind, Path: p, Size: info.Size(), ModTime: info.ModTime(), Archived: archived}); err != nil {
			return err
		}
	}
	return nil
}

// ReadSourceDir lists a folder of a walk through a source: one that is
// gone lists nothing, and one that cannot be read lists nothing and is
// passed to fn as an Unreadable File (the source's own folder is checked
// before the walk, by sessions.CheckSource). The error is ctx's or fn's.
func ReadSourceDir(ctx context.Context, dir string, kind Kind, fn func(File) error) ([]fs.DirEntry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fn(File{Kind: kind, Path: dir, Unreadable: err})
	}
	return ents, nil
}

// errNotRegular: a folder, a device, a FIFO, a dangling link.
var errNotRegular = errors.New("not a regular file")

// RegularInfo stats a directory entry of a folder under root (the source
// folder, links resolved): a regular file, or a symbolic link to a regular
// file inside root. A link that leads out of root is ErrLinkOutside, and
// is not followed further than resolving it; anything else that is not a
// regular file (folders, devices, dangling links) is errNotRegular.
func RegularInfo(e fs.DirEntry, p, root string) (fs.FileInfo, error) {
	if e.Type()&fs.ModeSymlink == 0 {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			return nil, errNotRegular
		}
		return info, nil
	}
	return LinkedInfo(p, root)
}

// LinkedInfo stats p, which may be a symbolic link, as RegularInfo does.
func LinkedInfo(p, root string) (fs.FileInfo, error) {
	target, err := filepath.EvalSymlinks(p)
	if err != nil {
		return nil, errNotRegular
	}
	if !Within(root, target) {
		return nil, ErrLinkOutside
	}
	info, err := os.Stat(target)
	if err != nil || !info.Mode().IsRegular() {
		return nil, errNotRegular
	}
	return info, nil
}
