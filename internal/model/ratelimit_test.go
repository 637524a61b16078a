package model

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

func headers(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

func TestParseRateLimit(t *testing.T) {
	now := fixedNow
	tests := []struct {
		name        string
		status      int
		h           http.Header
		wantNil     bool
		wantPercent float64
		wantReached bool
		wantReset   time.Time
	}{
		{name: "no headers", status: 200, h: headers(), wantNil: true},
		{name: "limit without remaining", status: 200, h: headers("x-ratelimit-limit-requests", "100"), wantNil: true},
		{name: "zero limit ignored", status: 200, h: headers("x-ratelimit-limit-requests", "0", "x-ratelimit-remaining-requests", "0"), wantNil: true},
		{name: "garbage ignored", status: 200, h: headers("x-ratelimit-limit-requests", "many", "x-ratelimit-remaining-requests", "some"), wantNil: true},
		{
			name: "openai lowest window wins", status: 200,
			h: headers("x-ratelimit-limit-requests", "10000", "x-ratelimit-remaining-requests", "9000", "x-ratelimit-reset-requests", "6ms",
				"x-ratelimit-limit-tokens", "1000000", "x-ratelimit-remaining-tokens", "100000", "x-ratelimit-reset-tokens", "1m30s"),
			wantPercent: 10, wantReset: now.Add(90 * time.Second),
		},
		{
			name: "openai requests only", status: 200,
			h:           headers("x-ratelimit-limit-requests", "60", "x-ratelimit-remaining-requests", "45", "x-ratelimit-reset-requests", "1s"),
			wantPercent: 75, wantReset: now.Add(time.Second),
		},
		{
			name: "openai exhausted window", status: 200,
			h:           headers("x-ratelimit-limit-tokens", "40000", "x-ratelimit-remaining-tokens", "0", "x-ratelimit-reset-tokens", "20s"),
			wantPercent: 0, wantReached: true, wantReset: now.Add(20 * time.Second),
		},
		{
			name: "anthropic four windows", status: 200,
			h: headers(
				"anthropic-ratelimit-requests-limit", "4000", "anthropic-ratelimit-requests-remaining", "3999", "anthropic-ratelimit-requests-reset", "2026-03-01T12:00:01Z",
				"anthropic-ratelimit-tokens-limit", "400000", "anthropic-ratelimit-tokens-remaining", "300000", "anthropic-ratelimit-tokens-reset", "2026-03-01T12:00:20Z",
				"anthropic-ratelimit-input-tokens-limit", "200000", "anthropic-ratelimit-input-tokens-remaining", "190000", "anthropic-ratelimit-input-tokens-reset", "2026-03-01T12:00:10Z",
				"anthropic-ratelimit-output-tokens-limit", "80000", "anthropic-ratelimit-output-tokens-remaining", "16000", "anthropic-ratelimit-output-tokens-reset", "2026-03-01T12:00:40Z"),
			wantPercent: 20, wantReset: time.Date(2026, 3, 1, 12, 0, 40, 0, time.UTC),
		},
		{
			name: "anthropic two windows spent: latest reset", status: 200,
			h: headers(
				"anthropic-ratelimit-requests-limit", "50", "anthropic-ratelimit-requests-remaining", "0", "anthropic-ratelimit-requests-reset", "2026-03-01T12:00:05Z",
				"anthropic-ratelimit-output-tokens-limit", "8000", "anthropic-ratelimit-output-tokens-remaining", "0", "anthropic-ratelimit-output-tokens-reset", "2026-03-01T12:00:50Z"),
			wantPercent: 0, wantReached: true, wantReset: time.Date(2026, 3, 1, 12, 0, 50, 0, time.UTC),
		},
		{
			name: "generic openrouter style, unix ms reset", status: 200,
			h:           headers("X-RateLimit-Limit", "200", "X-RateLimit-Remaining", "150", "X-RateLimit-Reset", "1772366460000"),
			wantPercent: 75, wantReset: time.UnixMilli(1772366460000),
		},
		{
			name: "remaining above limit clamps to 100", status: 200,
			h:           headers("x-ratelimit-limit-requests", "10", "x-ratelimit-remaining-requests", "12"),
			wantPercent: 100,
		},
		{
			name: "429 without headers", status: 429, h: headers("Retry-After", "30"),
			wantPercent: 0, wantReached: true, wantReset: now.Add(30 * time.Second),
		},
		{
			name: "429 with healthy windows is still reached", status: 429,
			h:           headers("x-ratelimit-limit-requests", "100", "x-ratelimit-remaining-requests", "80", "x-ratelimit-reset-requests", "2s"),
			wantPercent: 80, wantReached: true, wantReset: now.Add(2 * time.Second),
		},
		{name: "500 without headers", status: 500, h: headers(), wantNil: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rl := ParseRateLimit("p", tt.status, tt.h, now)
			if tt.wantNil {
				if rl != nil {
					t.Fatalf("got %+v, want nil", rl)
				}
				return
			}
			if rl == nil {
				t.Fatal("got nil")
			}
			if rl.Provider != "p" || !rl.ObservedAt.Equal(now) {
				t.Errorf("Provider/ObservedAt = %q/%v", rl.Provider, rl.ObservedAt)
			}
			if rl.RemainingPercent != tt.wantPercent || rl.Reached != tt.wantReached {
				t.Errorf("got %.4g%% reached=%v, want %.4g%% reached=%v", rl.RemainingPercent, rl.Reached, tt.wantPercent, tt.wantReached)
			}
			if !rl.ResetAt.Equal(tt.wantReset) {
				t.Errorf("ResetAt = %v, want %v", rl.ResetAt, tt.wantReset)
			}
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := fixedNow
	tests := []struct {
		name string
		h    http.Header
		want time.Duration
		ok   bool
	}{
		{"none", headers(), 0, false},
		{"seconds", headers("Retry-After", "1"), time.Second, true},
		{"fractional seconds", headers("Retry-After", "1.5"), 1500 * time.Millisecond, true},
		{"http date", headers("Retry-After", now.Add(42*time.Second).Format(http.TimeFormat)), 42 * time.Second, true},
		{"date in the past", headers("Retry-After", now.Add(-time.Minute).Format(http.TimeFormat)), 0, true},
		{"ms wins", headers("Retry-After", "10", "retry-after-ms", "1200"), 1200 * time.Millisecond, true},
		{"ms alone", headers("retry-after-ms", "85.5"), 85500 * time.Microsecond, true},
		{"negative", headers("Retry-After", "-3"), 0, false},
		{"garbage", headers("Retry-After", "soon"), 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseRetryAfter(tt.h, now)
			if got != tt.want || ok != tt.ok {
				t.Errorf("got %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

// remainingFromUsed builds the snapshot Codex's guard tests describe in used
// percent, through real headers so the whole path is exercised.
func remainingFromUsed(primaryUsed, secondaryUsed float64) *RateLimit {
	h := headers(
		"x-ratelimit-limit-requests", "1000",
		"x-ratelimit-remaining-requests", strconvF((100-primaryUsed)*10),
		"x-ratelimit-limit-tokens", "1000",
		"x-ratelimit-remaining-tokens", strconvF((100-secondaryUsed)*10),
	)
	return ParseRateLimit("openai", 200, h, fixedNow)
}

func strconvF(f float64) string { return strconv.FormatFloat(f, 'f', 3, 64) }

// Ports the intent of codex-rs/memories/write/src/guard_tests.rs.
func TestGuardAllows(t *testing.T) {
	tests := []struct {
		name       string
		rl         *RateLimit
		min        int
		want       bool
		wantReason string
	}{
		// startup_check_uses_configured_remaining_threshold
		{"89.9% used passes at 10% minimum", remainingFromUsed(89.9, 10), 10, true, ""},
		{"89.9% used fails at 11% minimum", remainingFromUsed(89.9, 10), 11, false, "below the 11% minimum"},
		// startup_check_skips_when_primary_or_secondary_is_too_low
		{"primary too low", remainingFromUsed(75.1, 10), 25, false, "24.9% left"},
		{"secondary too low", remainingFromUsed(10, 75.1), 25, false, "24.9% left"},
		{"both at 74.9% used pass", remainingFromUsed(74.9, 74.9), 25, true, ""},
		{"equality allowed", &RateLimit{Provider: "openai", RemainingPercent: 25}, 25, true, ""},
		// startup_check_skips_when_limit_is_reached
		{"reached denies even with quota left", &RateLimit{Provider: "anthropic", RemainingPercent: 90, Reached: true}, 25, false, "anthropic rate limit reached"},
		{"reached names the reset", &RateLimit{Provider: "openai", Reached: true, ResetAt: fixedNow}, 0, false, "resets at 2026-03-01T12:00:00Z"},
		// fail-open and clamping
		{"nothing known is allowed", nil, 25, true, ""},
		{"minimum above 100 clamps", &RateLimit{RemainingPercent: 100}, 150, true, ""},
		{"minimum above 100 clamps, 99.9 fails", &RateLimit{RemainingPercent: 99.9}, 150, false, "below the 100% minimum"},
		{"negative minimum clamps to 0", &RateLimit{RemainingPercent: 0}, -5, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.rl == nil && strings.Contains(tt.name, "used") {
				t.Fatal("test snapshot did not parse")
			}
			ok, reason := GuardAllows(tt.rl, tt.min)
			if ok != tt.want {
				t.Fatalf("GuardAllows(%+v, %d) = %v (%s), want %v", tt.rl, tt.min, ok, reason, tt.want)
			}
			if tt.want && reason != "" {
				t.Errorf("reason %q on allow", reason)
			}
			if !strings.Contains(reason, tt.wantReason) {
				t.Errorf("reason = %q, want it to contain %q", reason, tt.wantReason)
			}
		})
	}
}
