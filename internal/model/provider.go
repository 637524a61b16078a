package model

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/agentcli"
)

// Kind is a provider kind, the value of provider.kind.
type Kind string

// Provider kinds accepted by New and Resolve.
const (
	KindAuto             Kind = "auto"
	KindOpenAI           Kind = "openai"
	KindOpenAICompatible Kind = "openai-compatible"
	KindAnthropic        Kind = "anthropic"
	KindCommand          Kind = "command"
	KindClaudeCode       Kind = Kind(agentcli.ClaudeCode)
	KindCodex            Kind = Kind(agentcli.Codex)
	KindHeuristic        Kind = "heuristic"
)

// Kinds lists every provider kind, in the order config documents them.
func Kinds() []Kind {
	return []Kind{KindAuto, KindOpenAI, KindOpenAICompatible, KindAnthropic, KindCommand, KindClaudeCode, KindCodex, KindHeuristic}
}

// Request kinds (Request.Kind), which DefaultModel also takes as purpose.
const (
	PurposeExtract     = "extract"
	PurposeConsolidate = "consolidate"
)

// Defaults applied by New when an Options field is left zero.
const (
	DefaultTimeout    = 10 * time.Minute
	DefaultMaxRetries = 4
	// DefaultMaxOutputTokens bounds an Anthropic answer. The Messages API
	// requires a limit; 16k leaves room for a consolidation answer that
	// rewrites several memory files at once.
	DefaultMaxOutputTokens = 16384
)

// Options configures a provider (from the [provider] config section).
type Options struct {
	Kind Kind // openai | openai-compatible | anthropic | command | claude-code | codex
	// BaseURL overrides the endpoint. Empty means the public endpoint for
	// openai (https://api.openai.com/v1) and anthropic
	// (https://api.anthropic.com, without /v1: the SDK appends v1/messages).
	// openai-compatible has no public endpoint and requires it, e.g.
	// http://localhost:11434/v1 for Ollama. claude-code and codex pass it
	// to the CLI as the endpoint to call instead of its own.
	BaseURL string
	// APIKeyEnv names the variable holding the API key. Empty means
	// OPENAI_API_KEY or ANTHROPIC_API_KEY by kind. openai-compatible sends a
	// key only when APIKeyEnv is set (Ollama and llama.cpp need none).
	APIKeyEnv string
	// Command is the argv of the program: kind=command's, or the agent
	// CLI of claude-code and codex (empty: claude or codex on PATH).
	Command    []string
	Timeout    time.Duration // per attempt; 0 = DefaultTimeout
	MaxRetries int           // retries after the first attempt; 0 = DefaultMaxRetries, negative = none
	// MaxOutputTokens is the Anthropic max_tokens; 0 = DefaultMaxOutputTokens.
	MaxOutputTokens int64
	Getenv          func(string) string
	HTTPClient      *http.Client // nil = a plain client with no overall timeout (attempts carry their own)
	// Sleep waits between retries; nil = a real sleep that returns early
	// with ctx.Err() when ctx ends. Tests fake it to observe delays.
	Sleep  func(ctx context.Context, d time.Duration) error
	Stderr io.Writer        // where the command provider's stderr goes (nil = discard)
	Now    func() time.Time // clock for rate-limit observations; nil = time.Now
	// Environ is the environment the agent CLIs inherit; nil means this
	// process's own.
	Environ func() []string
	// LookPath finds the agent CLI on PATH; nil means exec.LookPath.
	LookPath func(string) (string, error)
	// Redact scrubs what an agent CLI said (its error, its stderr)
	// before it is kept in an error; nil keeps it as is.
	Redact func(string) string
	// ScratchDir is where the agent CLIs' scratch folders are made; ""
	// means the system's temporary folder.
	ScratchDir string
}

// New builds the provider opts describe. It fails when the kind is unknown
// (auto must go through Resolve first, heuristic makes no model calls), when
// a required API key variable is empty (the error names it), when BaseURL
// is not an absolute http(s) URL, when kind=command has no argv, or when
// the agent CLI of claude-code or codex is not found (an *AgentError).
func New(opts Options) (Provider, error) {
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	switch {
	case opts.MaxRetries == 0:
		opts.MaxRetries = DefaultMaxRetries
	case opts.MaxRetries < 0:
		opts.MaxRetries = 0
	}
	if opts.MaxOutputTokens <= 0 {
		opts.MaxOutputTokens = DefaultMaxOutputTokens
	}
	if opts.Sleep == nil {
		opts.Sleep = sleepCtx
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{}
	}
	if opts.BaseURL != "" {
		if err := checkBaseURL(opts.BaseURL); err != nil {
			return nil, err
		}
	}

	switch opts.Kind {
	case KindOpenAI:
		key, err := requireKey(opts, "OPENAI_API_KEY")
		if err != nil {
			return nil, err
		}
		return newOpenAI(opts, key), nil
	case KindOpenAICompatible:
		if opts.BaseURL == "" {
			return nil, errors.New("provider kind openai-compatible needs base_url (for example http://localhost:11434/v1 for Ollama)")
		}
		key := ""
		if opts.APIKeyEnv != "" {
			var err error
			if key, err = requireKey(opts, opts.APIKeyEnv); err != nil {
				return nil, err
			}
		}
		return newOpenAI(opts, key), nil
	case KindAnthropic:
		key, err := requireKey(opts, "ANTHROPIC_API_KEY")
		if err != nil {
			return nil, err
		}
		return newAnthropic(opts, key), nil
	case KindCommand:
		if len(opts.Command) == 0 || opts.Command[0] == "" {
			return nil, errors.New("provider kind command needs provider.command (the argv of the program to run)")
		}
		return newCommand(opts), nil
	case KindClaudeCode, KindCodex:
		return newAgent(opts, agentcli.Agent(opts.Kind))
	case KindAuto, "":
		return nil, errors.New(`provider kind "auto" must be resolved first (see model.Resolve)`)
	case KindHeuristic:
		return nil, errors.New(`provider kind "heuristic" makes no model calls`)
	default:
		return nil, fmt.Errorf("unknown provider kind %q (want openai, openai-compatible, anthropic, command, claude-code or codex)", opts.Kind)
	}
}

// requireKey reads the API key variable (opts.APIKeyEnv, else fallback) and
// names it when it is empty, so the user knows exactly what to export.
func requireKey(opts Options, fallback string) (string, error) {
	name := opts.APIKeyEnv
	if name == "" {
		name = fallback
	}
	key := strings.TrimSpace(opts.Getenv(name))
	if key == "" {
		return "", &MissingKeyError{Var: name, Kind: opts.Kind}
	}
	return key, nil
}

// MissingKeyError is returned by New when the API key variable a provider
// needs is unset or empty.
type MissingKeyError struct {
	Var  string // the environment variable, e.g. OPENAI_API_KEY
	Kind Kind   // the provider kind that needs it
}

func (e *MissingKeyError) Error() string {
	return fmt.Sprintf("%s is not set (the %s provider needs an API key)", e.Var, e.Kind)
}

func checkBaseURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("invalid base_url %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("invalid base_url %q: want an http:// or https:// URL", raw)
	}
	if u.Host == "" {
		return fmt.Errorf("invalid base_url %q: no host", raw)
	}
	return nil
}

// Resolve turns "auto" (or an empty kind) into a concrete kind: openai when
// OPENAI_API_KEY is set, else anthropic when ANTHROPIC_API_KEY is set, else
// heuristic. Other kinds are returned unchanged.
func Resolve(kind Kind, getenv func(string) string) Kind {
	return Choose(kind, "", getenv).Kind
}

// Choice is a resolved provider kind with the endpoint it will call and
// why, so a command can say which provider it picked and where it goes.
type Choice struct {
	Kind Kind
	// BaseURL is the endpoint: the configured base_url, else the SDK's
	// base-URL variable (OPENAI_BASE_URL, ANTHROPIC_BASE_URL), else empty
	// for the public endpoint.
	BaseURL string
	// Reason says why this kind was picked (auto only) and where BaseURL
	// came from.
	Reason string
}

// Endpoint is BaseURL, or the public endpoint it stands for.
func (c Choice) Endpoint() string {
	switch {
	case c.BaseURL != "":
		return c.BaseURL
	case c.Kind == KindOpenAI:
		return "https://api.openai.com/v1"
	case c.Kind == KindAnthropic:
		return strings.TrimSuffix(anthropicPublicURL, "/")
	}
	return ""
}

// baseURLVars are the variables the official SDKs read for their endpoint.
// memctl builds its clients without the SDKs' environment defaults (so no
// stray profile or key is picked up), and applies these itself.
var baseURLVars = map[Kind]string{KindOpenAI: "OPENAI_BASE_URL", KindAnthropic: "ANTHROPIC_BASE_URL"}

// Choose resolves kind like Resolve and picks the endpoint: baseURL (the
// config's provider.base_url) when set, else the SDK's base-URL variable of
// the chosen kind. The reason names the variables that decided.
func Choose(kind Kind, baseURL string, getenv func(string) string) Choice {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	set := func(v string) bool { return strings.TrimSpace(getenv(v)) != "" }
	var c Choice
	switch {
	case kind != KindAuto && kind != "":
		c.Kind = kind
	case set("OPENAI_API_KEY"):
		c = Choice{Kind: KindOpenAI, Reason: "OPENAI_API_KEY is set"}
	case set("ANTHROPIC_API_KEY"):
		c = Choice{Kind: KindAnthropic, Reason: "ANTHROPIC_API_KEY is set"}
	default:
		return Choice{Kind: KindHeuristic, Reason: "no OPENAI_API_KEY or ANTHROPIC_API_KEY: offline extraction"}
	}
	why := func(s string) {
		if c.Reason != "" {
			c.Reason += "; "
		}
		c.Reason += s
	}
	switch v := baseURLVars[c.Kind]; {
	case baseURL != "":
		c.BaseURL = baseURL
		why("endpoint from provider.base_url")
	case v != "" && set(v):
		c.BaseURL = strings.TrimSpace(getenv(v))
		why("endpoint from " + v)
	case v != "":
		why("public endpoint (" + v + " is not set)")
	}
	return c
}

// DefaultModel is the model used when none is configured, per provider kind
// and purpose ("extract" wants a small, cheap model; "consolidate" a
// stronger one):
//
//	openai       extract: gpt-5.6-luna      consolidate: gpt-5.6-terra
//	anthropic    extract: claude-haiku-5-5  consolidate: claude-sonnet-5-5
//	claude-code  extract: haiku             consolidate: sonnet
//	codex        extract: gpt-5.6-luna      consolidate: gpt-5.6-terra
//
// The openai pair follows Codex's newer memory defaults (older releases used
// gpt-5.4-mini and gpt-5.4), and codex, which is the same models through
// the Codex login, uses it too. claude-code names Claude Code's aliases,
// which it resolves to the newest model of that family the login may use.
// openai-compatible servers host arbitrary models
// and the command program picks its own, so both get "": Call then fails
// with a message asking for memories.extract_model or
// memories.consolidation_model (openai-compatible) or passes an empty model
// through (command).
func DefaultModel(kind Kind, purpose string) string {
	consolidate := purpose == PurposeConsolidate
	switch kind {
	case KindOpenAI, KindCodex:
		if consolidate {
			return "gpt-5.6-terra"
		}
		return "gpt-5.6-luna"
	case KindClaudeCode:
		if consolidate {
			return "sonnet"
		}
		return "haiku"
	case KindAnthropic:
		if consolidate {
			return "claude-sonnet-5-5"
		}
		return "claude-haiku-5-5"
	default:
		return ""
	}
}

// pickModel applies DefaultModel and explains an unset model for kinds
// without a default.
func pickModel(kind Kind, req Request) (string, error) {
	if req.Model != "" {
		return req.Model, nil
	}
	if m := DefaultModel(kind, req.Kind); m != "" {
		return m, nil
	}
	key := "memories.extract_model"
	if req.Kind == PurposeConsolidate {
		key = "memories.consolidation_model"
	}
	return "", fmt.Errorf("%s: no model configured (set %s)", kind, key)
}

// sleepCtx waits d or until ctx ends, whichever is first.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
