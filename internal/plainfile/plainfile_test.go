package plainfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ReadFile gives what os.ReadFile gives, contents and errors, for a
// small, an empty, a large and a missing file, a folder, and a file that
// claims no size.
func TestReadFileAsOSReadFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.md")
	empty := filepath.Join(dir, "empty")
	large := filepath.Join(dir, "large")
	for name, data := range map[string][]byte{
		small: []byte("## Memory\n\n- one\n"),
		empty: nil,
		large: bytes.Repeat([]byte("0123456789abcdef"), 40000),
	} {
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{small, empty, large, filepath.Join(dir, "missing"), dir, "/proc/self/status"} {
		want, wantErr := os.ReadFile(name)
		got, err := ReadFile(name)
		if errString(err) != errString(wantErr) || errors.Is(err, fs.ErrNotExist) != errors.Is(wantErr, fs.ErrNotExist) {
			t.Errorf("ReadFile(%s) error %v, os.ReadFile %v", name, err, wantErr)
		}
		if strings.HasPrefix(name, "/proc/") {
			if wantErr == nil && !bytes.HasPrefix(got, []byte("Name:")) {
				t.Errorf("ReadFile(%s) = %q, want the whole file", name, got)
			}
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("ReadFile(%s) = %d bytes, os.ReadFile %d", name, len(got), len(want))
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
