package consolidate

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/golden"
)

// goldenFile compares got with testdata/<name>; MEMCTL_UPDATE=1 rewrites it.
func goldenFile(t *testing.T, name, got string) {
	t.Helper()
	golden.File(t, filepath.Join("testdata", name), got)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// testNow is the fixed time of tests that need no clock.
var testNow = time.Unix(1785840059, 0)
