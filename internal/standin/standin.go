// Package standin is a loopback stand-in for an OpenAI-compatible model
// server, for measuring `memctl extract` without a network or a model:
// the extraction benchmark serves it from a test, scripts/standin as a
// program. Every POST to …/chat/completions waits the model's latency,
// then answers a valid v1 Phase 1 JSON object (a different slug and raw
// memory per call) in the Chat Completions wire format.
package standin

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// Handler answers each chat completion after delay and counts the calls
// in calls; any other request is not found.
func Handler(delay time.Duration, calls *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			http.NotFound(w, r)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		n := calls.Add(1)
		time.Sleep(delay)
		content, _ := json.Marshal(answer(n))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"chatcmpl-%d","object":"chat.completion","created":1,"model":"bench-model",`+
			`"choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],`+
			`"usage":{"prompt_tokens":900,"completion_tokens":200,"total_tokens":1100}}`, n, content)
	})
}

// answer is a v1 Phase 1 answer; n keeps slugs and memories distinct.
func answer(n int64) string {
	raw := fmt.Sprintf(`---
description: Fixed a store test timeout by moving busy_timeout into the DSN (call %d)
task: fix-store-timeout-%d
task_group: /home/dev/src/service
task_outcome: success
keywords: sqlite, busy_timeout, dsn, database/sql, flaky test
---

### Task 1: Fix the nightly store test timeout

task: find why TestLease times out and fix it
task_outcome: success

Reusable knowledge:
- A PRAGMA run through db.Exec configures one pooled connection only; put busy_timeout in the DSN.
- go test ./internal/store/... runs in about a second once the lock wait is gone.
`, n, n)
	b, _ := json.Marshal(map[string]any{
		"rollout_summary": fmt.Sprintf("# Store test timeout %d\n\nbusy_timeout moved into the DSN; TestLease passes.\n", n),
		"rollout_slug":    fmt.Sprintf("store-timeout-%d", n),
		"raw_memory":      raw,
	})
	return string(b)
}
