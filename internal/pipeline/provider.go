package pipeline

import (
	"context"
	"fmt"

	"github.com/memctl/memctl/internal/agentcli"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/model"
)

// Provider resolves provider.kind for a purpose (model.PurposeExtract or
// model.PurposeConsolidate; auto: openai, then anthropic, then heuristic,
// saying which it picked, where it will call and why) and builds it. A
// config that cannot work (no key, no model for a kind without a default)
// is refused here, before any thread is claimed, as a *config.Error.
func (h *Home) Provider(purpose string) (Provider, error) {
	if h.env.Provider != nil {
		return *h.env.Provider, nil
	}
	cfg, rep := h.cfg, h.env.Reporter
	choice := model.Choose(model.Kind(cfg.Provider.Kind), cfg.Provider.BaseURL, h.env.Getenv)
	kind := choice.Kind
	if !h.announced && (model.Kind(cfg.Provider.Kind) == model.KindAuto || cfg.Provider.Kind == "") {
		h.announced = true
		if kind == model.KindHeuristic {
			rep.Infof("memctl: provider auto picked heuristic (%s)", choice.Reason)
		} else {
			rep.Infof("memctl: provider auto picked %s at %s (%s)", kind, choice.Endpoint(), choice.Reason)
		}
	} else if kind != model.KindHeuristic && kind != model.KindCommand && !isAgentKind(kind) {
		rep.Debugf("memctl: provider %s at %s (%s)", kind, choice.Endpoint(), choice.Reason)
	}
	if kind == model.KindHeuristic {
		return Provider{Kind: kind}, nil
	}
	retries := cfg.Provider.MaxRetries
	if retries == 0 {
		retries = -1 // the config's 0 means no retries; the model package's 0 means its default
	}
	red, err := Redactor(cfg)
	if err != nil {
		return Provider{}, err
	}
	p, err := model.New(model.Options{
		Kind: kind, BaseURL: choice.BaseURL, APIKeyEnv: cfg.Provider.APIKeyEnv, Command: cfg.Provider.Command,
		Timeout: cfg.Provider.Timeout, MaxRetries: retries, Getenv: h.env.Getenv, Stderr: h.env.Stderr, Now: h.env.Now,
		Environ: h.env.Environ, Redact: red,
	})
	if err != nil {
		return Provider{}, &config.Error{Key: "provider", Err: err}
	}
	if isAgentKind(kind) {
		if err := h.checkAgentLogin(kind); err != nil {
			return Provider{}, err
		}
	}
	if kind == model.KindCommand {
		if err := checkProgram(cfg.Provider.Command[0]); err != nil {
			return Provider{}, &config.Error{Key: "provider.command", Err: err}
		}
	}
	key, m := "memories.extract_model", cfg.Memories.ExtractModel
	if purpose == model.PurposeConsolidate {
		key, m = "memories.consolidation_model", cfg.Memories.ConsolidationModel
	}
	if m == "" {
		m = model.DefaultModel(kind, purpose)
	}
	if m == "" && kind != model.KindCommand {
		// openai-compatible servers host arbitrary models: there is no
		// default to fall back on, and every call would fail.
		return Provider{}, &config.Error{Key: key, Err: fmt.Errorf("provider %s has no default model; set %s to a model the server at %s serves", kind, key, choice.Endpoint())}
	}
	return Provider{Provider: p, Kind: kind, Model: m}, nil
}

// isAgentKind: the provider kind sends its calls through an agent CLI.
func isAgentKind(kind model.Kind) bool {
	return kind == model.KindClaudeCode || kind == model.KindCodex
}

// checkAgentLogin refuses an agent CLI that holds no login before any
// thread is claimed: every call would fail, each burning a retry.
func (h *Home) checkAgentLogin(kind model.Kind) error {
	agent := agentcli.Agent(kind)
	st := h.agentStatus(agent, h.cfg.Provider.Command)
	if st.Usable() {
		h.env.Reporter.Debugf("memctl: provider %s through %s (%s)", kind, st.Path, st.Describe())
		return nil
	}
	return &config.Error{Key: "provider.kind", Err: fmt.Errorf("%s: %s; %s, then run memctl again", kind, st.Describe(), agent.LoginHint())}
}

// agentStatus asks an agent CLI whether it is there and logged in: through
// Env.AgentStatus when the process keeps one answer for every command
// that asks, else once per Home.
func (h *Home) agentStatus(agent agentcli.Agent, program []string) agentcli.Status {
	if h.env.AgentStatus != nil {
		return h.env.AgentStatus(agent, program)
	}
	if st, ok := h.agents[agent]; ok {
		return st
	}
	st := agentcli.Detect(context.Background(), agent, program, agentcli.Env{Getenv: h.env.Getenv, Environ: h.env.Environ})
	if h.agents == nil {
		h.agents = map[agentcli.Agent]agentcli.Status{}
	}
	h.agents[agent] = st
	return st
}
