package cmd

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/model"
)

// syncBuffer is a buffer the progress goroutine and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor waits until the buffer holds want, or fails after a while.
func (s *syncBuffer) waitFor(want string) error {
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(s.String(), want) {
		if time.Now().After(deadline) {
			return errors.New("no " + want + " in " + s.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

// TestProgressOfASlowStage: with a slow provider the
// terminal stayed blank while threads were extracted; a stage that runs
// longer than progressDelay shows its progress on stderr, and the line is
// erased when the stage ends. Piped, or with --quiet or --json, nothing.
func TestProgressOfASlowStage(t *testing.T) {
	defer func(d time.Duration) { progressDelay = d }(progressDelay)
	progressDelay = 20 * time.Millisecond
	const done = "extracted 2 threads: 0 with a memory, 0 with nothing worth keeping, 2 failed\n"
	for _, tt := range []struct {
		name         string
		tty, quiet   bool
		json         bool
		wantProgress bool
	}{
		{name: "terminal", tty: true, wantProgress: true},
		{name: "piped"},
		{name: "terminal, quiet", tty: true, quiet: true},
		{name: "terminal, json", tty: true, json: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(tt.tty)
			ios.Quiet = tt.quiet
			errOut := &syncBuffer{}
			ios.ErrOut = errOut
			f := jsonlFactory(t, ios.IOStreams, 2)
			// The provider answers only once the progress line is on the
			// screen (or, where none may appear, after a while).
			slow := &fakeProvider{call: func(context.Context, model.Request) (model.Response, error) {
				if tt.wantProgress {
					if err := errOut.waitFor("extracting v1: 0/2 threads, "); err != nil {
						return model.Response{}, err
					}
				} else {
					time.Sleep(10 * progressDelay)
				}
				return model.Response{}, errors.New("HTTP 500 from the stand-in")
			}}
			opts := &ExtractOptions{IO: ios.IOStreams, Config: f.Config,
				Pipeline: withProvider(f, slow), JSON: tt.json, ExtractFlags: ExtractFlags{All: true, Concurrency: ptrTo(1)}}
			err := runExtract(context.Background(), opts)
			var partial *PartialError
			if !errors.As(err, &partial) {
				t.Fatalf("err %v", err)
			}
			got := errOut.String()
			if tt.wantProgress {
				// The line is drawn in place and erased before the totals
				// (a slow scan may have drawn and erased its own line first).
				if !strings.Contains(got, "\rextracting v1: 0/2 threads, ") || !strings.Contains(got, "\r\x1b[K"+
					"memctl: warning: 00000000-0000-4000-8000-000000000000 failed") || !strings.HasSuffix(got, done) {
					t.Errorf("stderr:\n%q", got)
				}
				return
			}
			if strings.Contains(got, "extracting") || strings.Contains(got, "\r") {
				t.Errorf("progress where there must be none:\n%q", got)
			}
		})
	}
}

// TestProgressWithoutCount: stages without a count (scan, consolidate)
// say what runs and for how long.
func TestProgressWithoutCount(t *testing.T) {
	defer func(d time.Duration) { progressDelay = d }(progressDelay)
	progressDelay = time.Millisecond
	ios := newTestIO(true)
	buf := &syncBuffer{}
	ios.ErrOut = buf
	p := startProgress(ios.IOStreams, false, "consolidating v1 (model)", "")
	if err := buf.waitFor("\rconsolidating v1 (model), 0s\x1b[K"); err != nil {
		t.Fatal(err)
	}
	p.finish()
	if got := buf.String(); !strings.HasSuffix(got, "\r\x1b[K") {
		t.Errorf("the line is not erased: %q", got)
	}
	p.finish() // a second finish is harmless
}
