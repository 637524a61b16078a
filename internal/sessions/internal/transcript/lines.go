package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"
	"github.com/memctl/memctl/internal/textcut"
)

// MaxLineBytes is the longest transcript line the readers accept. Longer
// lines (a pasted core dump, a base64 video) are skipped with a Problem;
// they are drained in pieces so they never sit in memory whole.
const MaxLineBytes = 64 << 20

// maxDocumentBytes caps the single-document Codex .json rollouts, the only
// format that has to be read whole.
const MaxDocumentBytes = 256 << 20

// lineReader yields the lines of a transcript one at a time. The returned
// slice is only valid until the next call.
type LineReader struct {
	r       *bufio.Reader
	path    string
	max     int
	buf     []byte
	Line    int // number of the line last returned
	problem func(Problem)
}

func NewLineReader(r io.Reader, path string, problem func(Problem)) *LineReader {
	return &LineReader{r: bufio.NewReaderSize(r, 256<<10), path: path, max: MaxLineBytes, problem: problem}
}

// next returns the next non-blank line without its terminator (LF or CRLF),
// or io.EOF. Oversized lines are reported and skipped.
func (lr *LineReader) Next() ([]byte, error) {
	for {
		lr.Line++
		b, err := lr.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			b, err = lr.readLong(b)
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if b == nil && err == nil { // oversized line skipped
			continue
		}
		if len(b) > lr.max+2 { // +2: the line terminator does not count
			lr.Report(fmt.Sprintf("line longer than %d bytes (%d bytes) skipped", lr.max, len(b)))
			if err != nil {
				return nil, io.EOF
			}
			continue
		}
		b = bytes.TrimRight(b, "\r\n")
		if len(bytes.TrimSpace(b)) == 0 {
			if err != nil {
				return nil, io.EOF
			}
			continue
		}
		return b, nil
	}
}

// readLong gathers a line longer than the bufio buffer. It returns (nil, nil)
// when the line exceeded lr.max and was skipped.
func (lr *LineReader) readLong(first []byte) ([]byte, error) {
	lr.buf = append(lr.buf[:0], first...)
	for {
		b, err := lr.r.ReadSlice('\n')
		if len(lr.buf)+len(b) > lr.max {
			total := int64(len(lr.buf)) + int64(len(b))
			lr.buf = lr.buf[:0]
			if cap(lr.buf) > 4<<20 {
				lr.buf = nil // do not keep a huge buffer around
			}
			for errors.Is(err, bufio.ErrBufferFull) {
				b, err = lr.r.ReadSlice('\n')
				total += int64(len(b))
			}
			lr.Report(fmt.Sprintf("line longer than %d bytes (%d bytes) skipped", lr.max, total))
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			if errors.Is(err, io.EOF) {
				return nil, io.EOF
			}
			return nil, nil
		}
		lr.buf = append(lr.buf, b...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return lr.buf, err
		}
	}
}

func (lr *LineReader) Report(msg string) {
	if lr.problem != nil {
		lr.problem(Problem{Path: lr.path, Line: lr.Line, Err: msg})
	}
}

// checkUTF8 reports a line holding invalid UTF-8; the line is still parsed
// (the JSON decoder substitutes U+FFFD).
func (lr *LineReader) CheckUTF8(b []byte) {
	if !utf8.Valid(b) {
		lr.Report("invalid UTF-8")
	}
}

// openTranscript opens path for streaming, transparently decompressing
// .zst files. The returned closer releases both the file and the decoder.
func OpenTranscript(path string) (io.Reader, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	if !strings.HasSuffix(path, ".zst") {
		return f, func() { f.Close() }, nil
	}
	// Low-memory single-threaded decoding keeps RSS near the window size.
	dec, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(128<<20))
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("zstd %s: %w", path, err)
	}
	return dec, func() { dec.Close(); f.Close() }, nil
}

// problemList collects problems, keeping at most a few hundred so a file
// of garbage cannot grow the list without bound.
type ProblemList struct {
	list    []Problem
	dropped int
}

const maxProblems = 200

func (p *ProblemList) Add(pr Problem) {
	if len(p.list) < maxProblems {
		p.list = append(p.list, pr)
		return
	}
	p.dropped++
}

func (p *ProblemList) Result(path string) []Problem {
	if p.dropped > 0 {
		p.list = append(p.list, Problem{Path: path, Err: fmt.Sprintf("%d more problems not listed", p.dropped)})
	}
	return p.list
}

// WalkLines reads a JSON Lines transcript one line at a time and hands
// each line to fn with the reader, which knows the line's number and takes
// the problems fn finds (a line fn cannot use is reported and skipped, so
// the rest of the file is still read). The error is only for an unreadable
// file or fn's own error, which ends the walk.
func WalkLines(path string, probs func(Problem), checkUTF8 bool, fn func(lr *LineReader, line []byte) error) error {
	r, closeFn, err := OpenTranscript(path)
	if err != nil {
		return err
	}
	defer closeFn()
	lr := NewLineReader(r, path, probs)
	for {
		b, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		if checkUTF8 {
			lr.CheckUTF8(b)
		}
		if err := fn(lr, b); err != nil {
			return err
		}
	}
}

// WalkDecoded reads a JSON Lines transcript one line at a time and decodes
// each into a T: a broken line is reported as a problem and skipped.
func WalkDecoded[T any](path string, probs func(Problem), checkUTF8 bool, fn func(*T, int) error) error {
	return WalkLines(path, probs, checkUTF8, func(lr *LineReader, b []byte) error {
		var v T
		if err := json.Unmarshal(b, &v); err != nil {
			lr.Report("malformed JSON line skipped: " + textcut.Middle(err.Error(), 200))
			return nil
		}
		return fn(&v, lr.Line)
	})
}
