package cmd

import (
	"context"

	"github.com/memctl/memctl/internal/agentcli"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/model"
)

// isAgentKind: the provider kind sends its calls through an agent CLI.
func isAgentKind(kind model.Kind) bool {
	return kind == model.KindClaudeCode || kind == model.KindCodex
}

// agentEnv is how the agent CLIs see this process's environment.
func (f *Factory) agentEnv() agentcli.Env {
	return agentcli.Env{Getenv: f.Getenv, Environ: f.Environ}
}

// agentStatus asks an agent CLI once per process whether it is there and
// logged in (both phases build a provider; the answer is the same).
func (f *Factory) agentStatus(agent agentcli.Agent, program []string) agentcli.Status {
	if st, ok := f.agents[agent]; ok {
		return st
	}
	st := agentcli.Detect(context.Background(), agent, program, f.agentEnv())
	if f.agents == nil {
		f.agents = map[agentcli.Agent]agentcli.Status{}
	}
	f.agents[agent] = st
	return st
}

// detectAgentCLIs asks every agent CLI about itself; the one provider.kind
// names is run as provider.command says.
func detectAgentCLIs(f *Factory, cfg *config.Config) []agentcli.Status {
	var out []agentcli.Status
	for _, a := range agentcli.Agents() {
		var program []string
		if cfg.Provider.Kind == string(a) {
			program = cfg.Provider.Command
		}
		out = append(out, f.agentStatus(a, program))
	}
	return out
}
