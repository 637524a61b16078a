package summary

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const testPayload = `{"session_id":"s1","cwd":"/home/dev/src/recipes","hook_event_name":"SessionStart"}`

// A payload on a pipe, as the agents send it, is read to its end; one on
// a pipe nobody closes is late; a file and any other reader are read too.
func TestHookPayloadFromEachKindOfStdin(t *testing.T) {
	pipe := func(t *testing.T, payload string, closeIt bool) *os.File {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close(); w.Close() })
		if _, err := w.WriteString(payload); err != nil {
			t.Fatal(err)
		}
		if closeIt {
			w.Close()
		}
		return r
	}
	file := filepath.Join(t.TempDir(), "payload.json")
	if err := os.WriteFile(file, []byte(testPayload), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()

	for _, c := range []struct {
		name        string
		stdin       func(t *testing.T) any
		wantPayload string
		wantCwd     string
		late        bool
	}{
		{name: "pipe", stdin: func(t *testing.T) any { return pipe(t, testPayload, true) }, wantPayload: testPayload, wantCwd: "/home/dev/src/recipes"},
		{name: "pipe, not JSON", stdin: func(t *testing.T) any { return pipe(t, "not json", true) }, wantPayload: "not json"},
		{name: "pipe, empty", stdin: func(t *testing.T) any { return pipe(t, "", true) }},
		{name: "pipe left open", stdin: func(t *testing.T) any { return pipe(t, testPayload, false) }, late: true},
		{name: "file", stdin: func(*testing.T) any { return f }, wantPayload: testPayload, wantCwd: "/home/dev/src/recipes"},
		{name: "null device", stdin: func(*testing.T) any { return devNull }},
		{name: "reader", stdin: func(*testing.T) any { return strings.NewReader(testPayload) }, wantPayload: testPayload, wantCwd: "/home/dev/src/recipes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			const wait = 200 * time.Millisecond
			var got []byte
			var cwd string
			start := time.Now()
			switch r := c.stdin(t).(type) {
			case *os.File:
				got, cwd = hookPayload(r, wait)
			case *strings.Reader:
				got, cwd = hookPayload(r, wait)
			}
			took := time.Since(start)
			if string(got) != c.wantPayload || cwd != c.wantCwd {
				t.Errorf("hookPayload = %q, %q; want %q, %q", got, cwd, c.wantPayload, c.wantCwd)
			}
			if c.late && (got != nil || took < wait) {
				t.Errorf("a payload that never ends: got %q after %v, want nothing after %v", got, took, wait)
			}
		})
	}
}

// A pipe's payload beyond maxHookPayload is cut there, as the reader of
// any other stdin cuts it.
func TestHookPayloadIsBounded(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	big := bytes.Repeat([]byte("x"), maxHookPayload+5000)
	go func() {
		w.Write(big)
		w.Close()
	}()
	got, ok := readWithin(r, 5*time.Second)
	if !ok || len(got) != maxHookPayload {
		t.Fatalf("read %d bytes (ok %v), want the first %d", len(got), ok, maxHookPayload)
	}
	other, ok := readWithin(bytes.NewReader(big), 5*time.Second)
	if !ok || !bytes.Equal(got, other) {
		t.Fatalf("a pipe gave %d bytes, a reader %d", len(got), len(other))
	}
}
