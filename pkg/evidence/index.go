package evidence

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/memctl/memctl/pkg/memdir"
)

// The index is a tab-separated text file, so that `memctl summary` reads
// it without a database or a JSON decoder on every agent turn:
//
//	memctl-evidence	1
//	m	<thread>	<scope>	<cwd>	<rollout file>	<commit>	<recorded at>	<handled>	<description>
//	i	<kind>	<path>	<line start>	<line end>	<runner>	<target>	<abs>	<size>	<mtime ns>	<hash>	<sketch>	<range>
//
// Each "i" line belongs to the "m" line above it. Fields never hold a tab
// or a newline (Capture drops such paths; descriptions are folded).
const indexHeader = "memctl-evidence\t1"

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
	for _, r := range recs {
		fmt.Fprintf(&b, "m\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", field(r.ThreadID), field(r.Scope), field(r.Cwd),
			field(r.RolloutFile), field(r.Commit), r.RecordedAt, field(r.Handled), field(r.Description))
		for _, it := range r.Items {
			fmt.Fprintf(&b, "i\t%s\t%s\t%d\t%d\t%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\n", field(it.Kind), field(it.Path),
				it.LineStart, it.LineEnd, field(it.Runner), field(it.Target), field(it.Abs), it.Size, it.ModTimeNs,
				field(it.Hash), field(it.Sketch), field(it.RangeHash))
		}
	}
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
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return DecodeIndex(data)
}

// DecodeIndex parses an index.
func DecodeIndex(data []byte) ([]Record, error) {
	text := string(data)
	first, rest, _ := strings.Cut(text, "\n")
	if strings.TrimRight(first, "\r") != indexHeader {
		return nil, ErrBadIndex
	}
	var out []Record
	for len(rest) > 0 {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		if line == "" {
			continue
		}
		f := strings.Split(line, "\t")
		switch f[0] {
		case "m":
			if len(f) != 9 {
				continue
			}
			at, _ := strconv.ParseInt(f[6], 10, 64)
			out = append(out, Record{ThreadID: f[1], Scope: f[2], Cwd: f[3], RolloutFile: f[4], Commit: f[5], RecordedAt: at,
				Handled: f[7], Description: f[8]})
		case "i":
			if len(f) != 13 || len(out) == 0 {
				continue
			}
			ls, _ := strconv.Atoi(f[3])
			le, _ := strconv.Atoi(f[4])
			size, err1 := strconv.ParseInt(f[8], 10, 64)
			mt, err2 := strconv.ParseInt(f[9], 10, 64)
			if err1 != nil || err2 != nil || f[7] == "" {
				continue
			}
			it := Item{Ref: Ref{Kind: f[1], Path: f[2], LineStart: ls, LineEnd: le, Runner: f[5], Target: f[6]},
				Abs: f[7], Size: size, ModTimeNs: mt, Hash: f[10], Sketch: f[11], RangeHash: f[12]}
			r := &out[len(out)-1]
			r.Items = append(r.Items, it)
		}
	}
	return out, nil
}
