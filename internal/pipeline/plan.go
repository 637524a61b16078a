package pipeline

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/consolidate"
	"github.com/memctl/memctl/internal/model"
)

// Phase names a phase a command runs, for Plan.
type Phase int

// The phases a plan resolves.
const (
	PhaseExtract Phase = 1 << iota
	PhaseConsolidate
)

// planCache is what Plan resolved so far: each part once per Home.
type planCache struct {
	redact       func(string) string
	extract      *Provider
	consolidator consolidate.Consolidator
	consolidate  Provider
}

// Plan resolves the redaction and what phases need: Phase 1's provider
// (extract), Phase 2's consolidator and what answers it (consolidate).
// Each part is resolved once per Home, so every version's stages share
// it. A config that cannot work (a bad redaction pattern, a provider
// without key or model, agent mode without a command) is refused here,
// before any stage of any version prunes, claims a thread or takes the
// lock.
func (h *Home) Plan(phases Phase) (Plan, error) {
	c := &h.plan
	if c.redact == nil {
		red, err := Redactor(h.cfg)
		if err != nil {
			return Plan{}, err
		}
		c.redact = red
	}
	if err := h.resolveModels(phases); err != nil {
		return Plan{}, err
	}
	plan := Plan{Redact: c.redact, Consolidator: c.consolidator, Consolidate: c.consolidate}
	if c.extract != nil {
		plan.Extract = *c.extract
	}
	return plan, nil
}

// resolveModels resolves what answers each phase: Phase 1's provider,
// Phase 2's consolidator and its provider.
func (h *Home) resolveModels(phases Phase) error {
	c := &h.plan
	if phases&PhaseExtract != 0 && c.extract == nil {
		prov, err := h.Provider(model.PurposeExtract)
		if err != nil {
			return err
		}
		c.extract = &prov
	}
	if phases&PhaseConsolidate != 0 && c.consolidator == nil {
		modelProvider := func() (Provider, error) { return h.Provider(model.PurposeConsolidate) }
		cons, prov, err := resolveConsolidator(h.cfg, h.cfg.Consolidation.Mode, h.env.Getenv, modelProvider, h.env.Stderr)
		if err != nil {
			return err
		}
		c.consolidator, c.consolidate = cons, prov
	}
	return nil
}

// ModelCheck is whether the models a run would use can work, found the way
// the run finds them but without calling any: what provider.kind resolves
// to and why, and the error a run would stop with.
type ModelCheck struct {
	Choice model.Choice
	// Auto: provider.kind is auto (or empty), so Choice was picked.
	Auto bool
	// Err is the run's *config.Error: a key missing, a program not found,
	// no model for a kind without a default; nil when both phases can run.
	Err error
}

// CheckModels resolves both phases' models as Run would (building the
// providers, looking the programs up) and says whether they can work,
// telling the Reporter nothing. `memctl doctor` asks it.
func (h *Home) CheckModels() ModelCheck {
	cfg := h.cfg
	c := ModelCheck{Choice: model.Choose(model.Kind(cfg.Provider.Kind), cfg.Provider.BaseURL, h.env.Getenv),
		Auto: model.Kind(cfg.Provider.Kind) == model.KindAuto || cfg.Provider.Kind == ""}
	env := h.env
	env.Reporter, env.Stderr = Quiet{}, nil
	probe := New(cfg, env)
	c.Err = probe.resolveModels(PhaseExtract | PhaseConsolidate)
	return c
}

// resolveConsolidator resolves consolidation.mode into Phase 2's consolidator and
// what answers it (Kind, Model; Provider is nil but in model mode), for the
// token record and the history. auto is model when provider.kind resolves
// to a model (getenv reads its keys), else heuristic; provider builds the
// configured model provider, asked only in model mode; an agent
// consolidator writes its own messages to agentLog. A mode that cannot
// work is a *config.Error.
func resolveConsolidator(cfg *config.Config, mode config.ConsolidationMode, getenv func(string) string, provider func() (Provider, error), agentLog io.Writer) (consolidate.Consolidator, Provider, error) {
	if mode == config.ModeAuto {
		if model.Resolve(model.Kind(cfg.Provider.Kind), getenv) == model.KindHeuristic {
			mode = config.ModeHeuristic
		} else {
			mode = config.ModeModel
		}
	}
	switch mode {
	case config.ModeHeuristic:
		return consolidate.NewHeuristic(), Provider{Kind: model.KindHeuristic}, nil
	case config.ModeModel:
		prov, err := provider()
		if err != nil {
			return nil, Provider{}, err
		}
		if prov.Provider == nil {
			return nil, Provider{}, &config.Error{Key: "consolidation.mode", Err: fmt.Errorf("mode \"model\" needs a model provider, but provider.kind resolves to heuristic")}
		}
		return consolidate.NewModel(prov.Provider, prov.Model), prov, nil
	case config.ModeAgent:
		argv := cfg.Consolidation.AgentCommand
		if len(argv) == 0 || argv[0] == "" {
			return nil, Provider{}, &config.Error{Key: "consolidation.agent_command", Err: fmt.Errorf("mode \"agent\" needs agent_command")}
		}
		if err := checkProgram(argv[0]); err != nil {
			return nil, Provider{}, &config.Error{Key: "consolidation.agent_command", Err: err}
		}
		// The agent answers: recorded under its mode.
		return consolidate.NewAgent(argv, cfg.Consolidation.AgentTimeout, agentEnv(), agentLog), Provider{Kind: model.Kind(config.ModeAgent)}, nil
	}
	return nil, Provider{}, &config.Error{Key: "consolidation.mode", Err: fmt.Errorf("unknown mode %q", mode)}
}

// agentEnv is the environment of the consolidation agent: this process's,
// less memctl's own variables, so the agent cannot reach memctl's home or
// config through them.
func agentEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "MEMCTL_") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// checkProgram refuses a program that cannot be started, so a typo in
// provider.command or consolidation.agent_command is a config error (exit
// 2) before any stage runs, not a failure per thread that spends its
// retries and backs it off. A relative path with a slash is left to the
// run: the agent resolves it inside the memory folder.
func checkProgram(name string) error {
	if !filepath.IsAbs(name) && filepath.Base(name) != name {
		return nil
	}
	_, err := exec.LookPath(name)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, exec.ErrNotFound):
		return fmt.Errorf("program %q is not in PATH", name)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("program %s does not exist", name)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("program %s is not executable", name)
	}
	return fmt.Errorf("program %s cannot be run: %w", name, err)
}
