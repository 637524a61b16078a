package doctor

import (
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/agentcli"
)

// TestAgentCLIs: every installed agent CLI is reported with its version
// and login, as information; a logged-in one is offered when auto fell
// back to the offline heuristic, with what to run and nothing spent.
func TestAgentCLIs(t *testing.T) {
	claude := agentcli.Status{Agent: agentcli.ClaudeCode, Path: "/usr/bin/claude", Version: "2.1.328", LoggedIn: true, Login: "a claude.ai subscription (max)"}
	codex := agentcli.Status{Agent: agentcli.Codex, Path: "/usr/bin/codex", Version: "0.169.0"}
	for _, tt := range []struct {
		name  string
		state []AgentCLIState
		want  []string // message, then fix, per finding
	}{
		{"offered", []AgentCLIState{{Status: claude, Provider: "heuristic", Offer: true}, {Status: codex, Provider: "heuristic", Offer: true}},
			[]string{
				"Claude Code 2.1.328, logged in with a claude.ai subscription (max): it can write memory with a model instead of the offline heuristic, through this login (provider.kind = auto found no API key)",
				`memctl run offers it and spends nothing before you say yes (or --yes); or set provider.kind = "claude-code" (docs/providers.md says what it costs)`,
				"Codex 0.169.0, not logged in",
				"run `codex login`, and memctl can write memory through it (docs/providers.md)",
			}},
		{"used", []AgentCLIState{{Status: claude, Provider: "claude-code"}},
			[]string{"Claude Code 2.1.328, logged in with a claude.ai subscription (max): memctl writes memory through it (provider.kind = claude-code)", ""}},
		{"another provider", []AgentCLIState{{Status: claude, Provider: "openai"}},
			[]string{"Claude Code 2.1.328, logged in with a claude.ai subscription (max): not used (the provider is openai)", ""}},
		{"not installed", []AgentCLIState{{Status: agentcli.Status{Agent: agentcli.Codex}, Provider: "heuristic", Offer: true}}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := Run(ctx, Options{Version: "v1", Root: t.TempDir(), AgentCLIs: tt.state, Provider: ProviderState{Resolved: tt.state[0].Provider}})
			if err != nil || !rep.Healthy {
				t.Fatalf("agent CLIs made the home unhealthy: %+v %v", rep, err)
			}
			fs := findings(rep, CheckAgentCLIs)
			if len(fs)*2 != len(tt.want) {
				t.Fatalf("%d findings, want %d: %+v", len(fs), len(tt.want)/2, fs)
			}
			for i, f := range fs {
				if f.Severity != Info || f.Message != tt.want[2*i] || f.Fix != tt.want[2*i+1] {
					t.Errorf("finding %d:\n%s %q\nfix %q\nwant %q\nfix  %q", i, f.Severity, f.Message, f.Fix, tt.want[2*i], tt.want[2*i+1])
				}
				if strings.Contains(f.Message, "/usr/bin") {
					t.Errorf("the finding names the path: %q", f.Message)
				}
			}
		})
	}
}
