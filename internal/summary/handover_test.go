package summary

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// The program beside another is an executable file of that name in the
// same folder: not a folder, not a file that cannot run, not one
// elsewhere.
func TestProgramBeside(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the executable bit is Unix's; Windows runs any .exe")
	}
	dir := t.TempDir()
	memctl := filepath.Join(dir, "memctl")
	lean := filepath.Join(dir, "memctl-summary")
	if err := os.WriteFile(memctl, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := ProgramBeside(memctl); got != "" {
		t.Errorf("nothing beside memctl: got %q", got)
	}
	if err := os.WriteFile(lean, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := ProgramBeside(memctl); got != "" {
		t.Errorf("a memctl-summary that cannot run: got %q", got)
	}
	if err := os.Chmod(lean, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := ProgramBeside(memctl); got != lean {
		t.Errorf("ProgramBeside(%q) = %q, want %q", memctl, got, lean)
	}
	if got := MemctlBeside(lean); got != memctl {
		t.Errorf("MemctlBeside(%q) = %q, want %q", lean, got, memctl)
	}
	if got := ProgramBeside(filepath.Join(t.TempDir(), "memctl")); got != "" {
		t.Errorf("memctl in another folder: got %q", got)
	}
	if err := os.Remove(memctl); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(memctl, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := MemctlBeside(lean); got != "" {
		t.Errorf("a folder named memctl: got %q", got)
	}
}
