package model

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

func messagesBody(toolInput, stopReason string) string {
	return `{"id":"msg_1","type":"message","role":"assistant","model":"claude-haiku-5-5-20260101",
  "content":[{"type":"text","text":"Recording the memory."},
             {"type":"tool_use","id":"toolu_1","name":"memory_stage1","input":` + toolInput + `}],
  "stop_reason":"` + stopReason + `","stop_sequence":null,
  "usage":{"input_tokens":800,"cache_read_input_tokens":150,"cache_creation_input_tokens":50,"output_tokens":210}}`
}

func newTestAnthropic(t *testing.T, fs *fakeServer, sl *fakeSleep, mod func(*Options)) Provider {
	t.Helper()
	return newTestProvider(t, fs, sl, Options{Kind: KindAnthropic, BaseURL: fs.URL, Getenv: envOf(map[string]string{"ANTHROPIC_API_KEY": "sk-ant-test"})}, mod)
}

func TestAnthropicRequestAndAnswer(t *testing.T) {
	reset := "2026-03-01T12:00:30Z"
	fs := newFakeServer(t, reply{
		body: messagesBody(goodAnswer, "tool_use"),
		header: map[string]string{
			"anthropic-ratelimit-requests-limit":          "50",
			"anthropic-ratelimit-requests-remaining":      "49",
			"anthropic-ratelimit-requests-reset":          reset,
			"anthropic-ratelimit-input-tokens-limit":      "40000",
			"anthropic-ratelimit-input-tokens-remaining":  "12000",
			"anthropic-ratelimit-input-tokens-reset":      reset,
			"anthropic-ratelimit-output-tokens-limit":     "8000",
			"anthropic-ratelimit-output-tokens-remaining": "7000",
			"anthropic-ratelimit-output-tokens-reset":     reset,
		},
	})
	p := newTestAnthropic(t, fs, &fakeSleep{}, nil)
	if p.Name() != "anthropic" {
		t.Errorf("Name = %q", p.Name())
	}
	resp, err := p.Call(context.Background(), testRequest())
	if err != nil {
		t.Fatal(err)
	}

	r := fs.requests()[0]
	if r.method != http.MethodPost || r.path != "/v1/messages" {
		t.Errorf("request %s %s, want POST /v1/messages", r.method, r.path)
	}
	if got := r.header.Get("X-Api-Key"); got != "sk-ant-test" {
		t.Errorf("x-api-key = %q", got)
	}
	if r.header.Get("Anthropic-Version") == "" {
		t.Error("no anthropic-version header")
	}
	b := r.body
	if dig(t, b, "model") != "test-model" || dig(t, b, "max_tokens") != float64(DefaultMaxOutputTokens) {
		t.Errorf("model/max_tokens = %v/%v", dig(t, b, "model"), dig(t, b, "max_tokens"))
	}
	if dig(t, b, "system", 0, "text") != "You extract memories." {
		t.Errorf("system = %v", dig(t, b, "system"))
	}
	msgs := dig(t, b, "messages").([]any)
	if len(msgs) != 2 {
		t.Fatalf("messages = %v", msgs)
	}
	for i, want := range []string{"first evidence chunk", "second evidence chunk"} {
		if dig(t, msgs[i], "role") != "user" || dig(t, msgs[i], "content", 0, "text") != want {
			t.Errorf("messages[%d] = %v", i, msgs[i])
		}
	}
	tools := dig(t, b, "tools").([]any)
	if len(tools) != 1 || dig(t, tools[0], "name") != "memory_stage1" {
		t.Fatalf("tools = %v", tools)
	}
	is := dig(t, tools[0], "input_schema")
	if dig(t, is, "type") != "object" || dig(t, is, "additionalProperties") != false ||
		dig(t, is, "properties", "rollout_slug", "type", 1) != "null" || len(dig(t, is, "required").([]any)) != 3 {
		t.Errorf("input_schema = %v", is)
	}
	tc := dig(t, b, "tool_choice")
	if dig(t, tc, "type") != "tool" || dig(t, tc, "name") != "memory_stage1" {
		t.Errorf("tool_choice = %v", tc)
	}
	if _, ok := b["thinking"]; ok {
		t.Error("thinking sent; it cannot be combined with a forced tool")
	}

	if string(resp.JSON) != goodAnswer {
		t.Errorf("JSON = %s", resp.JSON)
	}
	if resp.Model != "claude-haiku-5-5-20260101" {
		t.Errorf("Model = %q", resp.Model)
	}
	wantUsage := Usage{InputTokens: 1000, CachedInputTokens: 150, OutputTokens: 210, TotalTokens: 1210}
	if resp.Usage != wantUsage {
		t.Errorf("Usage = %+v, want %+v", resp.Usage, wantUsage)
	}
	rl := resp.RateLimit
	if rl == nil || rl.Provider != "anthropic" || rl.RemainingPercent != 30 || rl.Reached {
		t.Fatalf("RateLimit = %+v, want 30%% (input tokens window)", rl)
	}
	if want, _ := time.Parse(time.RFC3339, reset); !rl.ResetAt.Equal(want) {
		t.Errorf("ResetAt = %v", rl.ResetAt)
	}
}

func TestAnthropicFaults(t *testing.T) {
	overloaded := `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
	tests := []struct {
		name         string
		replies      []reply
		wantErr      string // "" = success
		wantRequests int
		wantDelays   []time.Duration // nil = don't check exact values
		wantSleeps   int
	}{
		{
			name: "429 honours retry-after",
			replies: []reply{
				{status: 429, body: `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`,
					header: map[string]string{"retry-after": "1", "anthropic-ratelimit-tokens-limit": "1000", "anthropic-ratelimit-tokens-remaining": "0"}},
				{body: messagesBody(goodAnswer, "tool_use")},
			},
			wantRequests: 2, wantDelays: []time.Duration{time.Second}, wantSleeps: 1,
		},
		{
			name:         "529 overloaded then success",
			replies:      []reply{{status: 529, body: overloaded}, {body: messagesBody(goodAnswer, "tool_use")}},
			wantRequests: 2, wantSleeps: 1,
		},
		{
			name:         "400 not retried",
			replies:      []reply{{status: 400, body: `{"type":"error","error":{"type":"invalid_request_error","message":"tools.0.input_schema: JSON schema is invalid"}}`}},
			wantErr:      "anthropic: HTTP 400 Bad Request: tools.0.input_schema: JSON schema is invalid",
			wantRequests: 1,
		},
		{
			name:         "schema violation not retried",
			replies:      []reply{{body: messagesBody(`{"rollout_summary":"s","raw_memory":"m"}`, "tool_use")}},
			wantErr:      "answer does not match schema",
			wantRequests: 1,
		},
		{
			name:         "cut off at max_tokens",
			replies:      []reply{{body: messagesBody(`{"rollout_summary":"s"}`, "max_tokens")}},
			wantErr:      "answer cut off at max_tokens (16384)",
			wantRequests: 1,
		},
		{
			name: "no tool call",
			replies: []reply{{body: `{"id":"m","type":"message","role":"assistant","model":"x","content":[{"type":"text","text":"I won't."}],
			  "stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`}},
			wantErr:      "no memory_stage1 tool call in the response (stop_reason end_turn)",
			wantRequests: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := newFakeServer(t, tt.replies...)
			sl := &fakeSleep{}
			p := newTestAnthropic(t, fs, sl, nil)
			resp, err := p.Call(context.Background(), testRequest())
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if string(resp.JSON) != goodAnswer {
					t.Errorf("JSON = %s", resp.JSON)
				}
			} else if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if n := len(fs.requests()); n != tt.wantRequests {
				t.Errorf("%d requests, want %d", n, tt.wantRequests)
			}
			got := sl.got()
			if len(got) != tt.wantSleeps {
				t.Errorf("delays = %v, want %d", got, tt.wantSleeps)
			}
			if tt.wantDelays != nil && (len(got) != len(tt.wantDelays) || got[0] != tt.wantDelays[0]) {
				t.Errorf("delays = %v, want %v", got, tt.wantDelays)
			}
		})
	}
}

func TestAnthropic429RateLimitOnError(t *testing.T) {
	fs := newFakeServer(t, reply{status: 429,
		body: `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`,
		header: map[string]string{
			"retry-after":                            "2",
			"anthropic-ratelimit-requests-limit":     "50",
			"anthropic-ratelimit-requests-remaining": "0",
			"anthropic-ratelimit-requests-reset":     "2026-03-01T12:01:00Z",
		}})
	sl := &fakeSleep{}
	p := newTestAnthropic(t, fs, sl, func(o *Options) { o.MaxRetries = 2 })
	_, err := p.Call(context.Background(), testRequest())
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v, want *APIError", err)
	}
	if apiErr.StatusCode != 429 || apiErr.Attempts != 3 || apiErr.Message != "slow down" {
		t.Errorf("APIError = %+v", apiErr)
	}
	rl := apiErr.RateLimit
	if rl == nil || !rl.Reached || rl.RemainingPercent != 0 || rl.ResetAt.Format(time.RFC3339) != "2026-03-01T12:01:00Z" {
		t.Errorf("RateLimit = %+v", rl)
	}
	if ok, _ := GuardAllows(rl, 25); ok {
		t.Error("guard allows after a 429")
	}
	if got := sl.got(); len(got) != 2 || got[0] != 2*time.Second || got[1] != 2*time.Second {
		t.Errorf("delays = %v, want [2s 2s]", got)
	}
}

func TestAnthropicIgnoresAmbientEnvironment(t *testing.T) {
	// The SDK would read these from the process environment; the provider
	// must use only Options.
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "ambient-token")
	fs := newFakeServer(t, reply{body: messagesBody(goodAnswer, "tool_use")})
	p := newTestAnthropic(t, fs, &fakeSleep{}, nil)
	if _, err := p.Call(context.Background(), testRequest()); err != nil {
		t.Fatal(err)
	}
	if got := fs.requests()[0].header.Get("Authorization"); got != "" {
		t.Errorf("Authorization = %q leaked from the environment", got)
	}
}

func TestAnthropicTimeout(t *testing.T) {
	fs := newFakeServer(t, reply{hang: true})
	p := newTestAnthropic(t, fs, &fakeSleep{}, func(o *Options) { o.Timeout = 50 * time.Millisecond; o.MaxRetries = -1 })
	start := time.Now()
	_, err := p.Call(context.Background(), testRequest())
	var apiErr *APIError
	if !errors.As(err, &apiErr) || !apiErr.Timeout || apiErr.Attempts != 1 {
		t.Fatalf("err = %v, want one timed-out attempt", err)
	}
	if elapsed := time.Since(start); elapsed > 3*time.Second {
		t.Errorf("took %v", elapsed)
	}
}
