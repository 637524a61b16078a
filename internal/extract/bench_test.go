package extract

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/model"
	"github.com/memctl/memctl/internal/redact"
	"github.com/memctl/memctl/internal/scan"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/standin"
	"github.com/memctl/memctl/internal/store"
)

// writeBenchTranscripts writes n transcripts of a few KB each in memctl's
// JSONL format: a question, commentary, two tool calls with output, a file
// change and a final answer, so PrepareInput has real work to do.
func writeBenchTranscripts(tb testing.TB, root string, n int) {
	tb.Helper()
	if err := os.MkdirAll(root, 0o755); err != nil {
		tb.Fatal(err)
	}
	base := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for i := range n {
		at := func(sec int) string {
			return base.Add(time.Duration(i)*time.Hour + time.Duration(sec)*time.Second).Format(time.RFC3339)
		}
		log := strings.Repeat(fmt.Sprintf("=== RUN   TestCase%d\n--- PASS: TestCase%d (0.01s)\n", i, i), 40)
		lines := []any{
			map[string]any{"type": "session", "id": fmt.Sprintf("bench-extract-%03d", i), "cwd": fmt.Sprintf("/home/dev/src/service-%d", i%23),
				"source": "cli", "timestamp": at(0), "git_branch": "main", "model": "bench-model"},
			map[string]any{"type": "message", "role": "context", "text": "Repository rules: run make check before committing.", "timestamp": at(1)},
			map[string]any{"type": "message", "role": "user", "text": fmt.Sprintf("The nightly job %d fails with a timeout in the store tests; find out why and fix it.", i), "timestamp": at(2)},
			map[string]any{"type": "message", "role": "assistant", "text": "Let me run the failing package first.", "timestamp": at(4)},
			map[string]any{"type": "tool_call", "id": "c1", "name": "shell", "command": "go test ./internal/store/...", "timestamp": at(5)},
			map[string]any{"type": "tool_result", "id": "c1", "output": log + "FAIL: TestLease (60.00s) timeout waiting for lock\n", "exit_code": 1, "timestamp": at(70)},
			map[string]any{"type": "tool_call", "id": "c2", "name": "edit", "input": map[string]any{"path": "internal/store/store.go"}, "timestamp": at(80)},
			map[string]any{"type": "file_change", "id": "c2", "path": "internal/store/store.go", "op": "update", "timestamp": at(81)},
			map[string]any{"type": "tool_result", "id": "c2", "output": "ok", "timestamp": at(81)},
			map[string]any{"type": "tool_call", "id": "c3", "name": "shell", "command": "go test ./internal/store/...", "timestamp": at(90)},
			map[string]any{"type": "tool_result", "id": "c3", "output": log + "ok  \tpkg/store\t1.2s\n", "exit_code": 0, "timestamp": at(95)},
			map[string]any{"type": "message", "role": "assistant", "final": true, "timestamp": at(100),
				"text": "busy_timeout was set with db.Exec, which configures one pooled connection only; it is now in the DSN and the test passes."},
		}
		var b strings.Builder
		for _, l := range lines {
			j, err := json.Marshal(l)
			if err != nil {
				tb.Fatal(err)
			}
			b.Write(j)
			b.WriteByte('\n')
		}
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("bench-extract-%03d.jsonl", i)), []byte(b.String()), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// newStandIn serves the stand-in model (internal/standin), whose
// answers take delay.
func newStandIn(delay time.Duration) (*httptest.Server, *atomic.Int64) {
	var calls atomic.Int64
	return httptest.NewServer(standin.Handler(delay, &calls)), &calls
}

// BenchmarkExtract200Loopback runs Phase 1 over 200 threads against a
// loopback stand-in that answers each call after 200 ms, at concurrency 8.
// The ideal is 200/8 × 0.2 s = 5 s; elapsed-s is the mean wall time of
// extract.Run and ratio-to-ideal is elapsed-s / 5 (target ≤ 1.15). Each
// iteration starts from a fresh store indexed outside the timer.
//
// With MEMCTL_BENCH_EXTRACT_DIR set, the transcripts are written there and
// kept, so scripts/bench.sh can run `memctl extract` on the same files.
func BenchmarkExtract200Loopback(b *testing.B) {
	const (
		threads     = 200
		concurrency = 8
		delay       = 200 * time.Millisecond
	)
	ideal := time.Duration(threads/concurrency) * delay
	ctx := context.Background()
	root := filepath.Join(b.TempDir(), "transcripts")
	if dir := os.Getenv("MEMCTL_BENCH_EXTRACT_DIR"); dir != "" {
		root = dir
	}
	writeBenchTranscripts(b, root, threads)
	srv, calls := newStandIn(delay)
	defer srv.Close()
	prov, err := model.New(model.Options{Kind: model.KindOpenAICompatible, BaseURL: srv.URL + "/v1"})
	if err != nil {
		b.Fatal(err)
	}
	red := redact.Default().String

	var elapsed time.Duration
	runs := 0
	for b.Loop() {
		b.StopTimer()
		st, err := store.Open(ctx, filepath.Join(b.TempDir(), store.FileName(memversion.V1)))
		if err != nil {
			b.Fatal(err)
		}
		sres, err := scan.Run(ctx, st, scan.Options{Sources: []sessions.Source{{Kind: sessions.KindJSONL, Path: root}},
			Policy: store.UpsertPolicy{GenerateMemories: true}})
		if err != nil || sres.Added != threads {
			b.Fatalf("scan: %+v, %v", sres, err)
		}
		calls.Store(0)
		b.StartTimer()

		start := time.Now()
		res, err := Run(ctx, st, RunOptions{
			Version: memversion.V1, Provider: prov, ProviderName: model.KindOpenAICompatible, Model: "bench-model",
			Filter:    store.CandidateFilter{AllWindows: true, InteractiveOnly: true},
			MaxClaims: threads, Concurrency: concurrency, Redact: red, WorkerID: "bench",
		})
		elapsed += time.Since(start)
		runs++

		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		if res.Succeeded != threads || calls.Load() != threads {
			b.Fatalf("succeeded %d of %d with %d calls (failed %d: %+v)", res.Succeeded, threads, calls.Load(), res.Failed, firstError(res))
		}
		st.Close()
		b.StartTimer()
	}
	mean := elapsed / time.Duration(runs)
	b.ReportMetric(mean.Seconds(), "elapsed-s")
	b.ReportMetric(mean.Seconds()/ideal.Seconds(), "ratio-to-ideal")
}

func firstError(res RunResult) string {
	for _, j := range res.Jobs {
		if j.Error != "" {
			return j.Error
		}
	}
	return ""
}
