package store

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// benchWords is the common vocabulary of coding sessions. Raw memories draw
// from it with a Zipf distribution (plus generated identifiers), so a few
// words match thousands of memories and most match a handful, as in a
// real store.
var benchWords = strings.Fields(`
test tests build fails failing flaky ci pipeline job runner cache docker image layer compose
postgres sqlite mysql redis migration schema index query transaction lock timeout retry deadline
go rust python typescript node npm pnpm cargo pip module package dependency version upgrade pin
config env variable secret token auth oauth login session cookie header request response handler
api endpoint route server client grpc http websocket proxy nginx tls certificate dns port socket
kubernetes helm deploy release staging production rollback canary metrics logs tracing alert
refactor rename extract function method interface struct type generic error panic nil pointer
race condition mutex goroutine channel context cancel worker queue batch stream buffer memory leak
profile benchmark latency throughput cpu allocation gc heap stack trace debug breakpoint
git branch rebase merge conflict commit push pull request review diff patch hook lint format
vet staticcheck golangci eslint prettier ruff mypy pytest jest vitest coverage fixture golden snapshot
file path directory permission symlink glob watcher inotify filesystem disk quota backup restore
json yaml toml csv parse decode encode marshal unmarshal validate schema field tag default
cli flag argument subcommand help completion shell bash zsh fish script makefile target
user prefers asked wants insists avoid never always keep small explain minimal readable
docs readme changelog example tutorial comment annotation license copyright header notice
frontend react vue component state props hook render css layout responsive accessibility
upload download storage bucket object presigned url cdn compression gzip zstd brotli
cron scheduler interval backoff jitter ratelimit quota throttle circuit breaker fallback
embedding vector search ranking bm25 fts tokenizer stemming prefix snippet highlight
`)

// benchProjects become cwd scopes and identifier stems.
var benchProjects = []string{"billing", "memctl", "atlas", "harbor", "lumen", "quartz", "relay", "sprout",
	"tundra", "vertex", "willow", "zephyr", "orbit", "kiln", "ember", "fjord"}

// memoryGen writes v1-shaped raw memories of about 1–2 KB each.
type memoryGen struct {
	rng  *rand.Rand
	zipf *rand.Zipf
}

func newMemoryGen(seed uint64) *memoryGen {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	return &memoryGen{rng: rng, zipf: rand.NewZipf(rng, 1.2, 8, uint64(len(benchWords)-1))}
}

// word is a vocabulary word, or now and then a project-specific
// identifier, which gives the index a long tail of rare terms.
func (g *memoryGen) word() string {
	if g.rng.IntN(8) == 0 {
		p := benchProjects[g.rng.IntN(len(benchProjects))]
		return fmt.Sprintf("%s%s%d", p, strings.ToUpper(benchWords[g.rng.IntN(len(benchWords))][:1]), g.rng.IntN(400))
	}
	return benchWords[g.zipf.Uint64()]
}

func (g *memoryGen) sentence(n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = g.word()
	}
	return strings.Join(ws, " ")
}

func (g *memoryGen) rawMemory(i int) (raw, summary string) {
	project := benchProjects[i%len(benchProjects)]
	var b strings.Builder
	fmt.Fprintf(&b, "---\ndescription: %s\ntask: %s\ntask_group: /home/dev/src/%s\ntask_outcome: success\nkeywords: %s\n---\n\n",
		g.sentence(12), strings.ReplaceAll(g.sentence(3), " ", "-"), project, strings.ReplaceAll(g.sentence(5), " ", ", "))
	tasks := 1 + g.rng.IntN(3)
	for t := 1; t <= tasks; t++ {
		fmt.Fprintf(&b, "### Task %d: %s\n\ntask: %s\ntask_outcome: success\n\nPreference signals:\n", t, g.sentence(8), g.sentence(4))
		for range 1 + g.rng.IntN(2) {
			fmt.Fprintf(&b, "- when the agent proposed %s the user said %q -> %s\n", g.sentence(4), g.sentence(6), g.sentence(7))
		}
		b.WriteString("\nReusable knowledge:\n")
		for range 2 + g.rng.IntN(2) {
			fmt.Fprintf(&b, "- %s\n", g.sentence(12+g.rng.IntN(8)))
		}
		b.WriteString("\nFailures and how to do differently:\n")
		fmt.Fprintf(&b, "- %s\n\n", g.sentence(16))
	}
	summary = fmt.Sprintf("# %s\n\n%s\n\n%s\n", g.sentence(6), g.sentence(40), g.sentence(30))
	return b.String(), summary
}

// query is 1–3 words drawn like the memories' words, so some queries
// match thousands of rows and some only a few.
func (g *memoryGen) query() string {
	n := 1 + g.rng.IntN(3)
	ws := make([]string, n)
	for i := range ws {
		ws[i] = benchWords[g.zipf.Uint64()]
	}
	return strings.Join(ws, " ")
}

// seedOutputs stores n threads with raw memories in one transaction, as
// MarkStage1Succeeded stores and indexes them but without a claim per
// thread (10,000 claim round trips would dominate the setup).
func seedOutputs(ctx context.Context, s *Store, n int, g *memoryGen) (bytes int, err error) {
	now := s.now()
	err = s.tx(ctx, func(tx *sql.Tx) error {
		for i := range n {
			id := fmt.Sprintf("019b%04x-0000-7000-8000-%012x", i, i)
			updated := now.Add(-time.Duration(i) * time.Minute)
			_, err := tx.ExecContext(ctx, `
INSERT INTO threads (id, source_kind, rollout_path, source, interactive, cwd, preview, created_at_ms, updated_at_ms)
VALUES (?, 'jsonl', ?, 'cli', 1, ?, ?, ?, ?)`, id, "/bench/"+id+".jsonl", "/home/dev/src/"+benchProjects[i%len(benchProjects)],
				"bench thread", updated.UnixMilli(), updated.UnixMilli())
			if err != nil {
				return err
			}
			raw, summary := g.rawMemory(i)
			bytes += len(raw)
			_, err = tx.ExecContext(ctx, `
INSERT INTO stage1_outputs (thread_id, source_updated_at, raw_memory, rollout_summary, rollout_slug, generated_at)
VALUES (?, ?, ?, ?, ?, ?)`, id, updated.Unix(), raw, summary, "bench-"+id[:8], now.Unix())
			if err != nil {
				return err
			}
		}
		// indexOutputTx's statement, for all rows at once.
		_, err := tx.ExecContext(ctx, `
INSERT INTO search_docs (kind, thread_id, path, body)
SELECT 'raw_memory', thread_id, '', raw_memory FROM stage1_outputs WHERE length(raw_memory) > 0
UNION ALL
SELECT 'rollout_summary', thread_id, '', rollout_summary FROM stage1_outputs WHERE length(rollout_summary) > 0`)
		return err
	})
	return bytes, err
}

// BenchmarkSearch10k measures one ranked search over 10,000 raw memories
// (plus their rollout summaries). ns/op is the mean query time; p50-ms and
// p95-ms come from 3 timed passes over 200 fixed queries of 1–3 words.
//
// With MEMCTL_BENCH_SEARCH_HOME set, the database is built as that
// folder's memories_1.sqlite (replacing it) and kept, so scripts/bench.sh
// can time the real `memctl search` on the same data.
func BenchmarkSearch10k(b *testing.B) {
	const n = 10_000
	ctx := context.Background()
	dir := b.TempDir()
	if home := os.Getenv("MEMCTL_BENCH_SEARCH_HOME"); home != "" {
		dir = home
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if err := os.Remove(filepath.Join(dir, FileName("v1")+suffix)); err != nil && !os.IsNotExist(err) {
				b.Fatal(err)
			}
		}
	}
	s, err := Open(ctx, filepath.Join(dir, FileName("v1")))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	g := newMemoryGen(1)
	total, err := seedOutputs(ctx, s, n, g)
	if err != nil {
		b.Fatal(err)
	}
	queries := make([]string, 200)
	for i := range queries {
		queries[i] = g.query()
	}
	// One untimed pass warms SQLite's page cache, as a second search
	// in a row would find it.
	hits := 0
	for _, q := range queries {
		h, err := s.Search(ctx, q, 20)
		if err != nil {
			b.Fatalf("search %q: %v", q, err)
		}
		hits += len(h)
	}
	if hits == 0 {
		b.Fatal("no query matched anything")
	}

	i := 0
	for b.Loop() {
		if _, err := s.Search(ctx, queries[i%len(queries)], 20); err != nil {
			b.Fatal(err)
		}
		i++
	}

	b.StopTimer()
	var samples []time.Duration
	for range 3 {
		for _, q := range queries {
			start := time.Now()
			if _, err := s.Search(ctx, q, 20); err != nil {
				b.Fatal(err)
			}
			samples = append(samples, time.Since(start))
		}
	}
	slices.Sort(samples)
	ms := func(p float64) float64 {
		return float64(samples[int(p*float64(len(samples)-1))]) / float64(time.Millisecond)
	}
	b.ReportMetric(ms(0.50), "p50-ms")
	b.ReportMetric(ms(0.95), "p95-ms")
	b.ReportMetric(float64(total)/n, "raw-bytes/memory")
	b.ReportMetric(float64(hits)/float64(len(queries)), "hits/query")
}

// BenchmarkSearchQueryLength times one ranked search over 2,000 raw
// memories for queries of 4 to 50,000 words drawn from the memories'
// vocabulary (the time grew with the square of the
// words). Past 64 distinct words, or 4 KiB, the query is cut, so the time
// stays flat; what is left grows with the bytes counted.
//
//	go test -run '^$' -bench BenchmarkSearchQueryLength ./internal/store
func BenchmarkSearchQueryLength(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), FileName("v1")))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	g := newMemoryGen(2)
	if _, err := seedOutputs(ctx, s, 2_000, g); err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{4, 64, 2_000, 8_000, 50_000} {
		words := make([]string, n)
		for i := range words {
			words[i] = g.word()
		}
		q := strings.Join(words, " ")
		b.Run(fmt.Sprintf("words=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := s.Search(ctx, q, 20); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(SearchTerms(q).Terms)), "terms")
		})
	}
}

// BenchmarkForget10k forgets one memory of 10,000 (about 2 KB each), then
// scrubs the file as memctl memories forget does: the purge transaction
// (its full-text index merge included) and the rewrite, in ms per forget.
func BenchmarkForget10k(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "memories_1.sqlite"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if _, err := seedOutputs(ctx, s, 10_000, newMemoryGen(1)); err != nil {
		b.Fatal(err)
	}
	var forget, scrub time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if err := s.ForgetMemory(ctx, fmt.Sprintf("019b%04x-0000-7000-8000-%012x", i, i)); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := s.Scrub(ctx); err != nil {
			b.Fatal(err)
		}
		forget, scrub = forget+t1.Sub(t0), scrub+time.Since(t1)
	}
	b.ReportMetric(float64(forget.Milliseconds())/float64(b.N), "forget-ms")
	b.ReportMetric(float64(scrub.Milliseconds())/float64(b.N), "scrub-ms")
}
