package cmd

import (
	"fmt"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/model"
	"github.com/memctl/memctl/internal/pipeline"
)

// buildProvider resolves provider.kind (auto: openai, then anthropic, then
// heuristic, saying which it picked, where it will call and why) and
// builds it. A config that cannot work (no key, no model for a kind
// without a default) is refused here, before any thread is claimed, as a
// config error (exit 2).
func buildProvider(f *Factory, cfg *config.Config, purpose string) (pipeline.Provider, error) {
	choice := model.Choose(model.Kind(cfg.Provider.Kind), cfg.Provider.BaseURL, f.Getenv)
	kind := choice.Kind
	if !f.autoAnnounced && (model.Kind(cfg.Provider.Kind) == model.KindAuto || cfg.Provider.Kind == "") {
		f.autoAnnounced = true
		if kind == model.KindHeuristic {
			f.IO.Infof("memctl: provider auto picked heuristic (%s)", choice.Reason)
		} else {
			f.IO.Infof("memctl: provider auto picked %s at %s (%s)", kind, choice.Endpoint(), choice.Reason)
		}
	} else if kind != model.KindHeuristic && kind != model.KindCommand && !isAgentKind(kind) {
		f.IO.Debugf("memctl: provider %s at %s (%s)", kind, choice.Endpoint(), choice.Reason)
	}
	if kind == model.KindHeuristic {
		return pipeline.Provider{Kind: kind}, nil
	}
	retries := cfg.Provider.MaxRetries
	if retries == 0 {
		retries = -1 // the config's 0 means no retries; the model package's 0 means its default
	}
	red, err := redactor(cfg)
	if err != nil {
		return pipeline.Provider{}, err
	}
	p, err := model.New(model.Options{
		Kind: kind, BaseURL: choice.BaseURL, APIKeyEnv: cfg.Provider.APIKeyEnv, Command: cfg.Provider.Command,
		Timeout: cfg.Provider.Timeout, MaxRetries: retries, Getenv: f.Getenv, Stderr: f.IO.ErrOut, Now: f.Now,
		Environ: f.Environ, Redact: red,
	})
	if err != nil {
		return pipeline.Provider{}, &config.Error{Key: "provider", Err: err}
	}
	if isAgentKind(kind) {
		if err := checkAgentLogin(f, cfg, kind); err != nil {
			return pipeline.Provider{}, err
		}
	}
	if kind == model.KindCommand {
		if err := pipeline.CheckProgram(cfg.Provider.Command[0]); err != nil {
			return pipeline.Provider{}, &config.Error{Key: "provider.command", Err: err}
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
		return pipeline.Provider{}, &config.Error{Key: key, Err: fmt.Errorf("provider %s has no default model; set %s to a model the server at %s serves", kind, key, choice.Endpoint())}
	}
	return pipeline.Provider{Provider: p, Kind: kind, Model: m}, nil
}
