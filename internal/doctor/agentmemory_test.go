package doctor

import (
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/agentmemory"
)

func TestAgentMemorySaysWhatEachInjectsBesideMemctl(t *testing.T) {
	claude := agentmemory.State{Agent: agentmemory.ClaudeCode, Installed: true, Enabled: true, Why: "on by default",
		Store: "/u/.claude/projects/*/memory", Settings: "/u/.claude/settings.json", Files: 2, Injects: "MEMORY.md's head"}
	codexOff := agentmemory.State{Agent: agentmemory.Codex, Installed: true, Why: "off by default", Settings: "/u/.codex/config.toml"}
	absent := agentmemory.State{Agent: agentmemory.Codex, Enabled: true}
	rep, err := Run(ctx, Options{Root: t.TempDir(), AgentMemory: []AgentMemoryState{
		{State: claude, MemctlSetUp: true}, {State: codexOff, MemctlSetUp: true}, {State: absent}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []Finding
	for _, f := range rep.Findings {
		if f.Check == CheckAgentMemory {
			got = append(got, f)
		}
	}
	if len(got) != 1 || got[0].Subject != "claude-code" || got[0].Severity != Info || !rep.Healthy {
		t.Fatalf("findings %+v (healthy %v)", got, rep.Healthy)
	}
	for _, want := range []string{"auto memory is on (on by default)", "MEMORY.md's head", "2 projects hold one", "memctl is wired in too"} {
		if !strings.Contains(got[0].Message, want) {
			t.Errorf("message lacks %q: %s", want, got[0].Message)
		}
	}
	if !strings.Contains(got[0].Fix, `"autoMemoryEnabled": false in /u/.claude/settings.json`) || !strings.Contains(got[0].Fix, "memctl setup --undo claude-code") {
		t.Errorf("fix: %s", got[0].Fix)
	}
}
