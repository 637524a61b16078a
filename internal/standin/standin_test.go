package standin

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestHandlerAnswersChatCompletions: a chat completion gets a Chat
// Completions document whose message is a Phase 1 answer, different for
// each call; anything else is not found and not counted.
func TestHandlerAnswersChatCompletions(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(Handler(0, &calls))
	defer srv.Close()
	slugs := map[string]bool{}
	for range 2 {
		resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Choices []struct {
				Message struct{ Content string } `json:"message"`
			} `json:"choices"`
		}
		err = json.NewDecoder(resp.Body).Decode(&doc)
		resp.Body.Close()
		if err != nil || len(doc.Choices) != 1 {
			t.Fatalf("answer %+v, %v: want one choice", doc, err)
		}
		var ans map[string]string
		if err := json.Unmarshal([]byte(doc.Choices[0].Message.Content), &ans); err != nil {
			t.Fatalf("message %q is not a Phase 1 object: %v", doc.Choices[0].Message.Content, err)
		}
		if !strings.HasPrefix(ans["raw_memory"], "---\ndescription: ") || ans["rollout_summary"] == "" {
			t.Errorf("answer %v lacks a raw memory or a summary", ans)
		}
		slugs[ans["rollout_slug"]] = true
	}
	if len(slugs) != 2 {
		t.Errorf("two calls gave the slugs %v, want two different ones", slugs)
	}
	resp, err := http.Get(srv.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || calls.Load() != 2 {
		t.Errorf("GET /v1/models: %d after %d calls, want 404 after 2", resp.StatusCode, calls.Load())
	}
}
