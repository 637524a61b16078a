package mcpserver

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// drainTimeout bounds how long the server keeps answering after its input
// ended. A tool call is bounded well below it (the stale checks have their
// own budget); a handler that hangs must not keep the process alive.
const drainTimeout = 30 * time.Second

// answerBeforeEOF makes the end of the client's input mean "no more
// requests" rather than "hang up". The SDK treats EOF on the read side as
// a broken connection and cancels every request still in flight, so a
// script that writes its requests and closes stdin
// (printf '…' | memctl mcp) got no answer at all, not even to initialize.
// The wrapper holds the EOF back until every request it has handed over
// is answered, then lets the session end as before.
//
// The wrapped connection no longer tells the SDK the negotiated protocol
// version (that hook is unexported). On stdio that changes nothing: the
// framer (frames.go) takes batches apart before the SDK sees them.
func answerBeforeEOF(t mcp.Transport) mcp.Transport { return drainingTransport{t} }

type drainingTransport struct{ inner mcp.Transport }

func (t drainingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &drainingConn{Connection: conn, closed: make(chan struct{}), idle: make(chan struct{}, 1)}, nil
}

type drainingConn struct {
	mcp.Connection

	mu        sync.Mutex
	pending   int           // requests read and not yet answered
	idle      chan struct{} // signalled when pending drops to zero
	closed    chan struct{}
	closeOnce sync.Once
}

func (c *drainingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if errors.Is(err, io.EOF) {
		c.waitAnswered(ctx)
		return nil, err
	}
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil && req.ID.IsValid() {
		c.mu.Lock()
		c.pending++
		c.mu.Unlock()
	}
	return msg, err
}

func (c *drainingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	// A response that failed to go out still settles its request: the
	// connection is closing and nothing will answer it later.
	if _, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		if c.pending > 0 {
			c.pending--
			if c.pending == 0 {
				select {
				case c.idle <- struct{}{}:
				default:
				}
			}
		}
		c.mu.Unlock()
	}
	return err
}

func (c *drainingConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return c.Connection.Close()
}

// waitAnswered returns once no request is pending, the connection is
// closed, ctx is done or drainTimeout has passed.
func (c *drainingConn) waitAnswered(ctx context.Context) {
	timeout := time.NewTimer(drainTimeout)
	defer timeout.Stop()
	for {
		c.mu.Lock()
		n := c.pending
		c.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-c.idle:
		case <-c.closed:
			return
		case <-ctx.Done():
			return
		case <-timeout.C:
			return
		}
	}
}
