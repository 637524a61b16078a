package model

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// window is one quota the provider reported: requests per minute, tokens
// per minute, and so on.
type window struct {
	limit     float64
	remaining float64
	reset     time.Time // zero when unknown
}

func (w window) percent() float64 {
	p := w.remaining / w.limit * 100
	return math.Max(0, math.Min(100, p))
}

// rateLimitHeaderSets lists the (limit, remaining, reset) header triples
// providers send. OpenAI uses x-ratelimit-{limit,remaining,reset}-{requests,tokens};
// Anthropic anthropic-ratelimit-<window>-{limit,remaining,reset}; OpenRouter
// and several self-hosted gateways a bare x-ratelimit-{limit,remaining,reset}.
var rateLimitHeaderSets = [][3]string{
	{"x-ratelimit-limit-requests", "x-ratelimit-remaining-requests", "x-ratelimit-reset-requests"},
	{"x-ratelimit-limit-tokens", "x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens"},
	{"anthropic-ratelimit-requests-limit", "anthropic-ratelimit-requests-remaining", "anthropic-ratelimit-requests-reset"},
	{"anthropic-ratelimit-tokens-limit", "anthropic-ratelimit-tokens-remaining", "anthropic-ratelimit-tokens-reset"},
	{"anthropic-ratelimit-input-tokens-limit", "anthropic-ratelimit-input-tokens-remaining", "anthropic-ratelimit-input-tokens-reset"},
	{"anthropic-ratelimit-output-tokens-limit", "anthropic-ratelimit-output-tokens-remaining", "anthropic-ratelimit-output-tokens-reset"},
	{"x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"},
}

// ParseRateLimit reads the rate-limit headers of one HTTP response. The
// result's RemainingPercent is the lowest remaining/limit over every window
// present; Reached is set when a window is at zero or status is 429. It
// returns nil when the response says nothing about rate limits (no window
// headers and not a 429).
func ParseRateLimit(provider string, status int, h http.Header, now time.Time) *RateLimit {
	var windows []window
	for _, set := range rateLimitHeaderSets {
		limit, okL := parseNumber(h.Get(set[0]))
		remaining, okR := parseNumber(h.Get(set[1]))
		if !okL || !okR || limit <= 0 {
			continue
		}
		windows = append(windows, window{limit: limit, remaining: remaining, reset: parseReset(h.Get(set[2]), now)})
	}
	tooMany := status == http.StatusTooManyRequests
	if len(windows) == 0 && !tooMany {
		return nil
	}

	rl := &RateLimit{Provider: provider, RemainingPercent: 100, ObservedAt: now.UTC()}
	var lowest *window
	for i := range windows {
		w := &windows[i]
		if lowest == nil || w.percent() < lowest.percent() {
			lowest = w
		}
		if w.remaining <= 0 {
			rl.Reached = true
			// When several windows are spent, quota is back only once the
			// last of them resets.
			if w.reset.After(rl.ResetAt) {
				rl.ResetAt = w.reset
			}
		}
	}
	if lowest != nil {
		rl.RemainingPercent = lowest.percent()
		if !rl.Reached {
			rl.ResetAt = lowest.reset
		}
	}
	if tooMany {
		rl.Reached = true
		if len(windows) == 0 {
			rl.RemainingPercent = 0
		}
		if rl.ResetAt.IsZero() {
			if d, ok := parseRetryAfter(h, now); ok {
				rl.ResetAt = now.Add(d)
			}
		}
	}
	if !rl.ResetAt.IsZero() {
		rl.ResetAt = rl.ResetAt.UTC()
	}
	return rl
}

func parseNumber(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// parseReset understands the reset formats seen in the wild: a Go-style
// duration ("6m0s", "20ms"; OpenAI), an RFC 3339 time (Anthropic), or a
// number that is a Unix time in milliseconds or seconds (OpenRouter) or,
// when small, seconds from now.
func parseReset(s string, now time.Time) time.Time {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t
	}
	if f, ok := parseNumber(s); ok {
		switch {
		case f > 1e12:
			return time.UnixMilli(int64(f))
		case f > 1e9:
			return time.Unix(int64(f), 0)
		case f >= 0:
			return now.Add(time.Duration(f * float64(time.Second)))
		}
		return time.Time{}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(d)
	}
	return time.Time{}
}

// GuardAllows is the rate-limit guard: it decides whether a run may spend
// more quota. A nil rl (nothing known) is allowed, as Codex fails open. A
// reached limit is denied. Otherwise, like Codex, the used share
// (100 − remaining) must not exceed 100 − minRemainingPercent, the threshold
// being clamped to [0, 100]; equality is allowed. The reason is empty when
// allowed.
func GuardAllows(rl *RateLimit, minRemainingPercent int) (bool, string) {
	if rl == nil {
		return true, ""
	}
	name := rl.Provider
	if name == "" {
		name = "provider"
	}
	if rl.Reached {
		reason := name + " rate limit reached"
		if !rl.ResetAt.IsZero() {
			reason += " (resets at " + rl.ResetAt.UTC().Format(time.RFC3339) + ")"
		}
		return false, reason
	}
	minimum := max(0, min(100, minRemainingPercent))
	maxUsed := float64(100 - minimum)
	used := 100 - rl.RemainingPercent
	// Percentages computed from headers carry float noise (100 − 89.9 is
	// 10.099999…); round to a millionth so 89.9 % used stays 89.9.
	used = math.Round(used*1e6) / 1e6
	if used <= maxUsed {
		return true, ""
	}
	return false, fmt.Sprintf("%s rate limit has %.1f%% left, below the %d%% minimum (memories.min_rate_limit_remaining_percent)",
		name, rl.RemainingPercent, minimum)
}
