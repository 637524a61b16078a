package project

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// indexSamples are indexes as memctl writes them, with what a hand-written
// reader could get wrong: non-ASCII names, characters json escapes, empty
// and missing lists, large and negative numbers.
func indexSamples(t testing.TB) [][]byte {
	ixs := []Index{
		{Version: 1, Projects: []IndexEntry{}},
		{Version: 1, Empty: true},
		{Version: 1, Projects: []IndexEntry{
			{Key: "git:github.com/acme/api", Name: "acme/api", Dir: "acme-api-0f0f0f0f", Roots: []string{"/src/api", "/wt/api"}, Sessions: 30, Latest: "2026-07-30", Files: []string{"rollout_summaries/a.md"}},
			{Key: "path:/home/dév/naïve", Name: "naïve <b> & \"q\"", Dir: "naive-1", Roots: []string{}, Sessions: -2, Files: nil},
			{Key: "root:" + "0123456789abcdef", Name: "x\u2028y\ttab", Sessions: 1 << 40},
		}},
	}
	var out [][]byte
	for _, ix := range ixs {
		for _, indent := range []bool{true, false} {
			var b []byte
			var err error
			if indent {
				b, err = json.MarshalIndent(ix, "", "  ")
			} else {
				b, err = json.Marshal(ix)
			}
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
	}
	return append(out,
		[]byte(`{"version":1,"projects":[{"key":"k","name":"n","dir":"d","roots":["/r"],"sessions":3,"latest":"l","files":[]}]}`+"\n"),
		[]byte(` {"projects":[],"version":1,"empty":false} `),
	)
}

// readIndex reads an index exactly as encoding/json does, or leaves it to
// encoding/json: over the samples and every one-byte change of them.
func TestReadIndexAsEncodingJSON(t *testing.T) {
	for _, b := range indexSamples(t) {
		// What it must read itself: no escape, no null.
		if _, ok := readIndex(b); !ok && !bytes.Contains(b, []byte(`\`)) && !bytes.Contains(b, []byte("null")) {
			t.Errorf("readIndex left a plain index to encoding/json: %s", b)
		}
		agree(t, b)
		for i := range b {
			for _, c := range []byte{'"', '\\', ',', '}', ']', ' ', '0', '-', 'e', 'n', 'V', 0, 0xff} {
				m := append([]byte(nil), b...)
				m[i] = c
				agree(t, m)
			}
			agree(t, append(append([]byte(nil), b[:i]...), b[i+1:]...))
		}
	}
}

func FuzzReadIndex(f *testing.F) {
	for _, b := range indexSamples(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) { agree(t, b) })
}

// agree fails unless readIndex gives up on b or reads what json.Unmarshal
// reads, without error.
func agree(t testing.TB, b []byte) {
	t.Helper()
	got, ok := readIndex(b)
	if !ok {
		return
	}
	var want Index
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatalf("readIndex read %q, which encoding/json refuses: %v", b, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("readIndex(%q) = %+v, encoding/json reads %+v", b, got, want)
	}
}
