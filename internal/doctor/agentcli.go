package doctor

import (
	"fmt"

	"github.com/memctl/memctl/internal/agentcli"
)

// CheckAgentCLIs reports the agent CLIs installed here (Claude Code,
// Codex): version, login, and what the provider does with them.
const CheckAgentCLIs = "agent_cli"

// AgentCLIState is an agent CLI as agentcli.Detect found it, with how
// the provider stands towards it.
type AgentCLIState struct {
	Status agentcli.Status
	// Provider is what provider.kind resolves to.
	Provider string
	// Offer: provider.kind is auto and found no API key, so memory is
	// written by the offline heuristic; memctl offers the CLI instead.
	Offer bool
}

// agentCLIs says, for each installed agent CLI, what was found and what
// to do with it. All are information: a CLI the configured provider
// cannot use is the provider check's warning.
func agentCLIs(states []AgentCLIState) []Finding {
	var out []Finding
	for _, s := range states {
		st := s.Status
		if st.Path == "" {
			continue
		}
		kind := string(st.Agent)
		f := Finding{Check: CheckAgentCLIs, Severity: Info, Subject: kind, Message: st.Describe()}
		switch {
		case s.Provider == kind:
			f.Message += fmt.Sprintf(": memctl writes memory through it (provider.kind = %s)", kind)
		case !st.Usable():
			f.Fix = st.Agent.LoginHint() + ", and memctl can write memory through it (docs/providers.md)"
		case s.Offer:
			f.Message += ": it can write memory with a model instead of the offline heuristic, through this login (provider.kind = auto found no API key)"
			f.Fix = fmt.Sprintf("memctl run offers it and spends nothing before you say yes (or --yes); or set provider.kind = %q (docs/providers.md says what it costs)", kind)
		default:
			f.Message += fmt.Sprintf(": not used (the provider is %s)", s.Provider)
		}
		out = append(out, f)
	}
	return out
}
