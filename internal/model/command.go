package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/memctl/memctl/internal/procgroup"
	"github.com/memctl/memctl/internal/textcut"
)

// Limits on what the command provider keeps from the program.
const (
	// commandStdoutLimit bounds the answer; a memory answer is kilobytes.
	commandStdoutLimit = 16 << 20
	// stderrTailLimit is how much of the end of stderr an error quotes.
	stderrTailLimit = 2 << 10
	// commandWaitDelay is how long to wait for the pipes to close after the
	// process group was killed, in case something escaped the group.
	commandWaitDelay = 2 * time.Second
)

// CommandRequest is what the command provider writes to the program's
// stdin; docs/providers.md documents the protocol.
type CommandRequest struct {
	Kind            string          `json:"kind"`
	Model           string          `json:"model"`
	ReasoningEffort string          `json:"reasoning_effort"`
	System          string          `json:"system"`
	Input           string          `json:"input"` // Request.Input joined with a blank line
	Schema          json.RawMessage `json:"schema"`
}

// CommandError is a failed run of the command provider's program: a
// non-zero exit, a timeout, or a failure to start.
type CommandError struct {
	Argv0    string
	ExitCode int    // -1 when the program did not exit by itself
	TimedOut bool   // killed after Options.Timeout
	Stderr   string // the tail of its stderr
	Err      error
}

func (e *CommandError) Error() string {
	var b strings.Builder
	b.WriteString("command " + e.Argv0 + ": ")
	switch {
	case e.TimedOut:
		b.WriteString("timed out, killed")
	case e.ExitCode > 0:
		fmt.Fprintf(&b, "exit status %d", e.ExitCode)
	default:
		b.WriteString(e.Err.Error())
	}
	if s := strings.TrimSpace(e.Stderr); s != "" {
		b.WriteString("; stderr: " + s)
	}
	return b.String()
}

func (e *CommandError) Unwrap() error { return e.Err }

// commandProvider runs a program once per call. It does not retry: a
// failed call is recorded and the job retried later, and the program may
// well have retried on its own already.
type commandProvider struct {
	argv    []string
	timeout time.Duration
	stderr  io.Writer
	// stderrMu serialises writes to stderr: concurrent calls share it.
	stderrMu *sync.Mutex
}

func newCommand(opts Options) *commandProvider {
	return &commandProvider{
		argv:     append([]string(nil), opts.Command...),
		timeout:  opts.Timeout,
		stderr:   opts.Stderr,
		stderrMu: &sync.Mutex{},
	}
}

func (p *commandProvider) Name() string { return string(KindCommand) }

func (p *commandProvider) Call(ctx context.Context, req Request) (Response, error) {
	if _, err := schemaObject(req.Schema); err != nil {
		return Response{}, fmt.Errorf("command: %w", err)
	}
	input, err := json.Marshal(CommandRequest{
		Kind:            req.Kind,
		Model:           req.Model,
		ReasoningEffort: req.ReasoningEffort,
		System:          req.System,
		Input:           strings.Join(req.Input, "\n\n"),
		Schema:          req.Schema,
	})
	if err != nil {
		return Response{}, fmt.Errorf("command: encode request: %w", err)
	}

	cctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, p.argv[0], p.argv[1:]...)
	procgroup.Set(cmd)
	cmd.WaitDelay = commandWaitDelay
	cmd.Stdin = bytes.NewReader(input)
	stdout := &limitedBuffer{limit: commandStdoutLimit}
	cmd.Stdout = stdout
	tail := &tailBuffer{limit: stderrTailLimit}
	cmd.Stderr = io.MultiWriter(tail, &lockedWriter{w: p.stderr, mu: p.stderrMu})

	runErr := cmd.Run()
	if ctx.Err() != nil {
		return Response{}, fmt.Errorf("command %s: %w", p.argv[0], ctx.Err())
	}
	if runErr != nil || cctx.Err() != nil {
		ce := &CommandError{Argv0: p.argv[0], ExitCode: -1, Stderr: tail.String(), Err: runErr}
		var exitErr *exec.ExitError
		switch {
		case errors.Is(cctx.Err(), context.DeadlineExceeded):
			ce.TimedOut = true
			ce.Err = fmt.Errorf("timed out after %s: %w", p.timeout, context.DeadlineExceeded)
		case errors.As(runErr, &exitErr):
			ce.ExitCode = exitErr.ExitCode()
		}
		if ce.Err == nil {
			ce.Err = runErr
		}
		return Response{}, ce
	}
	if stdout.overflow {
		return Response{}, &AnswerError{Provider: string(KindCommand), Err: fmt.Errorf("answer larger than %d bytes", commandStdoutLimit)}
	}
	answer, err := singleObject(stdout.Bytes())
	if err != nil {
		return Response{}, &AnswerError{Provider: string(KindCommand), Answer: stdout.Bytes(), Err: err}
	}
	js, err := checkAnswer(string(KindCommand), req.Schema, answer)
	return Response{JSON: js, Model: req.Model}, err
}

// singleObject accepts stdout holding exactly one JSON object, surrounded
// by whitespace at most.
func singleObject(out []byte) ([]byte, error) {
	out = bytes.TrimSpace(out)
	if len(out) == 0 {
		return nil, errors.New("no answer on stdout")
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	var obj json.RawMessage
	if err := dec.Decode(&obj); err != nil {
		return nil, fmt.Errorf("stdout is not a JSON object: %v (stdout starts %q)", err, textcut.Head(string(out), 120))
	}
	if obj[0] != '{' {
		return nil, fmt.Errorf("stdout is not a JSON object (stdout starts %q)", textcut.Head(string(out), 120))
	}
	if dec.More() || dec.InputOffset() != int64(len(out)) {
		return nil, errors.New("stdout holds more than one JSON value")
	}
	return obj, nil
}

// limitedBuffer keeps up to limit bytes and notes that more came. It keeps
// accepting writes so the program never blocks on a full pipe. The buffer
// is a named field, not embedded: an embedded bytes.Buffer would promote
// ReadFrom, which os/exec's copy prefers to Write, bypassing the limit.
type limitedBuffer struct {
	buf      bytes.Buffer
	limit    int
	overflow bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.limit - b.buf.Len(); room < len(p) {
		b.overflow = true
		if room > 0 {
			b.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return b.buf.Write(p)
}

// Bytes returns what was kept.
func (b *limitedBuffer) Bytes() []byte { return b.buf.Bytes() }

// Len is the number of bytes kept.
func (b *limitedBuffer) Len() int { return b.buf.Len() }

// String returns what was kept.
func (b *limitedBuffer) String() string { return b.buf.String() }

// tailBuffer keeps the last limit bytes written: the end of stderr is
// where a failing program says why.
type tailBuffer struct {
	buf   []byte
	limit int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.limit; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	s := strings.ToValidUTF8(string(t.buf), "")
	if len(t.buf) >= t.limit {
		s = "…" + s
	}
	return s
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	// A broken stderr must not fail the call.
	_, _ = l.w.Write(p)
	return len(p), nil
}
