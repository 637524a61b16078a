package transcript

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// walkFiles visits dir recursively with one ReadDir per directory (no
// per-file stat beyond the matching regular files).
func WalkFiles(ctx context.Context, dir string, match func(string) bool, pick func(string, map[string]bool) bool, kind Kind, archived bool, fn func(File) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		// The source's own folder is checked before the walk
		// (sessions.CheckSource); one below it is reported to fn.
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fn(File{Kind: kind, Path: dir, Unreadable: err})
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
			if err := WalkFiles(ctx, p, match, pick, kind, arch, fn); err != nil {
				return err
			}
			continue
		}
		if !match(name) || (pick != nil && !pick(name, names)) {
			continue
		}
		info, ok := RegularInfo(e, p)
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
func RegularInfo(e fs.DirEntry, p string) (fs.FileInfo, bool) {
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
