// Package templates holds memctl's prompts and the read-path template,
// embedded in the binary. Every file can be overridden by a file of the
// same name in the folder set by [templates] dir in the config.
package templates

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

//go:embed *.md
var files embed.FS

// Get returns the named template: the file in overrideDir when that
// folder is set and holds it, else the embedded copy.
func Get(name, overrideDir string) (string, error) {
	if overrideDir != "" {
		b, err := os.ReadFile(filepath.Join(overrideDir, filepath.Base(name)))
		if err == nil {
			return string(b), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("template %s: %w", name, err)
		}
	}
	b, err := files.ReadFile(name)
	if err != nil {
		return "", fmt.Errorf("template %s: %w", name, err)
	}
	return string(b), nil
}
