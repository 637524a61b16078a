package syncgit

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMachineIDIsMadeOnceAndSafe(t *testing.T) {
	file := filepath.Join(t.TempDir(), "sync", "machine")
	id, err := MachineID(file, func() (string, error) { return "Ada's MacBook Pro/../..", nil })
	if err != nil || !ValidMachineID(id) || id[:len("ada-s-macbook-pro-")] != "ada-s-macbook-pro-" {
		t.Fatalf("id %q, %v", id, err)
	}
	again, err := MachineID(file, func() (string, error) { return "other", nil })
	if err != nil || again != id {
		t.Errorf("second call: %q, %v", again, err)
	}
	os.WriteFile(file, []byte("../evil\n"), 0o600)
	if _, err := MachineID(file, nil); err == nil {
		t.Error("a machine file naming a path was accepted")
	}
}

func TestUnionLinesKeepsEveryRecordOnce(t *testing.T) {
	got := unionLines("h\na\nb\n", "h\na\nc\n\n")
	if got != "h\na\nb\nc\n" {
		t.Errorf("%q", got)
	}
}
