package model

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

func responsesBody(answer string) string {
	text, _ := json.Marshal(answer)
	return `{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"gpt-5.6-luna-2026",
  "output":[{"type":"reasoning","id":"rs_1","summary":[]},
            {"type":"message","id":"msg_1","role":"assistant","status":"completed",
             "content":[{"type":"output_text","text":` + string(text) + `,"annotations":[]}]}],
  "usage":{"input_tokens":1200,"input_tokens_details":{"cached_tokens":400},
           "output_tokens":300,"output_tokens_details":{"reasoning_tokens":120},"total_tokens":1500}}`
}

func chatBody(answer string) string {
	text, _ := json.Marshal(answer)
	return `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"qwen3:8b",
  "choices":[{"index":0,"message":{"role":"assistant","content":` + string(text) + `},"finish_reason":"stop"}],
  "usage":{"prompt_tokens":90,"completion_tokens":40,"total_tokens":130,
           "prompt_tokens_details":{"cached_tokens":10},"completion_tokens_details":{"reasoning_tokens":7}}}`
}

func newTestOpenAI(t *testing.T, fs *fakeServer, sl *fakeSleep, mod func(*Options)) Provider {
	t.Helper()
	return newTestProvider(t, fs, sl, Options{Kind: KindOpenAI, BaseURL: fs.URL + "/v1", Getenv: envOf(map[string]string{"OPENAI_API_KEY": "sk-test-123"})}, mod)
}

func TestOpenAIResponsesRequestAndAnswer(t *testing.T) {
	fs := newFakeServer(t, reply{
		body: responsesBody(goodAnswer),
		header: map[string]string{
			"x-ratelimit-limit-requests":     "500",
			"x-ratelimit-remaining-requests": "499",
			"x-ratelimit-reset-requests":     "120ms",
			"x-ratelimit-limit-tokens":       "200000",
			"x-ratelimit-remaining-tokens":   "50000",
			"x-ratelimit-reset-tokens":       "6m0s",
		},
	})
	sl := &fakeSleep{}
	p := newTestOpenAI(t, fs, sl, nil)
	if p.Name() != "openai" {
		t.Errorf("Name = %q", p.Name())
	}
	resp, err := p.Call(context.Background(), testRequest())
	if err != nil {
		t.Fatal(err)
	}

	reqs := fs.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.method != http.MethodPost || r.path != "/v1/responses" {
		t.Errorf("request %s %s, want POST /v1/responses", r.method, r.path)
	}
	if got := r.header.Get("Authorization"); got != "Bearer sk-test-123" {
		t.Errorf("Authorization = %q", got)
	}
	b := r.body
	if dig(t, b, "model") != "test-model" {
		t.Errorf("model = %v", dig(t, b, "model"))
	}
	if dig(t, b, "instructions") != "You extract memories." {
		t.Errorf("instructions = %v", dig(t, b, "instructions"))
	}
	if dig(t, b, "store") != false {
		t.Errorf("store = %v, want false", dig(t, b, "store"))
	}
	if dig(t, b, "reasoning", "effort") != "low" {
		t.Errorf("reasoning.effort = %v", dig(t, b, "reasoning", "effort"))
	}
	input := dig(t, b, "input").([]any)
	if len(input) != 2 {
		t.Fatalf("input has %d items, want one per Request.Input", len(input))
	}
	for i, want := range []string{"first evidence chunk", "second evidence chunk"} {
		if dig(t, input[i], "role") != "user" || dig(t, input[i], "content") != want {
			t.Errorf("input[%d] = %v", i, input[i])
		}
	}
	format := dig(t, b, "text", "format")
	if dig(t, format, "type") != "json_schema" || dig(t, format, "strict") != true || dig(t, format, "name") != "memory_stage1" {
		t.Errorf("text.format = %v", format)
	}
	if dig(t, format, "schema", "properties", "raw_memory", "type") != "string" {
		t.Errorf("schema not passed through: %v", dig(t, format, "schema"))
	}

	if string(resp.JSON) != goodAnswer {
		t.Errorf("JSON = %s", resp.JSON)
	}
	if resp.Model != "gpt-5.6-luna-2026" {
		t.Errorf("Model = %q", resp.Model)
	}
	wantUsage := Usage{InputTokens: 1200, CachedInputTokens: 400, OutputTokens: 300, ReasoningTokens: 120, TotalTokens: 1500}
	if resp.Usage != wantUsage {
		t.Errorf("Usage = %+v, want %+v", resp.Usage, wantUsage)
	}
	rl := resp.RateLimit
	if rl == nil {
		t.Fatal("RateLimit is nil")
	}
	if rl.Provider != "openai" || rl.RemainingPercent != 25 || rl.Reached {
		t.Errorf("RateLimit = %+v, want openai 25%% not reached", rl)
	}
	if want := fixedNow.Add(6 * time.Minute); !rl.ResetAt.Equal(want) {
		t.Errorf("ResetAt = %v, want %v (the tokens window)", rl.ResetAt, want)
	}
	if len(sl.got()) != 0 {
		t.Errorf("slept %v on a success", sl.got())
	}
}

func TestOpenAIDefaultModelAndNoEffort(t *testing.T) {
	fs := newFakeServer(t, reply{body: responsesBody(goodAnswer)})
	p := newTestOpenAI(t, fs, &fakeSleep{}, nil)
	req := testRequest()
	req.Model, req.ReasoningEffort, req.Kind = "", "", PurposeConsolidate
	if _, err := p.Call(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	b := fs.requests()[0].body
	if dig(t, b, "model") != DefaultModel(KindOpenAI, PurposeConsolidate) {
		t.Errorf("model = %v", dig(t, b, "model"))
	}
	if _, ok := b["reasoning"]; ok {
		t.Errorf("reasoning sent without an effort: %v", b["reasoning"])
	}
}

func TestOpenAICompatibleChatCompletions(t *testing.T) {
	fs := newFakeServer(t, reply{body: chatBody(goodAnswer)})
	p := newTestOpenAI(t, fs, &fakeSleep{}, func(o *Options) {
		o.Kind = KindOpenAICompatible
		o.Getenv = envOf(map[string]string{"OPENAI_API_KEY": "sk-must-not-leak"})
	})
	if p.Name() != "openai-compatible" {
		t.Errorf("Name = %q", p.Name())
	}
	resp, err := p.Call(context.Background(), testRequest())
	if err != nil {
		t.Fatal(err)
	}
	r := fs.requests()[0]
	if r.path != "/v1/chat/completions" {
		t.Errorf("path = %s", r.path)
	}
	if got := r.header.Get("Authorization"); got != "" {
		t.Errorf("Authorization = %q, want none without api_key_env", got)
	}
	msgs := dig(t, r.body, "messages").([]any)
	wantMsgs := [][2]string{{"system", "You extract memories."}, {"user", "first evidence chunk"}, {"user", "second evidence chunk"}}
	if len(msgs) != len(wantMsgs) {
		t.Fatalf("messages = %v", msgs)
	}
	for i, w := range wantMsgs {
		if dig(t, msgs[i], "role") != w[0] || dig(t, msgs[i], "content") != w[1] {
			t.Errorf("messages[%d] = %v, want %v", i, msgs[i], w)
		}
	}
	rf := dig(t, r.body, "response_format")
	if dig(t, rf, "type") != "json_schema" || dig(t, rf, "json_schema", "strict") != true ||
		dig(t, rf, "json_schema", "name") != "memory_stage1" ||
		dig(t, rf, "json_schema", "schema", "additionalProperties") != false {
		t.Errorf("response_format = %v", rf)
	}
	if dig(t, r.body, "reasoning_effort") != "low" {
		t.Errorf("reasoning_effort = %v", dig(t, r.body, "reasoning_effort"))
	}
	if string(resp.JSON) != goodAnswer || resp.Model != "qwen3:8b" {
		t.Errorf("resp = %s %q", resp.JSON, resp.Model)
	}
	wantUsage := Usage{InputTokens: 90, CachedInputTokens: 10, OutputTokens: 40, ReasoningTokens: 7, TotalTokens: 130}
	if resp.Usage != wantUsage {
		t.Errorf("Usage = %+v", resp.Usage)
	}
	if resp.RateLimit != nil {
		t.Errorf("RateLimit = %+v, want nil without headers", resp.RateLimit)
	}
}

func TestOpenAICompatibleKeyAndModel(t *testing.T) {
	fs := newFakeServer(t, reply{body: chatBody(goodAnswer)})
	p := newTestOpenAI(t, fs, &fakeSleep{}, func(o *Options) {
		o.Kind = KindOpenAICompatible
		o.APIKeyEnv = "OPENROUTER_API_KEY"
		o.Getenv = envOf(map[string]string{"OPENROUTER_API_KEY": "or-key"})
	})
	req := testRequest()
	req.Model = ""
	if _, err := p.Call(context.Background(), req); err == nil || !strings.Contains(err.Error(), "memories.extract_model") {
		t.Fatalf("err = %v, want a hint naming memories.extract_model", err)
	}
	if len(fs.requests()) != 0 {
		t.Fatal("a request was sent without a model")
	}
	if _, err := p.Call(context.Background(), testRequest()); err != nil {
		t.Fatal(err)
	}
	if got := fs.requests()[0].header.Get("Authorization"); got != "Bearer or-key" {
		t.Errorf("Authorization = %q", got)
	}
}

func TestOpenAIRetryAfterHonoured(t *testing.T) {
	fs := newFakeServer(t,
		reply{status: 429, body: `{"error":{"message":"Rate limit reached for requests","type":"requests"}}`,
			header: map[string]string{"Retry-After": "1", "x-ratelimit-limit-requests": "500", "x-ratelimit-remaining-requests": "0"}},
		reply{body: responsesBody(goodAnswer), header: map[string]string{"x-ratelimit-limit-requests": "500", "x-ratelimit-remaining-requests": "400"}},
	)
	sl := &fakeSleep{}
	p := newTestOpenAI(t, fs, sl, nil)
	resp, err := p.Call(context.Background(), testRequest())
	if err != nil {
		t.Fatal(err)
	}
	if got := sl.got(); len(got) != 1 || got[0] != time.Second {
		t.Errorf("delays = %v, want [1s] from Retry-After", got)
	}
	if n := len(fs.requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
	// The state is the answering response's, not the earlier 429's.
	if rl := resp.RateLimit; rl == nil || rl.Reached || rl.RemainingPercent != 80 {
		t.Errorf("RateLimit = %+v, want 80%% from the success", rl)
	}
}

func TestOpenAIRetryAfterMsWins(t *testing.T) {
	fs := newFakeServer(t,
		reply{status: 503, body: `{"error":{"message":"overloaded"}}`, header: map[string]string{"Retry-After": "7", "retry-after-ms": "250"}},
		reply{body: responsesBody(goodAnswer)},
	)
	sl := &fakeSleep{}
	p := newTestOpenAI(t, fs, sl, nil)
	if _, err := p.Call(context.Background(), testRequest()); err != nil {
		t.Fatal(err)
	}
	if got := sl.got(); len(got) != 1 || got[0] != 250*time.Millisecond {
		t.Errorf("delays = %v, want [250ms]", got)
	}
}

func TestOpenAIServerErrorThenSuccess(t *testing.T) {
	fs := newFakeServer(t,
		reply{status: 500, body: `{"error":{"message":"internal"}}`},
		reply{status: 502, body: `<html>bad gateway</html>`},
		reply{body: responsesBody(goodAnswer)},
	)
	sl := &fakeSleep{}
	p := newTestOpenAI(t, fs, sl, nil)
	resp, err := p.Call(context.Background(), testRequest())
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.JSON) != goodAnswer {
		t.Errorf("JSON = %s", resp.JSON)
	}
	got := sl.got()
	if len(got) != 2 {
		t.Fatalf("delays = %v, want 2", got)
	}
	// Full jitter: retry n waits in [0, base·2^n].
	for i, d := range got {
		if ceiling := backoffBase << i; d < 0 || d > ceiling {
			t.Errorf("delay %d = %v, want within [0, %v]", i, d, ceiling)
		}
	}
}

func TestOpenAIRetriesExhausted(t *testing.T) {
	fs := newFakeServer(t, reply{status: 500, body: `{"error":{"message":"the server had an error"}}`})
	sl := &fakeSleep{}
	p := newTestOpenAI(t, fs, sl, func(o *Options) { o.MaxRetries = 2 })
	_, err := p.Call(context.Background(), testRequest())
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v, want *APIError", err)
	}
	if apiErr.StatusCode != 500 || apiErr.Attempts != 3 || apiErr.Message != "the server had an error" {
		t.Errorf("APIError = %+v", apiErr)
	}
	if n := len(fs.requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
	for _, want := range []string{"HTTP 500", "the server had an error", "after 3 attempts"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestOpenAIBadRequestNotRetried(t *testing.T) {
	fs := newFakeServer(t, reply{status: 400,
		body:   `{"error":{"message":"Invalid schema for response_format 'memory_stage1'","type":"invalid_request_error","param":"text.format.schema"}}`,
		header: map[string]string{"x-ratelimit-limit-tokens": "1000", "x-ratelimit-remaining-tokens": "900"}})
	sl := &fakeSleep{}
	p := newTestOpenAI(t, fs, sl, nil)
	_, err := p.Call(context.Background(), testRequest())
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 {
		t.Fatalf("err = %v, want a 400 APIError", err)
	}
	if n := len(fs.requests()); n != 1 || len(sl.got()) != 0 {
		t.Errorf("%d requests, delays %v: a 400 must not be retried", n, sl.got())
	}
	if !strings.Contains(err.Error(), "HTTP 400 Bad Request: Invalid schema for response_format") {
		t.Errorf("error = %q", err)
	}
	if apiErr.RateLimit == nil || apiErr.RateLimit.RemainingPercent != 90 {
		t.Errorf("APIError.RateLimit = %+v, want 90%% read from the error response", apiErr.RateLimit)
	}
}

func TestOpenAIUnauthorizedNotRetried(t *testing.T) {
	fs := newFakeServer(t, reply{status: 401, body: `{"error":{"message":"Incorrect API key provided"}}`})
	p := newTestOpenAI(t, fs, &fakeSleep{}, nil)
	_, err := p.Call(context.Background(), testRequest())
	if err == nil || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "Incorrect API key") {
		t.Fatalf("err = %v", err)
	}
	if n := len(fs.requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestOpenAITimeout(t *testing.T) {
	fs := newFakeServer(t, reply{hang: true})
	sl := &fakeSleep{}
	p := newTestOpenAI(t, fs, sl, func(o *Options) { o.Timeout = 50 * time.Millisecond; o.MaxRetries = 1 })
	start := time.Now()
	_, err := p.Call(context.Background(), testRequest())
	if elapsed := time.Since(start); elapsed > 3*time.Second {
		t.Errorf("took %v with a 50ms timeout", elapsed)
	}
	var apiErr *APIError
	if !errors.As(err, &apiErr) || !apiErr.Timeout {
		t.Fatalf("err = %v, want a timeout APIError", err)
	}
	if n := len(fs.requests()); n != 2 || len(sl.got()) != 1 {
		t.Errorf("%d requests, %d sleeps: a timeout is retried within budget", n, len(sl.got()))
	}
	if !strings.Contains(err.Error(), "no response from "+fs.URL+"/v1/responses") {
		t.Errorf("error = %q, want it to name the URL", err)
	}
}

func TestOpenAIAnswerBreaksSchema(t *testing.T) {
	bad := `{"rollout_summary":"s","rollout_slug":42,"raw_memory":"m"}`
	fs := newFakeServer(t, reply{body: responsesBody(bad)})
	sl := &fakeSleep{}
	p := newTestOpenAI(t, fs, sl, nil)
	resp, err := p.Call(context.Background(), testRequest())
	if !errors.Is(err, ErrSchemaMismatch) {
		t.Fatalf("err = %v, want ErrSchemaMismatch", err)
	}
	var ae *AnswerError
	if !errors.As(err, &ae) || string(ae.Answer) != bad {
		t.Errorf("AnswerError = %+v", ae)
	}
	if !strings.Contains(err.Error(), "answer does not match schema") || !strings.Contains(err.Error(), "/rollout_slug") {
		t.Errorf("error = %q", err)
	}
	if n := len(fs.requests()); n != 1 || len(sl.got()) != 0 {
		t.Errorf("%d requests: a schema violation is not retried", n)
	}
	if resp.Usage.TotalTokens != 1500 {
		t.Errorf("Usage = %+v: tokens spent on a refused answer still count", resp.Usage)
	}
}

func TestOpenAIRefusalAndIncomplete(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"refusal", `{"id":"r","object":"response","status":"completed","model":"m","output":[{"type":"message","id":"m1","role":"assistant","status":"completed","content":[{"type":"refusal","refusal":"I can't help with that."}]}],"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}`, "model refused: I can't help with that."},
		{"incomplete", `{"id":"r","object":"response","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"model":"m","output":[{"type":"message","id":"m1","role":"assistant","status":"incomplete","content":[{"type":"output_text","text":"{\"rollout_sum","annotations":[]}]}],"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}`, "answer incomplete (max_output_tokens)"},
		{"empty", `{"id":"r","object":"response","status":"completed","model":"m","output":[],"usage":{"input_tokens":1,"output_tokens":0,"total_tokens":1}}`, "empty answer"},
		{"not json", responsesBody("Sure! Here is the memory: ..."), "answer is not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := newFakeServer(t, reply{body: tt.body})
			p := newTestOpenAI(t, fs, &fakeSleep{}, nil)
			_, err := p.Call(context.Background(), testRequest())
			var ae *AnswerError
			if !errors.As(err, &ae) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want an AnswerError containing %q", err, tt.want)
			}
			if n := len(fs.requests()); n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
		})
	}
}

func TestOpenAIUnreachable(t *testing.T) {
	base := closedURL(t) + "/v1"
	sl := &fakeSleep{}
	p, err := New(Options{Kind: KindOpenAI, BaseURL: base, MaxRetries: 1, Sleep: sl.sleep,
		Getenv: envOf(map[string]string{"OPENAI_API_KEY": "k"})})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Call(context.Background(), testRequest())
	want := "cannot reach " + base + "/responses: connection refused"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want it to contain %q", err, want)
	}
	if len(sl.got()) != 1 {
		t.Errorf("delays = %v: a network error is retried", sl.got())
	}
}

// wantCancelledPromptly cancels a call of p 50 ms in and checks that it
// ends with context.Canceled within two seconds.
func wantCancelledPromptly(t *testing.T, p Provider) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := p.Call(ctx, testRequest())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("took %v to notice the cancellation", elapsed)
	}
}

func TestOpenAICancelStopsPromptly(t *testing.T) {
	t.Run("during a request", func(t *testing.T) {
		fs := newFakeServer(t, reply{hang: true})
		p := newTestOpenAI(t, fs, &fakeSleep{}, nil)
		wantCancelledPromptly(t, p)
		if n := len(fs.requests()); n != 1 {
			t.Errorf("%d requests after cancellation, want 1", n)
		}
	})
	t.Run("during the backoff", func(t *testing.T) {
		fs := newFakeServer(t, reply{status: 429, header: map[string]string{"Retry-After": "30"}, body: `{}`})
		// The real sleep: it must return as soon as ctx ends.
		p := newTestOpenAI(t, fs, nil, func(o *Options) { o.Sleep = nil })
		wantCancelledPromptly(t, p)
	})
}

func TestRetryAfterTooLongGivesUp(t *testing.T) {
	fs := newFakeServer(t, reply{status: 429, header: map[string]string{"Retry-After": "3600"}, body: `{"error":{"message":"daily quota exhausted"}}`})
	sl := &fakeSleep{}
	p := newTestOpenAI(t, fs, sl, nil)
	_, err := p.Call(context.Background(), testRequest())
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.RetryAfter != time.Hour {
		t.Fatalf("err = %v", err)
	}
	if len(sl.got()) != 0 || len(fs.requests()) != 1 {
		t.Errorf("waited %v: an hour-long Retry-After is left to the job scheduler", sl.got())
	}
	if apiErr.RateLimit == nil || !apiErr.RateLimit.Reached || !apiErr.RateLimit.ResetAt.Equal(fixedNow.Add(time.Hour)) {
		t.Errorf("RateLimit = %+v, want reached, resetting in an hour", apiErr.RateLimit)
	}
	if !strings.Contains(err.Error(), "daily quota exhausted") || !strings.Contains(err.Error(), "retry after 1h0m0s") {
		t.Errorf("error = %q", err)
	}
}

func TestOpenAIIgnoresAmbientEnvironment(t *testing.T) {
	// The SDK reads these from the process environment by itself; neither
	// may redirect the call or leak a key to a compatible server.
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	t.Setenv("OPENAI_API_KEY", "sk-ambient")
	fs := newFakeServer(t, reply{body: chatBody(goodAnswer)})
	p := newTestOpenAI(t, fs, &fakeSleep{}, func(o *Options) {
		o.Kind = KindOpenAICompatible
		o.Getenv = envOf(nil)
	})
	if _, err := p.Call(context.Background(), testRequest()); err != nil {
		t.Fatal(err)
	}
	if got := fs.requests()[0].header.Get("Authorization"); got != "" {
		t.Errorf("Authorization = %q leaked from the environment", got)
	}
}
