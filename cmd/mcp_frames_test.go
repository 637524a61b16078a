package cmd

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/mcpserver"
)

// frameReply is what a test expects back for a malformed frame: an error
// with this code, for this id ("null" for none).
type frameReply struct {
	id   string
	code int
}

// TestMCPSurvivesMalformedFrames: one bad line from
// the client ended `memctl mcp` (exit 1, no answer). Each malformed frame
// below goes to the real process; each must get its JSON-RPC error (or,
// for a notification or a blank line, nothing), and a ping sent after it
// must still be answered. At the end the server exits 0 on EOF with
// nothing on stderr.
func TestMCPSurvivesMalformedFrames(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	if err := os.MkdirAll(filepath.Join(home, "memories"), 0o700); err != nil {
		t.Fatal(err)
	}
	deep := `{"jsonrpc":"2.0","id":"deep","method":"ping","params":{"x":` + strings.Repeat("[", 1100) + strings.Repeat("]", 1100) + `}}`
	oversize := `{"jsonrpc":"2.0","id":"big","method":"ping","params":{"x":"` + strings.Repeat("a", mcpserver.MaxFrameBytes) + `"}}`
	cases := []struct {
		name  string
		frame string
		want  []frameReply // errors expected, in any order
		batch int          // >0: the answer is one array of this many members
	}{
		{name: "not JSON", frame: `not json`, want: []frameReply{{"null", -32700}}},
		{name: "cut short", frame: `{"jsonrpc":"2.0","id":2,"method":"ping"`, want: []frameReply{{"null", -32700}}},
		{name: "trailing data", frame: `{"jsonrpc":"2.0","id":3,"method":"ping"} trailing`, want: []frameReply{{"null", -32700}}},
		{name: "id an object", frame: `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, want: []frameReply{{"null", -32600}}},
		{name: "id a boolean", frame: `{"jsonrpc":"2.0","id":true,"method":"ping"}`, want: []frameReply{{"null", -32600}}},
		{name: "id a fraction", frame: `{"jsonrpc":"2.0","id":2.5,"method":"ping"}`, want: []frameReply{{"null", -32600}}},
		{name: "id too large to keep", frame: `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, want: []frameReply{{"null", -32600}}},
		{name: "id null", frame: `{"jsonrpc":"2.0","id":null,"method":"ping"}`, want: []frameReply{{"null", -32600}}},
		{name: "method a number", frame: `{"jsonrpc":"2.0","id":9,"method":5}`, want: []frameReply{{"9", -32600}}},
		{name: "params a string", frame: `{"jsonrpc":"2.0","id":10,"method":"tools/list","params":"x"}`, want: []frameReply{{"10", -32602}}},
		{name: "wrong version", frame: `{"jsonrpc":"1.0","id":11,"method":"ping"}`, want: []frameReply{{"11", -32600}}},
		{name: "no version", frame: `{"id":12,"method":"ping"}`, want: []frameReply{{"12", -32600}}},
		{name: "no method", frame: `{"jsonrpc":"2.0","id":13}`, want: []frameReply{{"null", -32600}}},
		{name: "a response with a bad error", frame: `{"jsonrpc":"2.0","id":14,"error":"boom"}`, want: []frameReply{{"null", -32600}}},
		{name: "a number", frame: `42`, want: []frameReply{{"null", -32600}}},
		{name: "a string", frame: `"ping"`, want: []frameReply{{"null", -32600}}},
		{name: "null", frame: `null`, want: []frameReply{{"null", -32600}}},
		{name: "nested too deep", frame: deep, want: []frameReply{{`"deep"`, -32600}}},
		{name: "empty batch", frame: `[]`, want: []frameReply{{"null", -32600}}},
		{name: "batch of numbers", frame: `[1,2]`, want: []frameReply{{"null", -32600}, {"null", -32600}}, batch: 2},
		{name: "batch with a bad member and a duplicate id", frame: `[{"jsonrpc":"2.0","id":"b1","method":"ping"},5,{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":"b1","method":"ping"}]`,
			want: []frameReply{{`"b1"`, 0}, {"null", -32600}, {"null", -32600}}, batch: 3},
		{name: "notification with bad params", frame: `{"jsonrpc":"2.0","method":"notifications/initialized","params":7}`},
		{name: "unknown notification", frame: `{"jsonrpc":"2.0","method":"no/such/notification"}`},
		{name: "blank line", frame: ``},
		{name: "frame over the cap", frame: oversize, want: []frameReply{{"null", -32600}}},
	}

	p := cliProcess([]string{"MEMCTL_HOME=" + home}, "mcp", "--read-only")
	stdin, err := p.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := p.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	p.Stderr = &stderr
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	send := func(s string) {
		if _, err := io.WriteString(stdin, s+"\n"); err != nil {
			t.Fatalf("write: %v (stderr: %s)", err, stderr.String())
		}
	}
	// next returns the next answer, failing the test if none comes.
	next := func(what string) string {
		select {
		case l, ok := <-lines:
			if !ok {
				p.Wait()
				t.Fatalf("%s: the server ended (stderr: %s)", what, stderr.String())
			}
			return l
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: no answer", what)
		}
		return ""
	}

	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"frames","version":"v0"}}}`)
	if l := next("initialize"); !strings.Contains(l, `"serverInfo"`) {
		t.Fatalf("initialize: %s", l)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	type member struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	for i, tc := range cases {
		pingID := fmt.Sprintf(`"after-%d"`, i)
		send(tc.frame)
		send(`{"jsonrpc":"2.0","id":` + pingID + `,"method":"ping"}`)
		want := append([]frameReply(nil), tc.want...)
		pinged := false
		for !pinged || len(want) > 0 {
			l := next(tc.name)
			var got []member
			if strings.HasPrefix(l, "[") {
				if err := json.Unmarshal([]byte(l), &got); err != nil || len(got) != tc.batch {
					t.Errorf("%s: answer %s, want an array of %d", tc.name, l, tc.batch)
				}
			} else {
				var m member
				if err := json.Unmarshal([]byte(l), &m); err != nil {
					t.Fatalf("%s: answer %q is not JSON", tc.name, l)
				}
				got = []member{m}
			}
			for _, m := range got {
				code := 0
				if m.Error != nil {
					code = m.Error.Code
				}
				if string(m.ID) == pingID && code == 0 {
					pinged = true
					continue
				}
				found := false
				for j, w := range want {
					if w.id == string(m.ID) && w.code == code {
						want = append(want[:j], want[j+1:]...)
						found = true
						break
					}
				}
				if !found {
					t.Errorf("%s: unexpected answer %s (want %v)", tc.name, l, tc.want)
				}
			}
			if t.Failed() {
				t.FailNow()
			}
		}
	}
	stdin.Close()
	for l := range lines {
		t.Errorf("answer after the last ping: %s", l)
	}
	if err := p.Wait(); err != nil {
		t.Errorf("memctl mcp: %v (stderr: %s)", err, stderr.String())
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr: %s", stderr.String())
	}
}
