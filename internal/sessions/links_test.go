package sessions

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// TestLinksStayInsideTheSource: a transcript that is
// a link is followed only inside its source folder (itself reached through
// a link here), at discovery and again when it is read.
func TestLinksStayInsideTheSource(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	outside := filepath.Join(dir, "outside")
	for _, d := range []string{filepath.Join(real, "data"), outside} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string) {
		if err := os.WriteFile(p, []byte(`{"type":"session","id":"x"}`+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(real, "plain.jsonl"))
	write(filepath.Join(real, "data", "kept.txt"))
	write(filepath.Join(outside, "secret.jsonl"))
	src := filepath.Join(dir, "src")
	for link, target := range map[string]string{
		src:                              real,
		filepath.Join(real, "in.jsonl"):  filepath.Join("data", "kept.txt"),
		filepath.Join(real, "out.jsonl"): filepath.Join(outside, "secret.jsonl"),
		filepath.Join(real, "up.jsonl"):  filepath.Join("..", "outside", "secret.jsonl"),
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Skipf("symlinks: %v", err)
		}
	}
	var read, skipped []string
	err := Discover(context.Background(), Source{Kind: KindJSONL, Path: src}, func(f File) error {
		switch {
		case errors.Is(f.Skipped, ErrLinkOutside):
			skipped = append(skipped, filepath.Base(f.Path))
		case f.Skipped == nil && f.Unreadable == nil:
			read = append(read, filepath.Base(f.Path))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(read)
	sort.Strings(skipped)
	if len(read) != 2 || read[0] != "in.jsonl" || read[1] != "plain.jsonl" {
		t.Errorf("read %v, want in.jsonl and plain.jsonl", read)
	}
	if len(skipped) != 2 || skipped[0] != "out.jsonl" || skipped[1] != "up.jsonl" {
		t.Errorf("skipped %v, want out.jsonl and up.jsonl", skipped)
	}

	roots := SourceRoots([]Source{{Kind: KindJSONL, Path: src}})
	for name, want := range map[string]error{"plain.jsonl": nil, "in.jsonl": nil, "out.jsonl": ErrLinkOutside, "up.jsonl": ErrLinkOutside} {
		if err := CheckLinks(File{Path: filepath.Join(src, name)}, roots); !errors.Is(err, want) || (want == nil) != (err == nil) {
			t.Errorf("CheckLinks(%s) = %v, want %v", name, err, want)
		}
	}
	// A file reached without a link is not the rule's business, wherever it is.
	if err := CheckLinks(File{Path: filepath.Join(outside, "secret.jsonl")}, roots); err != nil {
		t.Errorf("a plain path: %v", err)
	}
	// A related file counts too.
	if err := CheckLinks(File{Path: filepath.Join(src, "plain.jsonl"), Related: []string{filepath.Join(src, "out.jsonl")}}, roots); !errors.Is(err, ErrLinkOutside) {
		t.Errorf("a related link out: %v", err)
	}
}
