package evidence

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/plainfile"
)

// The index is a tab-separated text file, so that `memctl summary` reads
// it without a database or a JSON decoder on every agent turn:
//
//	memctl-evidence	2
//	f	<abs>	<size>	<mtime ns>	<hash>	<sketch>
//	m	<thread>	<scope>	<cwd>	<rollout file>	<commit>	<recorded at>	<handled>	<description>
//	i	<kind>	<path>	<line start>	<line end>	<runner>	<target>	<file>	<range>
//
// Files come first, each once however many memories rest on it (the
// recorded state of a file is the same for all of them when consolidation
// writes the index from one extraction each, and the first one wins when
// not); <file> is a file's position in that table, from 0. Each "i" line
// belongs to the "m" line above it. Fields never hold a tab or a newline
// (Capture drops such paths; descriptions are folded).
const indexHeader = "memctl-evidence\t2"

// ErrBadIndex is returned by ReadIndex for a file that is not an index of
// this version.
var ErrBadIndex = errors.New("not a memctl evidence index")

func field(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}

// EncodeIndex renders records as an index.
func EncodeIndex(recs []Record) []byte {
	var b bytes.Buffer
	b.WriteString(indexHeader + "\n")
	type fileKey struct {
		abs, hash string
		size, mt  int64
	}
	files := map[fileKey]int{}
	var body bytes.Buffer
	for _, r := range recs {
		fmt.Fprintf(&body, "m\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", field(r.ThreadID), field(r.Scope), field(r.Cwd),
			field(r.RolloutFile), field(r.Commit), r.RecordedAt, field(r.Handled), field(r.Description))
		for _, it := range r.Items {
			k := fileKey{it.Abs, it.Hash, it.Size, it.ModTimeNs}
			n, ok := files[k]
			if !ok {
				n = len(files)
				files[k] = n
				fmt.Fprintf(&b, "f\t%s\t%d\t%d\t%s\t%s\n", field(it.Abs), it.Size, it.ModTimeNs, field(it.Hash), field(it.Sketch))
			}
			fmt.Fprintf(&body, "i\t%s\t%s\t%d\t%d\t%s\t%s\t%d\t%s\n", field(it.Kind), field(it.Path),
				it.LineStart, it.LineEnd, field(it.Runner), field(it.Target), n, field(it.RangeHash))
		}
	}
	b.Write(body.Bytes())
	return b.Bytes()
}

// WriteIndex writes the index atomically (0600).
func WriteIndex(path string, recs []Record) error {
	return memdir.WriteAtomic(path, EncodeIndex(recs), 0o600)
}

// ReadIndex reads an index; a missing file returns an error satisfying
// errors.Is(err, fs.ErrNotExist). Damaged lines are skipped: an index
// is a cache of the store, rewritten by every consolidation.
func ReadIndex(path string) ([]Record, error) {
	return readIndex(path, "")
}

// readIndex reads the records of scope ("" for all). The other records'
// evidence lines are skipped unread, so a summary scoped to one project
// pays little for the others.
func readIndex(path, scope string) ([]Record, error) {
	data, err := plainfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return decodeIndex(string(data), scope)
}

// DecodeIndex parses an index.
func DecodeIndex(data []byte) ([]Record, error) {
	return decodeIndex(string(data), "")
}

// splitFields cuts a line at its tabs into f, returning how many fields
// it had (more than len(f) counts as len(f)+1).
func splitFields(line string, f []string) int {
	n := 0
	for {
		if n == len(f) {
			return n + 1
		}
		field, rest, more := strings.Cut(line, "\t")
		f[n] = field
		n++
		if !more {
			return n
		}
		line = rest
	}
}

func decodeIndex(text, scope string) ([]Record, error) {
	var out []Record
	err := walkIndex(text, scope, func(r Record) bool {
		r.Items = append([]Item(nil), r.Items...)
		out = append(out, r)
		return true
	})
	return out, err
}

// walkIndex calls fn with each record of scope ("" for all), in order,
// until fn returns false; it returns how many evidence lines of scope it
// did not reach then. The record's Items are reused for the next record:
// fn copies them to keep them. Walking instead of building every record
// keeps a summary's allocations, and so its garbage collections, small.
func walkIndex(text, scope string, fn func(Record) bool) error {
	_, err := walkIndexCount(text, scope, fn)
	return err
}

func walkIndexCount(text, scope string, fn func(Record) bool) (left int, err error) {
	first, rest, _ := strings.Cut(text, "\n")
	if strings.TrimRight(first, "\r") != indexHeader {
		return 0, ErrBadIndex
	}
	// File lines are kept whole and decoded when an item in scope needs
	// them: a scoped summary reads few of them.
	var fileLines []string
	type file struct {
		abs, hash, sketch string
		size, mt          int64
		ok                bool
	}
	decoded := map[int]file{}
	fileAt := func(n int) file {
		if f, seen := decoded[n]; seen {
			return f
		}
		var f file
		var fs [6]string
		if n >= 0 && n < len(fileLines) && splitFields(fileLines[n], fs[:]) == 6 && fs[1] != "" {
			size, err1 := strconv.ParseInt(fs[2], 10, 64)
			mt, err2 := strconv.ParseInt(fs[3], 10, 64)
			f = file{abs: fs[1], size: size, mt: mt, hash: fs[4], sketch: fs[5], ok: err1 == nil && err2 == nil}
		}
		decoded[n] = f
		return f
	}
	var cur Record
	have, stopped, skipping := false, false, false
	flush := func() {
		if have && !stopped && !fn(cur) {
			stopped = true
		}
		have = false
	}
	var f [9]string
	for len(rest) > 0 {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		if len(line) < 2 || line[1] != '\t' {
			continue
		}
		switch line[0] {
		case 'f':
			fileLines = append(fileLines, line)
		case 'm':
			flush()
			if splitFields(line, f[:9]) != 9 || scope != "" && f[2] != scope {
				skipping = true
				continue
			}
			skipping = false
			if stopped {
				continue // only counting what is left
			}
			at, _ := strconv.ParseInt(f[6], 10, 64)
			cur = Record{ThreadID: f[1], Scope: f[2], Cwd: f[3], RolloutFile: f[4], Commit: f[5], RecordedAt: at,
				Handled: f[7], Description: f[8], Items: cur.Items[:0]}
			have = true
		case 'i':
			if skipping {
				continue
			}
			if stopped {
				left++
				continue
			}
			if !have || splitFields(line, f[:9]) != 9 {
				continue
			}
			n, err := strconv.Atoi(f[7])
			if err != nil {
				continue
			}
			fl := fileAt(n)
			if !fl.ok {
				continue
			}
			ls, _ := strconv.Atoi(f[3])
			le, _ := strconv.Atoi(f[4])
			cur.Items = append(cur.Items, Item{Ref: Ref{Kind: f[1], Path: f[2], LineStart: ls, LineEnd: le, Runner: f[5], Target: f[6]},
				Abs: fl.abs, Size: fl.size, ModTimeNs: fl.mt, Hash: fl.hash, Sketch: fl.sketch, RangeHash: f[8]})
		}
	}
	flush()
	return left, nil
}
