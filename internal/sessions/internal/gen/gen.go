// Package gen writes large synthetic Codex rollouts out of real rollout
// lines, for benchmarks and for comparing PrepareInput with jq.
package gen

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// WriteCodex copies the session_meta line of fixture to w, then repeats the
// fixture's other lines until at least size bytes were written. Call ids
// are suffixed per repetition so pairs stay unique. It returns the bytes
// written.
func WriteCodex(w io.Writer, fixture []byte, size int64) (int64, error) {
	lines := bytes.SplitAfter(fixture, []byte("\n"))
	if len(lines) < 2 {
		return 0, fmt.Errorf("fixture has fewer than two lines")
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var n int64
	write := func(b []byte) error {
		m, err := bw.Write(b)
		n += int64(m)
		return err
	}
	if err := write(lines[0]); err != nil {
		return n, err
	}
	body := lines[1:]
	for rep := 0; n < size; rep++ {
		suffix := []byte(fmt.Sprintf(`_r%d"`, rep))
		for _, l := range body {
			if len(bytes.TrimSpace(l)) == 0 {
				continue
			}
			l = bytes.ReplaceAll(l, []byte(`"call_id":"call_`), []byte(`"call_id":"rep_`))
			if i := bytes.Index(l, []byte(`"call_id":"rep_`)); i >= 0 {
				if j := bytes.IndexByte(l[i+15:], '"'); j >= 0 {
					end := i + 15 + j
					var b bytes.Buffer
					b.Write(l[:end])
					b.Write(suffix)
					b.Write(l[end+1:])
					l = b.Bytes()
				}
			}
			if l[len(l)-1] != '\n' {
				l = append(l, '\n')
			}
			if err := write(l); err != nil {
				return n, err
			}
		}
	}
	return n, bw.Flush()
}
