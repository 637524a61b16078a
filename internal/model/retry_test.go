package model

import (
	"strings"
	"testing"
	"time"
)

func TestBackoffFullJitter(t *testing.T) {
	for try := range 12 {
		ceiling := min(backoffCap, backoffBase<<try)
		var maxSeen time.Duration
		for range 200 {
			d := backoff(try)
			if d < 0 || d > ceiling {
				t.Fatalf("backoff(%d) = %v, want within [0, %v]", try, d, ceiling)
			}
			maxSeen = max(maxSeen, d)
		}
		// Full jitter spreads over the whole range, not just near zero.
		if maxSeen < ceiling/4 {
			t.Errorf("backoff(%d) never exceeded %v in 200 draws (ceiling %v)", try, maxSeen, ceiling)
		}
	}
	if d := backoff(100); d > backoffCap {
		t.Errorf("backoff(100) = %v, above the cap", d)
	}
}

func TestProviderMessage(t *testing.T) {
	tests := []struct{ body, want string }{
		{`{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`, "Incorrect API key provided"},
		{`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "Overloaded"},
		{`{"error":"model 'llama9' not found"}`, "model 'llama9' not found"},
		{`{"message":"Unauthorized"}`, "Unauthorized"},
		{"<html>\n  <body>502 Bad Gateway</body>\n</html>", "<html> <body>502 Bad Gateway</body> </html>"},
		{"", ""},
		{strings.Repeat("x", 400), strings.Repeat("x", 300) + "…"},
	}
	for _, tt := range tests {
		if got := providerMessage([]byte(tt.body)); got != tt.want {
			t.Errorf("providerMessage(%q) = %q, want %q", tt.body, got, tt.want)
		}
	}
}

func TestAPIErrorRetryable(t *testing.T) {
	tests := map[int]bool{0: true, 400: false, 401: false, 403: false, 404: false, 408: false, 422: false, 429: true, 500: true, 502: true, 503: true, 529: true}
	for status, want := range tests {
		if got := (&APIError{StatusCode: status}).Retryable(); got != want {
			t.Errorf("Retryable(%d) = %v, want %v", status, got, want)
		}
	}
}
