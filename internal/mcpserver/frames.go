package mcpserver

// Framing of the stdio transport.
//
// The SDK's stdio connection reads newline-delimited JSON and treats any
// line it cannot decode as a broken connection: a line that is not JSON,
// an id of the wrong type, an empty batch or a frame over its size cap
// ended `memctl mcp` with exit 1 and no answer. JSON-RPC 2.0 asks for the
// opposite: answer a parse error (-32700) or an invalid request (-32600)
// and go on. So the server reads its input through a framer: it reads one
// line at a time (at most MaxFrameBytes kept; a longer line is skipped to
// its end without being held), checks it, answers a malformed one itself
// and hands only messages the SDK can take to the SDK.
//
// Batches never reach the SDK either: the framer passes their members on
// one by one and gathers the answers into the one array JSON-RPC asks for,
// with the errors of the malformed members in it. The SDK ends the session
// on a batch that reuses the id of one still unanswered, so the framer
// keeps the ids in flight and refuses such a request (id null, so the
// error is not taken for the other request's answer).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxFrameBytes is the longest line (one JSON-RPC message or batch) the
// stdio server accepts, the SDK's own default cap. A longer line is read
// to its end and dropped, and answered with an invalid-request error.
const MaxFrameBytes = 16 << 20

// maxIDBytes bounds string ids: every answer repeats its request's id.
const maxIDBytes = 256

// maxIDMagnitude bounds integer ids: the SDK carries them as float64 on
// the way in, and a larger one would come back as another number.
const maxIDMagnitude = 1 << 53

// Stdio is the transport memctl mcp serves on: newline-delimited JSON-RPC
// read from in and written to out, where a malformed line gets an error
// answer and the session goes on.
func Stdio(in io.Reader, out io.Writer) mcp.Transport {
	return &frameTransport{in: in, out: out, max: MaxFrameBytes}
}

type frameTransport struct {
	in  io.Reader
	out io.Writer
	max int
}

func (t *frameTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	f := &framer{src: bufio.NewReaderSize(t.in, 64<<10), in: t.in, out: &syncWriter{w: t.out}, max: t.max,
		calls: map[any]*batch{}, methods: map[any]string{}}
	// The framer enforces the size cap; the SDK's own would count bytes
	// it read ahead of a frame.
	conn, err := (&mcp.IOTransport{Reader: f, Writer: nopWriteCloser{f.out}, MaxLineLength: -1}).Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &frameConn{Connection: conn, f: f}, nil
}

// syncWriter serialises whole writes: the SDK writes one message per
// call, and so does the framer.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// framer is the reader the SDK decodes from: the well-formed messages of
// the input, one per line.
type framer struct {
	src *bufio.Reader
	in  io.Reader
	out *syncWriter
	max int

	line []byte // the line being read
	next []byte // checked messages not yet read by the SDK, one per line

	mu    sync.Mutex
	calls map[any]*batch // requests handed on and not answered: their batch, nil for a lone request
	// methods names the method of each request in calls, for the error
	// codes of its answer (codedError).
	methods map[any]string
	// initialized: initialize was answered without an error.
	initialized bool
}

// batch gathers the answers to the members of one batch.
type batch struct {
	replies [][]byte    // one per answered member, in the batch's order
	slot    map[any]int // request id → its place in replies
	waiting int
}

func (f *framer) Read(p []byte) (int, error) {
	for len(f.next) == 0 {
		line, tooLong, err := f.readLine()
		if err != nil {
			return 0, err
		}
		if err := f.take(line, tooLong); err != nil {
			return 0, err
		}
	}
	n := copy(p, f.next)
	f.next = f.next[n:]
	return n, nil
}

func (f *framer) Close() error {
	if c, ok := f.in.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// readLine reads up to the next newline. A line longer than the cap is
// read to its end but not kept (tooLong). The last line may lack its
// newline; io.EOF comes after it.
func (f *framer) readLine() (line []byte, tooLong bool, err error) {
	if cap(f.line) > 1<<20 {
		f.line = nil // do not keep a large frame's buffer for the session
	}
	f.line = f.line[:0]
	for {
		chunk, err := f.src.ReadSlice('\n')
		if !tooLong {
			need := len(f.line) + len(chunk)
			switch {
			case need > f.max+2: // room for "\r\n"
				tooLong, f.line = true, f.line[:0]
			case need > cap(f.line):
				// Double, never past the cap: append's own growth
				// allocates several times the line on the way up.
				grown := make([]byte, len(f.line), min(max(2*cap(f.line), need, 4096), f.max+2))
				copy(grown, f.line)
				f.line = append(grown, chunk...)
			default:
				f.line = append(f.line, chunk...)
			}
		}
		switch {
		case err == nil:
			return f.line, tooLong, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && (len(f.line) > 0 || tooLong):
			return f.line, tooLong, nil
		default:
			return nil, false, err
		}
	}
}

// take handles one line: blank lines are skipped (as NDJSON readers do),
// a malformed message is answered here, a good one queued for the SDK.
func (f *framer) take(line []byte, tooLong bool) error {
	line = bytes.Trim(line, " \t\r\n")
	switch {
	case tooLong || len(line) > f.max:
		return f.answer(errorReply(nil, jsonrpc.CodeInvalidRequest,
			fmt.Sprintf("message longer than %d bytes: skipped up to the next newline", f.max)))
	case len(line) == 0:
		return nil
	case line[0] == '[':
		return f.takeBatch(line)
	}
	v := f.check(line, nil)
	if v.reply != nil {
		return f.answer(v.reply)
	}
	if v.call {
		f.mu.Lock()
		f.calls[v.id] = nil
		f.methods[v.id] = v.method
		f.mu.Unlock()
	}
	f.queue(line)
	return nil
}

func (f *framer) takeBatch(line []byte) error {
	var members []json.RawMessage
	if err := json.Unmarshal(line, &members); err != nil {
		return f.answer(parseError(err))
	}
	if len(members) == 0 {
		return f.answer(errorReply(nil, jsonrpc.CodeInvalidRequest, "empty batch"))
	}
	b := &batch{slot: map[any]int{}}
	seen := map[any]bool{}
	methods := map[any]string{}
	var pass []json.RawMessage
	for _, m := range members {
		v := f.check(m, seen)
		switch {
		case v.reply != nil:
			b.replies = append(b.replies, v.reply)
		case v.call:
			seen[v.id] = true
			methods[v.id] = v.method
			b.slot[v.id] = len(b.replies)
			b.replies = append(b.replies, nil)
			b.waiting++
			pass = append(pass, m)
		default: // a notification or a response: nothing to answer
			pass = append(pass, m)
		}
	}
	if b.waiting > 0 {
		f.mu.Lock()
		for id := range b.slot {
			f.calls[id] = b
			f.methods[id] = methods[id]
		}
		f.mu.Unlock()
	}
	for _, m := range pass {
		f.queue(m)
	}
	if b.waiting == 0 && len(b.replies) > 0 {
		return f.answer(joinReplies(b.replies))
	}
	return nil
}

func (f *framer) queue(msg []byte) {
	f.next = append(append(f.next, msg...), '\n')
}

func (f *framer) answer(reply []byte) error {
	_, err := f.out.Write(append(reply, '\n'))
	return err
}

// verdict is what check says of one message.
type verdict struct {
	reply  []byte // the error to answer with; nil when the message goes on
	call   bool   // a request that awaits an answer
	id     any    // its id, as the SDK holds it (jsonrpc.ID.Raw)
	method string // its method
}

// check decides whether the SDK can take msg. taken holds the ids of the
// requests earlier in the same batch.
func (f *framer) check(msg []byte, taken map[any]bool) verdict {
	msg = bytes.Trim(msg, " \t\r\n")
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(msg, new(json.RawMessage)); err != nil {
		return verdict{reply: parseError(err)}
	}
	if msg[0] != '{' {
		return verdict{reply: errorReply(nil, jsonrpc.CodeInvalidRequest, "a message must be a JSON object")}
	}
	if err := json.Unmarshal(msg, &fields); err != nil {
		return verdict{reply: parseError(err)}
	}
	_, hasMethod := fields["method"]
	idOK, idProblem := checkID(fields)
	invalid := func(why string) verdict {
		// The error carries the request's id when it could be read; a
		// response's id is one of the server's, not the client's.
		var id json.RawMessage
		if hasMethod && idOK {
			id = fields["id"]
		}
		return verdict{reply: errorReply(id, jsonrpc.CodeInvalidRequest, why)}
	}
	var version string
	if json.Unmarshal(fields["jsonrpc"], &version) != nil || version != "2.0" {
		return invalid(`"jsonrpc" must be "2.0"`)
	}
	if idProblem != "" {
		return invalid(idProblem)
	}
	if hasMethod {
		var method string
		if json.Unmarshal(fields["method"], &method) != nil {
			return invalid(`"method" must be a string`)
		}
	} else {
		// A response, to a request of the server's.
		if !idOK {
			return invalid(`a request needs a "method"; a response needs an "id"`)
		}
		_, hasResult := fields["result"]
		rerr, hasError := fields["error"]
		if hasResult == hasError {
			return invalid(`a response needs exactly one of "result" and "error"`)
		}
		if hasError {
			var e struct {
				Code    *int64  `json:"code"`
				Message *string `json:"message"`
			}
			if json.Unmarshal(rerr, &e) != nil || e.Code == nil || e.Message == nil {
				return invalid(`a response's "error" must be an object with an integer "code" and a string "message"`)
			}
		}
	}
	m, err := jsonrpc.DecodeMessage(msg)
	if err != nil {
		return invalid("not a JSON-RPC 2.0 message this server can read")
	}
	req, ok := m.(*jsonrpc.Request)
	if !ok || !req.ID.IsValid() {
		return verdict{}
	}
	id := req.ID.Raw()
	f.mu.Lock()
	_, busy := f.calls[id]
	f.mu.Unlock()
	if busy || taken[id] {
		return verdict{reply: errorReply(nil, jsonrpc.CodeInvalidRequest,
			fmt.Sprintf("request id %s is already in use by a request not answered yet", fields["id"]))}
	}
	return verdict{call: true, id: id, method: req.Method}
}

// checkID reads a message's id: present and usable (ok), or what is wrong
// with it. MCP ids are strings or integers, never null.
func checkID(fields map[string]json.RawMessage) (ok bool, problem string) {
	raw, present := fields["id"]
	if !present {
		return false, ""
	}
	const want = `"id" must be a string or an integer`
	switch {
	case len(raw) > 0 && raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return false, want
		}
		if len(s) > maxIDBytes {
			// Every answer repeats the id: a long one is refused.
			return false, fmt.Sprintf(`a string "id" must be at most %d bytes long`, maxIDBytes)
		}
		return true, ""
	case string(raw) == "null":
		return false, `"id" must be a string or an integer, not null`
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return false, want
	}
	if n > maxIDMagnitude || n < -maxIDMagnitude {
		return false, fmt.Sprintf(`an integer "id" must lie within ±%d`, int64(maxIDMagnitude))
	}
	return true, ""
}

// answered records the answer to a request the framer handed on. For a
// member of a batch it keeps the answer and, once the batch is complete,
// returns the array to write (inBatch set either way); for a lone request
// it only forgets the id, so the client may reuse it once answered.
func (f *framer) answered(resp *jsonrpc.Response) (array []byte, inBatch bool, err error) {
	id := resp.ID.Raw()
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.calls[id]
	delete(f.calls, id)
	delete(f.methods, id)
	if !ok || b == nil {
		return nil, false, nil
	}
	data, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		data = errorReply(json.RawMessage(mustJSON(id)), jsonrpc.CodeInternalError, "the answer could not be encoded")
	}
	b.replies[b.slot[id]] = data
	if b.waiting--; b.waiting > 0 {
		return nil, true, nil
	}
	return joinReplies(b.replies), true, nil
}

// frameConn writes the SDK's answers, holding back those to batch members
// until their batch is complete.
type frameConn struct {
	mcp.Connection
	f *framer
}

func (c *frameConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		msg = c.f.outgoing(resp)
	}
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.ID.IsValid() {
		array, inBatch, err := c.f.answered(resp)
		if inBatch {
			if err != nil || array == nil {
				return err
			}
			return c.f.answer(array)
		}
	}
	return c.Connection.Write(ctx, msg)
}

// outgoing is an answer of the SDK as it goes out: an error with a
// JSON-RPC code and a bounded message (codedError), a tool error with a
// bounded text. It also notes when initialize was answered.
func (f *framer) outgoing(resp *jsonrpc.Response) *jsonrpc.Response {
	f.mu.Lock()
	method := f.methods[resp.ID.Raw()]
	if method == methodInitialize && resp.Error == nil {
		f.initialized = true
	}
	initialized := f.initialized
	f.mu.Unlock()
	out := *resp
	if out.Error != nil {
		out.Error = codedError(out.Error, method, initialized)
	} else {
		out.Result = boundToolError(out.Result)
	}
	return &out
}

func joinReplies(replies [][]byte) []byte {
	var kept [][]byte
	for _, r := range replies {
		if r != nil {
			kept = append(kept, r)
		}
	}
	return append(append([]byte{'['}, bytes.Join(kept, []byte{','})...), ']')
}

// errorReply is a JSON-RPC error response; a nil id is written as null.
func errorReply(id json.RawMessage, code int64, message string) []byte {
	type wireError struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}
	return mustJSON(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   wireError       `json:"error"`
	}{"2.0", id, wireError{code, bounded(message)}})
}

// parseError answers a line that is not JSON, saying where it broke but
// not quoting it.
func parseError(err error) []byte {
	msg := "parse error: not JSON"
	var se *json.SyntaxError
	if errors.As(err, &se) {
		msg = fmt.Sprintf("parse error: not JSON (at byte %d)", se.Offset)
	}
	return errorReply(nil, jsonrpc.CodeParseError, msg)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only fixed shapes of strings and numbers come here
	}
	return b
}
