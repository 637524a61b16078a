package memfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// components splits a request path into its names, dropping empty and "."
// parts. It rejects what would leave the root ("..", absolute paths, drive
// prefixes) and reports hidden names as not found, before touching the disk.
func components(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if strings.HasPrefix(p, "/") || filepath.IsAbs(p) || filepath.VolumeName(p) != "" || hasDrivePrefix(p) ||
		(filepath.Separator == '\\' && strings.HasPrefix(p, `\`)) {
		return nil, invalidPath(p, "must stay within the memories root")
	}
	parts := strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == filepath.Separator })
	names := parts[:0]
	for _, c := range parts {
		if c == ".." {
			return nil, invalidPath(p, "must stay within the memories root")
		}
		if c != "." {
			names = append(names, c)
		}
	}
	for _, c := range names {
		if strings.HasPrefix(c, ".") {
			return nil, notFound(p)
		}
	}
	return names, nil
}

// hasDrivePrefix spots "C:" style prefixes on every OS, so a path that would
// escape the root on Windows is refused everywhere.
func hasDrivePrefix(p string) bool {
	return len(p) >= 2 && p[1] == ':' && (p[0] >= 'a' && p[0] <= 'z' || p[0] >= 'A' && p[0] <= 'Z')
}

// resolve maps a request path to a file system path under root, walking it
// one name at a time: an existing symlink is refused, and so is going
// through something that is not a directory. A missing name ends the walk;
// the caller then reports not found. It returns the absolute path and the
// display path ("/"-joined, relative to root).
func resolve(root, p string) (abs, rel string, err error) {
	names, err := components(p)
	if err != nil {
		return "", "", err
	}
	abs = root
	for i, name := range names {
		abs = filepath.Join(abs, name)
		info, err := os.Lstat(abs)
		if errors.Is(err, fs.ErrNotExist) {
			abs = filepath.Join(append([]string{abs}, names[i+1:]...)...)
			break
		}
		if err != nil {
			return "", "", fmt.Errorf("memories: %w", err)
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return "", "", invalidPath(strings.Join(names[:i+1], "/"), "must not be a symlink")
		}
		if i+1 < len(names) && !info.IsDir() {
			return "", "", invalidPath(p, "traverses through a non-directory path component")
		}
	}
	return abs, strings.Join(names, "/"), nil
}

// lstatStart looks at the resolved starting point of a request: missing is
// not found, a symlink (the root itself may be one) is refused.
func lstatStart(abs, rel, requested string) (fs.FileInfo, error) {
	info, err := os.Lstat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, notFound(displayRequested(requested))
	}
	if err != nil {
		return nil, fmt.Errorf("memories: %w", err)
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		return nil, invalidPath(displayRequested(rel), "must not be a symlink")
	}
	return info, nil
}

func displayRequested(p string) string {
	if p == "" {
		return "."
	}
	return p
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// parseCursor reads a cursor: a decimal offset into the full result list.
func parseCursor(cursor string) (int, error) {
	if cursor == "" {
		return 0, nil
	}
	s := strings.TrimPrefix(cursor, "+")
	if s == "" || s[0] < '0' || s[0] > '9' {
		return 0, invalidCursor(cursor, "must be a non-negative integer")
	}
	n, err := strconv.ParseUint(s, 10, 31)
	if err != nil {
		return 0, invalidCursor(cursor, "must be a non-negative integer")
	}
	return int(n), nil
}

func clamp(v, def, lo, hi int) int {
	if v == 0 {
		v = def
	}
	return max(lo, min(v, hi))
}
