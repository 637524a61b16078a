package extract

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/model"
	"github.com/memctl/memctl/internal/scan"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/store"
)

// newRunFixture indexes n small JSONL threads into a fresh store.
func newRunFixture(t *testing.T, n int) *store.Store {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.MkdirAll(src, 0o700)
	ts := time.Now().Add(-24 * time.Hour).UTC().Format(time.RFC3339)
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		body := fmt.Sprintf(`{"type":"session","id":%q,"cwd":"/src/p","source":"cli","timestamp":%q}
{"type":"message","role":"user","text":"fix bug %d","timestamp":%q}
{"type":"message","role":"assistant","text":"fixed","final":true,"timestamp":%q}
`, id, ts, i, ts, ts)
		os.WriteFile(filepath.Join(src, id+".jsonl"), []byte(body), 0o600)
	}
	st, err := store.Open(context.Background(), filepath.Join(dir, "m.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := scan.Run(context.Background(), st, scan.Options{Sources: []sessions.Source{{Kind: sessions.KindJSONL, Path: src}},
		Policy: store.UpsertPolicy{GenerateMemories: true}}); err != nil {
		t.Fatal(err)
	}
	return st
}

// chatServer answers Chat Completions requests with content, after status.
func chatServer(t *testing.T, status int, content string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("x-ratelimit-limit-requests", "100")
		w.Header().Set("x-ratelimit-remaining-requests", "40")
		if status != 200 {
			w.WriteHeader(status)
			fmt.Fprint(w, `{"error":{"message":"upstream exploded","type":"server_error"}}`)
			return
		}
		b, _ := json.Marshal(map[string]any{
			"id": "c1", "object": "chat.completion", "created": 1, "model": "m",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": content}}},
			"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
		})
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestRunRecordsProviderFailures(t *testing.T) {
	tests := []struct {
		name, content, wantErr string
		status                 int
	}{
		{name: "answer breaks the schema", status: 200, content: `{"rollout_summary":"s"}`, wantErr: "missing property"},
		{name: "server error", status: 500, wantErr: "HTTP 500"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newRunFixture(t, 1)
			srv := chatServer(t, tt.status, tt.content)
			p, err := model.New(model.Options{Kind: model.KindOpenAICompatible, BaseURL: srv.URL + "/v1", MaxRetries: -1, Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(context.Background(), st, RunOptions{Version: "v1", Provider: p, ProviderName: "openai-compatible", Model: "m",
				Filter: store.CandidateFilter{AllWindows: true, InteractiveOnly: true}, MaxClaims: 1})
			if err != nil {
				t.Fatal(err)
			}
			if res.Failed != 1 || !strings.Contains(res.Jobs[0].Error, tt.wantErr) {
				t.Fatalf("result %+v, want one failure naming %q", res, tt.wantErr)
			}
			id := res.Jobs[0].ThreadID
			j, err := st.Job(context.Background(), store.KindStage1, id)
			if err != nil || j.Status != "error" || !strings.Contains(j.LastError, tt.wantErr) || j.RetryRemaining != 2 || j.RetryAt == nil {
				t.Errorf("job not recorded as a failure with its reason and backoff: %+v %v", j, err)
			}
			if _, err := st.Output(context.Background(), id); err == nil {
				t.Error("a failed job stored a memory")
			}
			if rl, ok, _ := st.RateLimit(context.Background(), "openai-compatible"); !ok || rl.RemainingPercent != 40 {
				t.Errorf("rate limit not kept: %+v %v", rl, ok)
			}
		})
	}
}

func TestRunStoresValidAnswersAndUsage(t *testing.T) {
	st := newRunFixture(t, 3)
	srv := chatServer(t, 200, `{"raw_memory":"---\ndescription: fixed a bug\n---","rollout_summary":"# Fixed a bug","rollout_slug":"fix-bug"}`)
	p, _ := model.New(model.Options{Kind: model.KindOpenAICompatible, BaseURL: srv.URL + "/v1", Timeout: 5 * time.Second})
	res, err := Run(context.Background(), st, RunOptions{Version: "v1", Provider: p, ProviderName: "openai-compatible", Model: "m",
		Filter: store.CandidateFilter{AllWindows: true, InteractiveOnly: true}, MaxClaims: 10, Concurrency: 2})
	if err != nil || res.Succeeded != 3 || res.Usage.TotalTokens != 45 {
		t.Fatalf("%+v %v", res, err)
	}
	spend, _ := st.Spend(context.Background())
	if len(spend) != 1 || spend[0].TotalTokens != 45 {
		t.Errorf("spend %+v", spend)
	}
	// Nothing left to claim.
	res, _ = Run(context.Background(), st, RunOptions{Version: "v1", Provider: p, Filter: store.CandidateFilter{AllWindows: true, InteractiveOnly: true}, MaxClaims: 10})
	if res.Claimed != 0 {
		t.Errorf("second pass claimed %d", res.Claimed)
	}
}

func TestGuard(t *testing.T) {
	st := newRunFixture(t, 0)
	ctx := context.Background()
	now := time.Now()
	if g, _ := Guard(ctx, st, "openai", 25, now); !g.Allowed || g.Status != "unknown" {
		t.Errorf("nothing known: %+v", g)
	}
	st.SaveRateLimit(ctx, store.RateLimitState{Provider: "openai", RemainingPercent: 10, ObservedAt: now})
	if g, _ := Guard(ctx, st, "openai", 25, now); g.Allowed || g.Status != "skipped_rate_limit" {
		t.Errorf("10%% left at a 25%% floor: %+v", g)
	}
	if g, _ := Guard(ctx, st, "openai", 10, now); !g.Allowed {
		t.Errorf("equality must be allowed: %+v", g)
	}
	reset := now.Add(-time.Minute)
	st.SaveRateLimit(ctx, store.RateLimitState{Provider: "openai", RemainingPercent: 1, ObservedAt: now.Add(time.Second), ResetAt: &reset})
	if g, _ := Guard(ctx, st, "openai", 25, now); !g.Allowed {
		t.Errorf("a window that has reset still denies: %+v", g)
	}
	if g, _ := Guard(ctx, st, "heuristic", 100, now); !g.Allowed {
		t.Errorf("heuristic is never rate limited: %+v", g)
	}
}
