package cmd

import (
	"github.com/memctl/memctl/pkg/config"
	"github.com/memctl/memctl/pkg/model"
)

// resolvedProvider is the provider a stage uses: nil Provider means the
// offline heuristic.
type resolvedProvider struct {
	Provider model.Provider
	Kind     string // openai, anthropic, command, heuristic …
	Model    string
}

// buildProvider resolves provider.kind (auto: openai, then anthropic, then
// heuristic, saying which it picked) and builds it.
func buildProvider(f *Factory, cfg *config.Config, purpose string) (resolvedProvider, error) {
	kind := model.Resolve(cfg.Provider.Kind, f.Getenv)
	if cfg.Provider.Kind == model.KindAuto && !f.autoAnnounced {
		f.autoAnnounced = true
		f.infof("memctl: provider auto picked %s%s", kind, autoReason(kind))
	}
	if kind == model.KindHeuristic {
		return resolvedProvider{Kind: kind}, nil
	}
	retries := cfg.Provider.MaxRetries
	if retries == 0 {
		retries = -1 // the config's 0 means no retries; the model package's 0 means its default
	}
	p, err := model.New(model.Options{
		Kind: kind, BaseURL: cfg.Provider.BaseURL, APIKeyEnv: cfg.Provider.APIKeyEnv, Command: cfg.Provider.Command,
		Timeout: cfg.Provider.Timeout, MaxRetries: retries, Getenv: f.Getenv, Stderr: f.IO.ErrOut, Now: f.Now,
	})
	if err != nil {
		return resolvedProvider{}, &config.Error{Key: "provider", Err: err}
	}
	m := cfg.Memories.ExtractModel
	if purpose == model.PurposeConsolidate {
		m = cfg.Memories.ConsolidationModel
	}
	if m == "" {
		m = model.DefaultModel(kind, purpose)
	}
	return resolvedProvider{Provider: p, Kind: kind, Model: m}, nil
}

func autoReason(kind string) string {
	switch kind {
	case model.KindOpenAI:
		return " (OPENAI_API_KEY is set)"
	case model.KindAnthropic:
		return " (ANTHROPIC_API_KEY is set)"
	default:
		return " (no OPENAI_API_KEY or ANTHROPIC_API_KEY: offline extraction)"
	}
}
