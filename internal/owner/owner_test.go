package owner

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// deadPid starts a short-lived process, waits for it and returns its pid:
// a pid that certainly belongs to no live process right after.
func deadPid(t *testing.T) int {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("uses a POSIX shell")
	}
	c := exec.Command("/bin/sh", "-c", "exit 0")
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	return c.Process.Pid
}

func TestGone(t *testing.T) {
	me := self()
	dead := deadPid(t)
	withPid := func(pid int) string {
		id := ID()
		parts := strings.Split(id, "/")
		parts[2] = strconv.Itoa(pid)
		return strings.Join(parts, "/")
	}
	tests := []struct {
		name string
		id   string
		want bool
	}{
		{"this process", ID(), false},
		{"the parent, alive", withPid(os.Getppid()), false},
		{"an exited process on this host", withPid(dead), true},
		{"an exited pid on another host", strings.Replace(withPid(dead), "/"+me.host+"/", "/another-host.example/", 1), false},
		{"an exited pid in another pid namespace", withPid(dead) + "/ns-1234", me.ns == "1234"},
		{"not an owner id", "worker-1", false},
		{"no pid", "memctl/" + me.host + "//abcd", false},
		{"a bad namespace part", withPid(dead) + "/x", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Gone(tt.id); got != tt.want {
				t.Errorf("Gone(%q) = %v, want %v", tt.id, got, tt.want)
			}
		})
	}
}

func TestIDNamesThisProcess(t *testing.T) {
	id := ID()
	o, ok := parse(id)
	if !ok {
		t.Fatalf("parse(%q) failed", id)
	}
	if o != self() {
		t.Errorf("parse(%q) = %+v, want %+v", id, o, self())
	}
	if ID() == id {
		t.Errorf("two ids are equal: %q", id)
	}
	if got, want := Describe(id), "process "+strconv.Itoa(os.Getpid())+" on "+self().host; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
}

func TestTempGone(t *testing.T) {
	dead := deadPid(t)
	hash, _, _ := strings.Cut(TempTag(), "-")
	tests := []struct {
		name string
		want bool
	}{
		{TempTag() + "-123456", false},
		{hash + "-" + strconv.Itoa(os.Getppid()) + "-x", false},
		{hash + "-" + strconv.Itoa(dead) + "-123456", true},
		{"00000000-" + strconv.Itoa(dead) + "-123456", hash == "00000000"},
		{"123456789", false}, // an older memctl's name: age decides
		{"abc-def", false},
	}
	for _, tt := range tests {
		if got := TempGone(tt.name); got != tt.want {
			t.Errorf("TempGone(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}
