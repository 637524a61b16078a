package uuidtext

import (
	"testing"
	"time"

	"github.com/google/uuid"
)

// The forms uuid.Parse takes and the ones it refuses, the ids Codex and
// Claude Code write among them.
var parseCases = []struct {
	in string
	ok bool
}{
	{"019a6c7e-1f2b-7c3d-8e4f-5a6b7c8d9e0f", true}, // Codex: version 7
	{"6f1d2c3b-4a59-4e8f-9d7c-6b5a4f3e2d1c", true}, // Claude Code: version 4
	{"c232ab00-9414-11ec-b3c8-9e6bdeced846", true}, // version 1
	{"1ec9414c-232a-6b00-b3c8-9e6bdeced846", true}, // version 6
	{"6F1D2C3B-4A59-4E8F-9D7C-6B5A4F3E2D1C", true},
	{"urn:uuid:6f1d2c3b-4a59-4e8f-9d7c-6b5a4f3e2d1c", true},
	{"URN:UUID:6f1d2c3b-4a59-4e8f-9d7c-6b5a4f3e2d1c", true},
	{"{6f1d2c3b-4a59-4e8f-9d7c-6b5a4f3e2d1c}", true},
	{"x6f1d2c3b-4a59-4e8f-9d7c-6b5a4f3e2d1cy", true}, // the outer two are not looked at
	{"6f1d2c3b4a594e8f9d7c6b5a4f3e2d1c", true},
	{"", false},
	{"rollout-2026-07-01T10-00-00", false},
	{"6f1d2c3b-4a59-4e8f-9d7c-6b5a4f3e2d1", false},
	{"6f1d2c3b-4a59-4e8f-9d7c-6b5a4f3e2d1g", false},
	{"6f1d2c3b+4a59-4e8f-9d7c-6b5a4f3e2d1c", false},
	{"urn:uuix:6f1d2c3b-4a59-4e8f-9d7c-6b5a4f3e2d1c", false},
	{"6f1d2c3b4a594e8f9d7c6b5a4f3e2d1z", false},
	{"6f1d2c3b-4a59-4e8f-9d7c-6b5a4f3e2d1cff", false},
}

func TestParseAgreesWithGoogleUUID(t *testing.T) {
	for _, c := range parseCases {
		got, ok := Parse(c.in)
		if ok != c.ok {
			t.Errorf("Parse(%q) ok = %v, want %v", c.in, ok, c.ok)
		}
		sameAsGoogleUUID(t, c.in, got, ok)
	}
}

func TestUnixTimeOfEachVersion(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
	}{
		{"019a6c7e-1f2b-7c3d-8e4f-5a6b7c8d9e0f", "2025-11-10T06:39:56.203Z"},
		{"c232ab00-9414-11ec-b3c8-9e6bdeced846", "2022-02-22T19:22:22Z"},
	} {
		u, ok := Parse(c.in)
		if !ok {
			t.Fatalf("Parse(%q) failed", c.in)
		}
		sameAsGoogleUUID(t, c.in, u, ok)
		if got := time.Unix(u.UnixTime()).UTC().Format(time.RFC3339Nano); got != c.want {
			t.Errorf("time of %s = %s, want %s", c.in, got, c.want)
		}
	}
}

// FuzzParse checks Parse, String, Version and UnixTime against
// github.com/google/uuid on any input: the same inputs taken, the same
// bytes, text and time read.
func FuzzParse(f *testing.F) {
	for _, c := range parseCases {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, ok := Parse(s)
		sameAsGoogleUUID(t, s, u, ok)
	})
}

func sameAsGoogleUUID(t *testing.T, in string, got UUID, ok bool) {
	t.Helper()
	want, err := uuid.Parse(in)
	if ok != (err == nil) {
		t.Fatalf("Parse(%q) ok = %v, uuid.Parse error = %v", in, ok, err)
	}
	if !ok {
		return
	}
	if got != UUID(want) {
		t.Fatalf("Parse(%q) = %x, uuid.Parse = %x", in, got, want)
	}
	if got.String() != want.String() {
		t.Errorf("String of %q = %s, uuid = %s", in, got.String(), want.String())
	}
	if got.Version() != int(want.Version()) {
		t.Errorf("Version of %q = %d, uuid = %d", in, got.Version(), want.Version())
	}
	sec, nsec := got.UnixTime()
	wsec, wnsec := want.Time().UnixTime()
	if sec != wsec || nsec != wnsec {
		t.Errorf("UnixTime of %q = %d, %d; uuid = %d, %d", in, sec, nsec, wsec, wnsec)
	}
}
