package scan

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/store"
)

// writeTinyTranscripts writes n small transcripts in memctl's JSONL format,
// 100 to a folder (as agents file them by day), and returns their root.
func writeTinyTranscripts(tb testing.TB, root string, n int) {
	tb.Helper()
	base := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("d%03d", i/100))
		if i%100 == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				tb.Fatal(err)
			}
		}
		at := base.Add(time.Duration(i) * time.Minute)
		body := fmt.Sprintf(`{"type":"session","id":"bench-%05d","cwd":"/home/dev/src/p%d","source":"cli","timestamp":%q}
{"type":"message","role":"user","text":"Why does test %d fail on CI?","timestamp":%q}
{"type":"message","role":"assistant","text":"The fixture path was relative; it now uses t.TempDir().","final":true,"timestamp":%q}
`, i, i%37, at.Format(time.RFC3339), i, at.Add(5*time.Second).Format(time.RFC3339), at.Add(40*time.Second).Format(time.RFC3339))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("bench-%05d.jsonl", i)), []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkRescan10k times a scan of 10,000 transcripts none of which
// changed since the previous scan: one query for the known file states, a
// walk of the folders and a stat per file, no file opened.
//
// With MEMCTL_BENCH_SCAN_DIR set, the transcripts are written there and
// kept, so scripts/bench.sh can time `memctl scan` on the same files.
func BenchmarkRescan10k(b *testing.B) {
	const n = 10_000
	ctx := context.Background()
	root := filepath.Join(b.TempDir(), "transcripts")
	if dir := os.Getenv("MEMCTL_BENCH_SCAN_DIR"); dir != "" {
		root = dir
	}
	writeTinyTranscripts(b, root, n)
	st, err := store.Open(ctx, filepath.Join(b.TempDir(), "home", store.FileName("v1")))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	opts := Options{Sources: []sessions.Source{{Kind: sessions.KindJSONL, Path: root}},
		Policy: store.UpsertPolicy{GenerateMemories: true}}
	first, err := Run(ctx, st, opts)
	if err != nil {
		b.Fatal(err)
	}
	if first.Added != n || len(first.Errors) > 0 {
		b.Fatalf("first scan: added %d of %d, errors %v", first.Added, n, first.Errors)
	}

	for b.Loop() {
		res, err := Run(ctx, st, opts)
		if err != nil {
			b.Fatal(err)
		}
		if res.Unchanged != n {
			b.Fatalf("rescan: %d of %d unchanged (%+v)", res.Unchanged, n, res)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/rescan")
}
