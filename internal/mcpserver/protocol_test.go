package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const initializeFrame = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// answers parses the server's output lines by id (a JSON string of it).
func answers(t *testing.T, out string) map[string]map[string]json.RawMessage {
	t.Helper()
	got := map[string]map[string]json.RawMessage{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("an answer that is not JSON: %.200s", line)
		}
		got[string(m["id"])] = m
	}
	return got
}

func frame(id, method string, params any) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return string(b)
}

// TestProtocolErrorsHaveCodesAndEchoLittle: every error answer carries a
// JSON-RPC code (never 0), and no answer repeats more than a short
// prefix of a long name, path or value the request sent.
func TestProtocolErrorsHaveCodesAndEchoLittle(t *testing.T) {
	huge := strings.Repeat("p", 10<<20)
	lines := []string{
		frame("early", "tools/list", map[string]any{}),
		initializeFrame,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		strings.Replace(initializeFrame, `"id":"init"`, `"id":"again"`, 1),
		frame("method", strings.Repeat("m", 1<<20), map[string]any{}),
		frame("tool", "tools/call", map[string]any{"name": "no-such-" + huge, "arguments": map[string]any{}}),
		frame("path", "tools/call", map[string]any{"name": "read", "arguments": map[string]any{"path": huge}}),
		frame("project", "tools/call", map[string]any{"name": "search", "arguments": map[string]any{"query": "x", "project": huge}}),
		frame("type", "tools/call", map[string]any{"name": "search", "arguments": map[string]any{"query": []string{huge}}}),
		frame("resource", "resources/read", map[string]any{"uri": "file:///" + huge}),
		`{"jsonrpc":"2.0","id":"` + strings.Repeat("i", 4096) + `","method":"ping"}`,
		frame("ping", "ping", nil),
	}
	out := serveLines(t, strings.NewReader(strings.Join(lines, "\n")+"\n"))
	for _, line := range strings.Split(out, "\n") {
		if len(line) > 2048 && !strings.Contains(line, `"id":"init"`) {
			t.Errorf("an answer of %d bytes repeats the request: %.200s…", len(line), line)
		}
	}
	got := answers(t, out)
	code := func(id string) int64 {
		t.Helper()
		var e struct {
			Code *int64 `json:"code"`
		}
		a, ok := got[`"`+id+`"`]
		if !ok || json.Unmarshal(a["error"], &e) != nil || e.Code == nil {
			t.Errorf("%s: no error answer: %v", id, a)
			return 0
		}
		return *e.Code
	}
	for id, want := range map[string]int64{
		"early":    jsonrpc.CodeInvalidRequest, // a call before initialize
		"again":    jsonrpc.CodeInvalidRequest, // a second initialize
		"method":   jsonrpc.CodeMethodNotFound,
		"tool":     jsonrpc.CodeInvalidParams,
		"resource": jsonrpc.CodeInvalidParams, // a resource that is not there, as the SDK answers it
	} {
		if c := code(id); c != want {
			t.Errorf("%s: code %d, want %d", id, c, want)
		}
	}
	if a := got["null"]; !strings.Contains(string(a["error"]), `"code":-32600`) {
		t.Errorf("a 4 KiB id: %s", a["error"])
	}
	for _, id := range []string{"path", "project", "type"} {
		var res mcp.CallToolResult
		if err := json.Unmarshal(got[`"`+id+`"`]["result"], &res); err != nil || !res.IsError {
			t.Errorf("%s: want a tool error, got %s", id, got[`"`+id+`"`])
		}
	}
	if _, ok := got[`"ping"`]; !ok {
		t.Error("the ping after them was not answered")
	}
}

// TestARealClientGetsBoundedErrors: the official SDK's client, over the
// stdio framing, reads errors it can act on: a code for each kind, the
// argument named, no megabytes quoted back.
func TestARealClientGetsBoundedErrors(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	clientR, serverW := io.Pipe()
	serverR, clientW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, Options{Root: t.TempDir(), Version: "test"}, Stdio(serverR, serverW)) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bounded-test", Version: "1"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: clientR, Writer: clientW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		cs.Close()
		serverR.Close()
		<-done
	}()
	huge := strings.Repeat("q", 10<<20)

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": huge}})
	if err != nil || !res.IsError {
		t.Fatalf("read of a 10 MiB path: %v %+v", err, res)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; len(text) > maxMessage || !strings.Contains(text, "path is 10485760 bytes long") {
		t.Errorf("read of a 10 MiB path: %.300s", text)
	}

	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "no-such-tool-" + huge[:1<<20]})
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || len(we.Message) > maxMessage || !strings.Contains(we.Message, "no-such-tool-qqq") {
		t.Errorf("an unknown tool: %v", err)
	}

	// A path no file system takes: an I/O error, a protocol error whose
	// message quotes a prefix of the path.
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": strings.Repeat("n", 3000) + ".md"}})
	if !errors.As(err, &we) || we.Code != jsonrpc.CodeInternalError || len(we.Message) > 400 || !strings.Contains(we.Message, "bytes) file name too long") {
		t.Errorf("an over-long file name: %v", err)
	}
}

func TestBoundedKeepsShortWordsAndCutsLongOnes(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`unknown tool "x"`, `unknown tool "x"`},
		{"a\x00b", "a\x00b"},
		{`method not found: "` + strings.Repeat("m", 1000) + `"`, `method not found: "` + strings.Repeat("m", maxEchoWord-33) + `…(1002 bytes)`},
	} {
		if got := bounded(tt.in); got != tt.want {
			t.Errorf("bounded(%.40q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := bounded(strings.Repeat("word ", 1000)); len(got) > maxMessage+len(" (cut)")+len("…") || !strings.HasSuffix(got, "(cut)") {
		t.Errorf("a long message of short words: %d bytes, %q", len(got), got[len(got)-20:])
	}
}
