package mcpserver

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"
)

// serveLines runs the server over the stdio framing with in as the
// client's input and returns everything it wrote.
func serveLines(t testing.TB, in io.Reader) string {
	t.Helper()
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := Serve(ctx, Options{Root: t.TempDir(), Version: "test"}, Stdio(in, &out))
	if err != nil && ctx.Err() != nil {
		t.Fatalf("serve: %v", err)
	}
	return out.String()
}

// filler yields n bytes of 'a'.
type filler struct{ n int64 }

func (f *filler) Read(p []byte) (int, error) {
	if f.n == 0 {
		return 0, io.EOF
	}
	k := int64(len(p))
	k = min(k, f.n)
	for i := range p[:k] {
		p[i] = 'a'
	}
	f.n -= k
	return int(k), nil
}

// TestOversizeFrameIsSkippedNotHeld: a line of 256 MiB is answered with
// an error and the request after it is served, and reading it allocates
// about the cap, not the line.
func TestOversizeFrameIsSkippedNotHeld(t *testing.T) {
	const size = 256 << 20
	in := io.MultiReader(
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"`),
		&filler{n: size},
		strings.NewReader("\"}}\n"+`{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n"),
	)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out := serveLines(t, in)
	runtime.ReadMemStats(&after)
	if !strings.Contains(out, `"id":null,"error":{"code":-32600,"message":"message longer than 16777216 bytes`) {
		t.Errorf("no error for the oversize frame:\n%.300s", out)
	}
	if !strings.Contains(out, `{"jsonrpc":"2.0","id":2,"result":{}}`) {
		t.Errorf("the request after it was not answered:\n%.300s", out)
	}
	if strings.Contains(out, `"id":1,`) {
		t.Errorf("the oversize request was answered as if read:\n%.300s", out)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4*MaxFrameBytes {
		t.Errorf("reading a %d MiB line allocated %d MiB: it is held, not skipped", size>>20, alloc>>20)
	}
}

// FuzzFrames: whatever the line, the server answers the ping after it.
func FuzzFrames(f *testing.F) {
	for _, s := range []string{
		`not json`, `{`, `[]`, `[1]`, `[[]]`, `{}`, `null`, `"x"`, `42`,
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"1","method":"ping","params":[]}`,
		`{"jsonrpc":"2.0","id":[1],"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":1}}`,
		`{"JSONRPC":"2.0","ID":3,"METHOD":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"id":{},"method":"ping"}`,
		`[{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","id":7,"method":"ping"}]`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x"}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, frame string) {
		if strings.ContainsAny(frame, "\n") {
			frame = strings.ReplaceAll(frame, "\n", " ")
		}
		ping := `{"jsonrpc":"2.0","id":"fuzz-ping","method":"ping"}`
		out := serveLines(t, strings.NewReader(frame+"\n"+ping+"\n"))
		if !strings.Contains(out, `{"jsonrpc":"2.0","id":"fuzz-ping","result":{}}`) {
			t.Errorf("after %q the ping was not answered:\n%s", frame, out)
		}
	})
}
