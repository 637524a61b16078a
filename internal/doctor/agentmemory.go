package doctor

import (
	"fmt"

	"github.com/memctl/memctl/internal/agentmemory"
	"github.com/memctl/memctl/internal/english"
)

// CheckAgentMemory reports the agents' own memory (Claude Code's auto
// memory, Codex's memories feature) injected beside memctl's.
const CheckAgentMemory = "agent_memory"

// AgentMemoryState is an agent's own memory, and whether memctl is wired
// into the same agent.
type AgentMemoryState struct {
	agentmemory.State
	// MemctlSetUp: memctl setup was applied for the agent, so its
	// sessions get memctl's summary too.
	MemctlSetUp bool
}

// agentMemory reports each agent whose own memory is on: what it injects,
// whether memctl's summary comes beside it, and how to keep one.
func agentMemory(states []AgentMemoryState) []Finding {
	var out []Finding
	for _, s := range states {
		if !s.Installed {
			continue
		}
		if s.Err != "" {
			out = append(out, Finding{Check: CheckAgentMemory, Severity: Info, Subject: s.Agent,
				Message: "cannot tell whether its own memory is on: " + s.Err})
		}
		if !s.Enabled {
			continue
		}
		name, held := "Claude Code's auto memory", english.Count(s.Files, "project holds", "projects hold")+" one"
		fix := fmt.Sprintf(`keep one memory: set "autoMemoryEnabled": false in %s for memctl's alone, or memctl setup --undo claude-code for auto memory's alone (docs/integrations.md)`, s.Settings)
		if s.Agent == agentmemory.Codex {
			name, held = "Codex's memories feature", "its memory_summary.md is not written yet"
			if s.Files > 0 {
				held = "its memory_summary.md exists"
			}
			fix = fmt.Sprintf("keep one memory: set memories = false under [features] (or use_memories = false under [memories]) in %s for memctl's alone, or memctl setup --undo codex for Codex's alone (docs/integrations.md)", s.Settings)
		}
		msg := fmt.Sprintf("%s is on (%s): it injects %s; %s (%s)", name, s.Why, s.Injects, held, s.Store)
		if s.MemctlSetUp {
			msg += ". memctl is wired in too, so every session gets two memories of the same past, and pays for both"
		} else {
			msg += ". memctl is not wired into this agent, so that is the only memory its sessions get"
			fix = "memctl setup " + s.Agent + " adds memctl's summary beside it; docs/integrations.md says how to choose"
		}
		out = append(out, Finding{Check: CheckAgentMemory, Severity: Info, Subject: s.Agent, Message: msg, Fix: fix})
	}
	return out
}
