package pipeline

import (
	"fmt"

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
	} else if kind != model.KindHeuristic && kind != model.KindCommand {
		rep.Debugf("memctl: provider %s at %s (%s)", kind, choice.Endpoint(), choice.Reason)
	}
	if kind == model.KindHeuristic {
		return Provider{Kind: kind}, nil
	}
	retries := cfg.Provider.MaxRetries
	if retries == 0 {
		retries = -1 // the config's 0 means no retries; the model package's 0 means its default
	}
	p, err := model.New(model.Options{
		Kind: kind, BaseURL: choice.BaseURL, APIKeyEnv: cfg.Provider.APIKeyEnv, Command: cfg.Provider.Command,
		Timeout: cfg.Provider.Timeout, MaxRetries: retries, Getenv: h.env.Getenv, Stderr: h.env.Stderr, Now: h.env.Now,
	})
	if err != nil {
		return Provider{}, &config.Error{Key: "provider", Err: err}
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
