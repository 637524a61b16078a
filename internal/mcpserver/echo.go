package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/memctl/memctl/internal/textcut"
)

// What an answer may repeat of the request it answers. An error names
// the path, tool, method or value it is about, and the SDK's own errors
// quote them whole: a client (or a model that read a hostile page) that
// sends a megabyte-long method name would get the megabyte back, and a
// model that reads the answer the text that came with it. So every error
// the server sends, and the text of every tool error, keeps at most a
// short prefix of each long word and a bounded whole; the JSON encoding
// escapes what it keeps.
const (
	// maxEchoWord bounds one run of characters without a space (a path,
	// a quoted value).
	maxEchoWord = 96
	// maxMessage bounds a whole error message or tool error text.
	maxMessage = 1024
	// maxArgBytes bounds a string argument of a tool that names
	// something (a path, a project, a mode, a cursor, a file name): the
	// answer would repeat it, and no such name is longer.
	maxArgBytes = 4096
)

// bounded cuts every word of s longer than maxEchoWord to a prefix that
// says how long it was, and s to maxMessage.
func bounded(s string) string {
	if len(s) <= maxEchoWord && !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	var b strings.Builder
	for len(s) > 0 && b.Len() < maxMessage {
		i := strings.IndexFunc(s, unicode.IsSpace)
		if i < 0 {
			i = len(s)
		}
		word := s[:i]
		if len(word) > maxEchoWord {
			word = textcut.Head(word, maxEchoWord-32) + fmt.Sprintf("(%d bytes)", len(word))
		}
		b.WriteString(word)
		if i < len(s) {
			b.WriteByte(' ')
			s = strings.TrimLeftFunc(s[i:], unicode.IsSpace)
		} else {
			s = ""
		}
	}
	out := b.String()
	if len(out) > maxMessage || s != "" {
		out = textcut.Head(out, maxMessage) + " (cut)"
	}
	return out
}

// checkArgs refuses a tool argument that names something and is longer
// than maxArgBytes, naming the argument but not repeating it.
func checkArgs(args map[string]string) error {
	for _, name := range slices.Sorted(maps.Keys(args)) {
		if n := len(args[name]); n > maxArgBytes {
			return requestErrorf("%s is %d bytes long; at most %d", name, n, maxArgBytes)
		}
	}
	return nil
}

// codedError is an error answer as it goes out: a JSON-RPC code that says
// what kind of error it is, and a bounded message and data. The SDK
// answers some errors with code 0, which JSON-RPC does not define (a
// request before initialize, a second initialize): such an error is an
// invalid request when the session is not initialized or the method is
// initialize, an internal error otherwise.
func codedError(err error, method string, initialized bool) *jsonrpc.Error {
	// The SDK wraps a coded error in one that names the method or tool:
	// the code is the inner one's, the message the outer one's (as the
	// SDK itself encodes it).
	out := &jsonrpc.Error{Message: bounded(err.Error())}
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		out.Code = we.Code
		if len(we.Data) > 0 && len(we.Data) <= maxEchoWord {
			out.Data = we.Data
		}
	}
	if out.Code == 0 {
		out.Code = jsonrpc.CodeInternalError
		if !initialized || method == methodInitialize {
			out.Code = jsonrpc.CodeInvalidRequest
		}
	}
	return out
}

// boundToolError bounds the text of a tool result marked isError (the
// SDK's own argument validation quotes the value it refused); any other
// result is returned as it is.
func boundToolError(result json.RawMessage) json.RawMessage {
	if len(result) <= maxMessage || !bytes.Contains(result, []byte(`"isError":true`)) {
		return result
	}
	var res map[string]json.RawMessage
	var content []map[string]json.RawMessage
	if json.Unmarshal(result, &res) != nil || json.Unmarshal(res["content"], &content) != nil {
		return result
	}
	for _, c := range content {
		var text string
		if json.Unmarshal(c["text"], &text) == nil {
			c["text"] = mustJSON(bounded(text))
		}
	}
	res["content"] = mustJSON(content)
	return mustJSON(res)
}

// methodInitialize is the MCP method that opens a session.
const methodInitialize = "initialize"
