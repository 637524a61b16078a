// Package model makes one structured call to a language model: a system
// prompt, an input, a JSON schema the answer must satisfy, a model and a
// reasoning effort in; the JSON answer, token usage and the provider's
// rate-limit state out. Providers: openai (Responses API), openai-compatible
// (Chat Completions), anthropic (Messages API), command (any program),
// claude-code and codex (the agent CLIs and the user's login in them).
package model

import (
	"context"
	"encoding/json"
	"time"
)

// Request is one structured call.
type Request struct {
	// Kind is "extract" or "consolidate"; the command provider passes it on.
	Kind            string
	Model           string // "" means the provider's default model
	ReasoningEffort string // "low", "medium", "high" or ""
	System          string
	// Input holds the user message(s). v1 extraction sends one; v2 splits
	// its evidence into several messages of at most 8,900 bytes.
	Input      []string
	SchemaName string          // a short identifier for the schema, e.g. "memory_stage1"
	Schema     json.RawMessage // JSON Schema the answer must satisfy
}

// Usage counts tokens as the provider reported them.
type Usage struct {
	InputTokens       int64 `json:"input_tokens"`
	CachedInputTokens int64 `json:"cached_input_tokens"`
	OutputTokens      int64 `json:"output_tokens"`
	ReasoningTokens   int64 `json:"reasoning_output_tokens"`
	TotalTokens       int64 `json:"total_tokens"`
	// CostUSD is what the provider said the call cost, 0 when it says
	// nothing (only Claude Code does, at API list prices whatever the
	// login).
	CostUSD float64 `json:"cost_usd,omitempty"`
}

// Add returns the sum of two usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		InputTokens:       u.InputTokens + o.InputTokens,
		CachedInputTokens: u.CachedInputTokens + o.CachedInputTokens,
		OutputTokens:      u.OutputTokens + o.OutputTokens,
		ReasoningTokens:   u.ReasoningTokens + o.ReasoningTokens,
		TotalTokens:       u.TotalTokens + o.TotalTokens,
		CostUSD:           u.CostUSD + o.CostUSD,
	}
}

// RateLimit is the share of the provider's quota left after a call, read
// from its response headers (x-ratelimit-*, anthropic-ratelimit-*).
type RateLimit struct {
	Provider string `json:"provider"`
	// RemainingPercent is the lowest remaining share over every window the
	// headers described (requests, tokens, input/output tokens), 0–100.
	RemainingPercent float64 `json:"remaining_percent"`
	// Reached is true when a window is exhausted (remaining 0 or a 429).
	Reached    bool      `json:"reached"`
	ObservedAt time.Time `json:"observed_at"`
	ResetAt    time.Time `json:"reset_at,omitzero"`
}

// Response is the answer of one structured call.
type Response struct {
	JSON      json.RawMessage // validated against Request.Schema
	Usage     Usage
	Model     string     // the model that answered, when reported
	RateLimit *RateLimit // nil when the provider sent no rate-limit headers
}

// Provider makes structured calls. Implementations are safe for concurrent use.
type Provider interface {
	// Name is the provider kind: openai, openai-compatible, anthropic,
	// command, claude-code, codex.
	Name() string
	// Call makes one structured call, retrying transient failures. The
	// returned error names the missing key variable, the unreachable URL, or
	// why the answer was refused.
	Call(ctx context.Context, req Request) (Response, error)
}
