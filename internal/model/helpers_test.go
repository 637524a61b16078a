package model

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// v1Schema is the Phase 1 (v1) output schema from codex-memories.md 6.7.
const v1Schema = `{
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "rollout_summary": {"type": "string"},
    "rollout_slug": {"type": ["string", "null"]},
    "raw_memory": {"type": "string"}
  },
  "required": ["rollout_summary", "rollout_slug", "raw_memory"]
}`

const goodAnswer = `{"rollout_summary":"fixed the flaky test","rollout_slug":"flaky-test","raw_memory":"- run go test -count=1"}`

func testRequest() Request {
	return Request{
		Kind:            PurposeExtract,
		Model:           "test-model",
		ReasoningEffort: "low",
		System:          "You extract memories.",
		Input:           []string{"first evidence chunk", "second evidence chunk"},
		SchemaName:      "memory_stage1",
		Schema:          json.RawMessage(v1Schema),
	}
}

// reply is one scripted HTTP answer of a fakeServer.
type reply struct {
	status int
	header map[string]string
	body   string
	// hang makes the handler wait for the client to go away (or 5 s)
	// before answering, to exercise timeouts and cancellation.
	hang bool
}

// seenRequest is what the fake server received.
type seenRequest struct {
	method string
	path   string
	header http.Header
	body   map[string]any
}

// fakeServer is a loopback HTTP server speaking a provider's wire format
// from a script: request n gets replies[n], the last reply repeating.
type fakeServer struct {
	*httptest.Server
	mu      sync.Mutex
	replies []reply
	seen    []seenRequest
}

// newTestProvider builds the provider that base names (kind, address,
// environment) talking to fs through its client, sleeping through sl and
// reading the fixed clock; mod, when given, changes the options last.
func newTestProvider(t *testing.T, fs *fakeServer, sl *fakeSleep, base Options, mod func(*Options)) Provider {
	t.Helper()
	base.HTTPClient, base.Sleep, base.Now = fs.Client(), sl.sleep, func() time.Time { return fixedNow }
	if mod != nil {
		mod(&base)
	}
	p, err := New(base)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func newFakeServer(t *testing.T, replies ...reply) *fakeServer {
	t.Helper()
	fs := &fakeServer{replies: replies}
	fs.Server = httptest.NewServer(http.HandlerFunc(fs.handle))
	t.Cleanup(fs.Close)
	return fs
}

func (fs *fakeServer) handle(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	fs.mu.Lock()
	n := len(fs.seen)
	fs.seen = append(fs.seen, seenRequest{method: r.Method, path: r.URL.Path, header: r.Header.Clone(), body: body})
	rep := fs.replies[min(n, len(fs.replies)-1)]
	fs.mu.Unlock()

	if rep.hang {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
		return
	}
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	status := rep.status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, rep.body)
}

func (fs *fakeServer) requests() []seenRequest {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return append([]seenRequest(nil), fs.seen...)
}

// fakeSleep records the delays it was asked to wait and returns at once.
type fakeSleep struct {
	mu     sync.Mutex
	delays []time.Duration
}

func (f *fakeSleep) sleep(ctx context.Context, d time.Duration) error {
	f.mu.Lock()
	f.delays = append(f.delays, d)
	f.mu.Unlock()
	return ctx.Err()
}

func (f *fakeSleep) got() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.delays...)
}

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

var fixedNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// closedURL returns an http URL on loopback where nothing listens.
func closedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// dig walks a decoded JSON document by keys and indexes.
func dig(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("dig %v: %T is not an object", path, v)
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				t.Fatalf("dig %v: %T has no index %d", path, v, k)
			}
			v = a[k]
		}
	}
	return v
}
