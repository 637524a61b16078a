package model

import (
	"errors"
	"strings"
	"testing"
)

func TestNewErrors(t *testing.T) {
	noEnv := envOf(nil)
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"openai without key", Options{Kind: KindOpenAI, Getenv: noEnv}, "OPENAI_API_KEY is not set"},
		{"openai nil getenv", Options{Kind: KindOpenAI}, "OPENAI_API_KEY is not set"},
		{"openai custom key var", Options{Kind: KindOpenAI, APIKeyEnv: "WORK_OPENAI_KEY", Getenv: envOf(map[string]string{"OPENAI_API_KEY": "unused"})}, "WORK_OPENAI_KEY is not set"},
		{"anthropic without key", Options{Kind: KindAnthropic, Getenv: noEnv}, "ANTHROPIC_API_KEY is not set"},
		{"anthropic blank key", Options{Kind: KindAnthropic, Getenv: envOf(map[string]string{"ANTHROPIC_API_KEY": "  "})}, "ANTHROPIC_API_KEY is not set"},
		{"compatible named key missing", Options{Kind: KindOpenAICompatible, BaseURL: "http://localhost:11434/v1", APIKeyEnv: "OPENROUTER_API_KEY", Getenv: noEnv}, "OPENROUTER_API_KEY is not set"},
		{"compatible without base_url", Options{Kind: KindOpenAICompatible, Getenv: noEnv}, "needs base_url"},
		{"bad scheme", Options{Kind: KindOpenAI, BaseURL: "ftp://example.com", Getenv: envOf(map[string]string{"OPENAI_API_KEY": "k"})}, `invalid base_url "ftp://example.com"`},
		{"no host", Options{Kind: KindAnthropic, BaseURL: "https://", Getenv: envOf(map[string]string{"ANTHROPIC_API_KEY": "k"})}, "no host"},
		{"unparsable url", Options{Kind: KindOpenAICompatible, BaseURL: "http://[::1", Getenv: noEnv}, "invalid base_url"},
		{"empty command", Options{Kind: KindCommand}, "needs provider.command"},
		{"blank argv0", Options{Kind: KindCommand, Command: []string{""}}, "needs provider.command"},
		{"auto unresolved", Options{Kind: KindAuto}, "must be resolved"},
		{"heuristic", Options{Kind: KindHeuristic}, "makes no model calls"},
		{"unknown", Options{Kind: "gemini"}, `unknown provider kind "gemini"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New = %v, %v; want error containing %q", p, err, tt.want)
			}
		})
	}
}

func TestNewMissingKeyIsTyped(t *testing.T) {
	_, err := New(Options{Kind: KindAnthropic, Getenv: envOf(nil)})
	var mk *MissingKeyError
	if !errors.As(err, &mk) || mk.Var != "ANTHROPIC_API_KEY" || mk.Kind != KindAnthropic {
		t.Fatalf("err = %#v, want *MissingKeyError for ANTHROPIC_API_KEY", err)
	}
}

func TestNewSucceeds(t *testing.T) {
	key := envOf(map[string]string{"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k"})
	tests := []struct {
		opts Options
		name string
	}{
		{Options{Kind: KindOpenAI, Getenv: key}, "openai"},
		{Options{Kind: KindOpenAI, BaseURL: "https://proxy.example.com/v1", Getenv: key}, "openai"},
		{Options{Kind: KindOpenAICompatible, BaseURL: "http://localhost:11434/v1"}, "openai-compatible"},
		{Options{Kind: KindAnthropic, Getenv: key}, "anthropic"},
		{Options{Kind: KindCommand, Command: []string{"llm", "-m", "x"}}, "command"},
	}
	for _, tt := range tests {
		p, err := New(tt.opts)
		if err != nil {
			t.Errorf("New(%+v): %v", tt.opts, err)
			continue
		}
		if p.Name() != tt.name {
			t.Errorf("Name = %q, want %q", p.Name(), tt.name)
		}
	}
}

func TestResolve(t *testing.T) {
	tests := []struct {
		kind string
		env  map[string]string
		want string
	}{
		{"auto", map[string]string{"OPENAI_API_KEY": "a", "ANTHROPIC_API_KEY": "b"}, "openai"},
		{"auto", map[string]string{"ANTHROPIC_API_KEY": "b"}, "anthropic"},
		{"auto", map[string]string{"OPENAI_API_KEY": " "}, "heuristic"},
		{"auto", nil, "heuristic"},
		{"", map[string]string{"OPENAI_API_KEY": "a"}, "openai"},
		{"anthropic", map[string]string{"OPENAI_API_KEY": "a"}, "anthropic"},
		{"command", nil, "command"},
		{"heuristic", map[string]string{"OPENAI_API_KEY": "a"}, "heuristic"},
		{"openai-compatible", nil, "openai-compatible"},
	}
	for _, tt := range tests {
		if got := Resolve(Kind(tt.kind), envOf(tt.env)); got != Kind(tt.want) {
			t.Errorf("Resolve(%q, %v) = %q, want %q", tt.kind, tt.env, got, tt.want)
		}
	}
	if got := Resolve("auto", nil); got != "heuristic" {
		t.Errorf("Resolve with nil getenv = %q", got)
	}
}

func TestChooseEndpoint(t *testing.T) {
	tests := []struct {
		kind, base string
		env        map[string]string
		want       Choice
		endpoint   string
	}{
		{"auto", "", map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": "http://127.0.0.1:1"},
			Choice{KindAnthropic, "http://127.0.0.1:1", "ANTHROPIC_API_KEY is set; endpoint from ANTHROPIC_BASE_URL"}, "http://127.0.0.1:1"},
		{"auto", "", map[string]string{"ANTHROPIC_API_KEY": "k"},
			Choice{KindAnthropic, "", "ANTHROPIC_API_KEY is set; public endpoint (ANTHROPIC_BASE_URL is not set)"}, "https://api.anthropic.com"},
		{"auto", "http://cfg/v1", map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "http://env/v1"},
			Choice{KindOpenAI, "http://cfg/v1", "OPENAI_API_KEY is set; endpoint from provider.base_url"}, "http://cfg/v1"},
		{"openai", "", map[string]string{"OPENAI_BASE_URL": "http://env/v1", "ANTHROPIC_BASE_URL": "http://a"},
			Choice{KindOpenAI, "http://env/v1", "endpoint from OPENAI_BASE_URL"}, "http://env/v1"},
		// openai-compatible has no SDK variable: only base_url counts.
		{"openai-compatible", "", map[string]string{"OPENAI_BASE_URL": "http://env/v1"}, Choice{KindOpenAICompatible, "", ""}, ""},
	}
	for _, tt := range tests {
		got := Choose(Kind(tt.kind), tt.base, envOf(tt.env))
		if got != tt.want || got.Endpoint() != tt.endpoint {
			t.Errorf("Choose(%q, %q, %v) = %+v (endpoint %q), want %+v (%q)", tt.kind, tt.base, tt.env, got, got.Endpoint(), tt.want, tt.endpoint)
		}
	}
}

func TestDefaultModel(t *testing.T) {
	tests := []struct{ kind, purpose, want string }{
		{"openai", "extract", "gpt-5.6-luna"},
		{"openai", "consolidate", "gpt-5.6-terra"},
		{"openai", "", "gpt-5.6-luna"},
		{"anthropic", "extract", "claude-haiku-5-5"},
		{"anthropic", "consolidate", "claude-sonnet-5-5"},
		{"openai-compatible", "extract", ""},
		{"command", "consolidate", ""},
		{"heuristic", "extract", ""},
	}
	for _, tt := range tests {
		if got := DefaultModel(Kind(tt.kind), tt.purpose); got != tt.want {
			t.Errorf("DefaultModel(%q, %q) = %q, want %q", tt.kind, tt.purpose, got, tt.want)
		}
	}
}

func TestSchemaName(t *testing.T) {
	tests := map[string]string{
		"memory_stage1":         "memory_stage1",
		"":                      "answer",
		"memory stage/1":        "memory_stage_1",
		strings.Repeat("a", 70): strings.Repeat("a", 64),
	}
	for in, want := range tests {
		if got := schemaName(in); got != want {
			t.Errorf("schemaName(%q) = %q, want %q", in, got, want)
		}
	}
}
