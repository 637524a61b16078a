package redact

import (
	"bytes"
	"io"
	"testing"
)

// The Go benchmarks use a 6 MB corpus to stay quick; scripts/bench-redact.sh runs the
// 60 MB comparison against ripgrep.

const benchSize = 6_000_000

func benchCorpus(b *testing.B) []byte {
	b.Helper()
	data := genCorpus(b, benchSize, nil)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	return data
}

// BenchmarkRedact6MB streams the corpus through Copy, as memctl redact does.
func BenchmarkRedact6MB(b *testing.B) {
	data := benchCorpus(b)
	r := Default()
	for i := 0; i < b.N; i++ {
		if err := r.Copy(io.Discard, bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkString6MB redacts the corpus held in memory.
func BenchmarkString6MB(b *testing.B) {
	data := string(benchCorpus(b))
	r := Default()
	for i := 0; i < b.N; i++ {
		_ = r.String(data)
	}
}

// BenchmarkCodex6MB is Codex's four patterns without the prefilter, for comparison.
func BenchmarkCodex6MB(b *testing.B) {
	data := string(benchCorpus(b))
	for i := 0; i < b.N; i++ {
		_ = Codex(data)
	}
}

// BenchmarkScan6MB is the prefilter pass alone.
func BenchmarkScan6MB(b *testing.B) {
	data := benchCorpus(b)
	sc := Default().sc
	var hits []hit
	for i := 0; i < b.N; i++ {
		hits = sc.scan(data, hits[:0])
	}
}
